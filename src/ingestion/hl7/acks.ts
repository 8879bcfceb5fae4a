import { hl7Escape, HL7Message, toHL7DateTime } from "hl7v2";
import { mshFields } from "./er7Messages.ts";
import type { Hl7Location } from "./oruToLabReport.ts";

/*
 * The ACK of one message (contract D.5): AA stored, AE rejected with an ERR segment per problem
 * naming the HL7 field and our field path, AR for what could not be taken; MSA-2 echoes MSH-10.
 * hl7v2 writes it in the message's version (ERR-8, the user message, exists from v2.5 on), on what
 * the message's MSH line tells, read without parsing: an unreadable message is answered too.
 */

export const OUR_APPLICATION = "DIALYSIS-HUB";

export type AckCode = "AA" | "AE" | "AR";

export interface AckProblem {
  location?: Hl7Location;
  /** HL7 table 0357: 101 required field missing, 102 data type error, 207 application error. */
  code: number;
  text: string;
}

/** ERR fields: before v2.5 one, code and location (ELD); from v2.5 where, HL7 error code, severity, user message. */
const ERR = { codeAndLocation: 1, location: 2, code: 3, severity: 4, userMessage: 8 } as const;

let ackSequence = 0;

/** What an ACK says of itself: when it was written (MSH-7) and its control id (MSH-10). */
export interface AckStamp {
  at: Date;
  controlId: string;
}

function nextStamp(): AckStamp {
  const at = new Date();
  // Unique within the process and a millisecond, in MSH-10's 20 characters.
  return { at, controlId: `${at.getTime()}${(ackSequence = (ackSequence + 1) % 100_000)}` };
}

/** The ACK of a message, as ER7 text, in the message's version (v2.5 when it names none it can be answered in). */
export function ackOf(er7: string, code: AckCode, text: string, problems: readonly AckProblem[] = []): string {
  const fields = mshFields(er7);
  return problems.length === 0
    ? plainAck(fields, code, text, nextStamp())
    : libraryAck(fields, code, text, problems, nextStamp());
}

/** The ACK as hl7v2 writes it, ERR segments and all: `fields` are the message's MSH fields (mshFields). */
export function libraryAck(
  fields: readonly string[],
  code: AckCode,
  text: string,
  problems: readonly AckProblem[],
  stamp: AckStamp,
): string {
  const sent = (n: number) => fields[n - 1] ?? "";
  let ack: HL7Message;
  try {
    ack = new HL7Message(
      (/^2\.\d(\.\d)?$/.test(sent(12)) ? sent(12) : "2.5") as ConstructorParameters<typeof HL7Message>[0],
    );
  } catch {
    ack = new HL7Message("2.5");
  }
  const msh = ack.header;
  msh.field(3).setValue(OUR_APPLICATION);
  // Addressed back to the sender.
  if (sent(3)) msh.field(5).setValue(sent(3));
  if (sent(4)) msh.field(6).setValue(sent(4));
  msh.field(7).setValue(stamp.at);
  msh.field(9).comp(1).setValue("ACK");
  const trigger = sent(9).split("^")[1];
  if (trigger) msh.field(9).comp(2).setValue(trigger);
  msh.field(10).setValue(stamp.controlId);
  msh.field(11).setValue(sent(11) || "P");
  // The answer is UTF-8 whatever the message came in (the HTTP body and the MLLP frame are).
  msh.field(18).setValue("UNICODE UTF-8");
  const msa = ack.addSegment("MSA");
  msa.field(1).setValue(code);
  msa.field(2).setValue(sent(10));
  msa.field(3).setValue(text);
  for (const { location, code: hl7ErrorCode, text: problem } of problems) {
    const err = ack.addSegment("ERR");
    const defined = (field: number) => Boolean(err.definition.fields[field]);
    if (location && defined(ERR.location)) {
      const where = err.field(ERR.location);
      where.comp(1).setValue(location.segment);
      where.comp(2).setValue(location.sequence);
      where.comp(3).setValue(location.field);
      if (location.component) where.comp(5).setValue(location.component);
    } else if (defined(ERR.codeAndLocation)) {
      const eld = err.field(ERR.codeAndLocation);
      if (location)
        [location.segment, location.sequence, location.field].forEach((value, i) => eld.comp(i + 1).setValue(value));
      eld.comp(4).setValue(hl7ErrorCode);
    }
    if (defined(ERR.code)) err.field(ERR.code).setValue(hl7ErrorCode);
    if (defined(ERR.severity)) err.field(ERR.severity).setValue("E");
    if (defined(ERR.userMessage)) err.field(ERR.userMessage).setValue(problem);
  }
  return ack.toHL7String();
}

/*
 * An ACK without ERR segments (every AA) is hl7v2's own writing too, at a tenth of its cost: its
 * MSH line depends on the message's MSH-3, 4, 9, 11 and 12 only, besides the time and control id,
 * so hl7v2 writes it once for each such header (a laboratory sends few) and the time and id are put
 * in its MSH-7 and MSH-10 after; MSA's three fields are escaped as hl7v2 escapes them. Built afresh,
 * an ACK took a fifth of an MLLP message's own CPU (#35). test/hl7/acks.test.ts checks both ways
 * write the same text.
 */
const HEADERS_KEPT = 256;
const headers = new Map<string, string[]>();
let lastTime = { ms: NaN, text: "" };

/** The ACK without ERR segments, as libraryAck writes it. */
export function plainAck(fields: readonly string[], code: AckCode, text: string, stamp: AckStamp): string {
  const sent = (n: number) => fields[n - 1] ?? "";
  const key = JSON.stringify([sent(3), sent(4), sent(9), sent(11), sent(12)]);
  let header = headers.get(key);
  if (!header) {
    if (headers.size >= HEADERS_KEPT) headers.clear();
    // MSH-7 and MSH-10 are put in for each ACK; values are escaped, so the line splits at its field separator.
    header = libraryAck(fields, code, "", [], { at: stamp.at, controlId: "" }).split("\r", 1)[0]!.split("|");
    headers.set(key, header);
  }
  const msh = header.slice();
  msh[6] = hl7Time(stamp.at);
  msh[9] = stamp.controlId;
  const msa = ["MSA", code, hl7Escape(sent(10)), hl7Escape(text)];
  while (msa.at(-1) === "") msa.pop();
  return `${msh.join("|")}\r${msa.join("|")}\r`;
}

/** MSH-7 as hl7v2 writes a Date, once a millisecond. */
function hl7Time(at: Date): string {
  if (at.getTime() !== lastTime.ms) lastTime = { ms: at.getTime(), text: toHL7DateTime(at) };
  return lastTime.text;
}

/** AR for a message refused whole (unreadable, not ORU^R01, its sender unknown). */
export function refuseMessage(er7: string, reason: string, problems: readonly AckProblem[] = []): string {
  return ackOf(er7, "AR", reason, problems);
}

import { HL7Message } from "hl7v2";
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

/** The ACK of a message, as ER7 text, in the message's version (v2.5 when it names none it can be answered in). */
export function ackOf(er7: string, code: AckCode, text: string, problems: readonly AckProblem[] = []): string {
  const fields = mshFields(er7);
  const sent = (n: number) => fields[n - 1] ?? "";
  let ack: HL7Message;
  try {
    ack = new HL7Message((/^2\.\d(\.\d)?$/.test(sent(12)) ? sent(12) : "2.5") as ConstructorParameters<typeof HL7Message>[0]);
  } catch {
    ack = new HL7Message("2.5");
  }
  const msh = ack.header;
  msh.field(3).setValue(OUR_APPLICATION);
  // Addressed back to the sender.
  if (sent(3)) msh.field(5).setValue(sent(3));
  if (sent(4)) msh.field(6).setValue(sent(4));
  msh.field(7).setValue(new Date());
  msh.field(9).comp(1).setValue("ACK");
  const trigger = sent(9).split("^")[1];
  if (trigger) msh.field(9).comp(2).setValue(trigger);
  // Unique within the process and a millisecond, in MSH-10's 20 characters.
  msh.field(10).setValue(`${Date.now()}${(ackSequence = (ackSequence + 1) % 100_000)}`);
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
      if (location) [location.segment, location.sequence, location.field].forEach((value, i) => eld.comp(i + 1).setValue(value));
      eld.comp(4).setValue(hl7ErrorCode);
    }
    if (defined(ERR.code)) err.field(ERR.code).setValue(hl7ErrorCode);
    if (defined(ERR.severity)) err.field(ERR.severity).setValue("E");
    if (defined(ERR.userMessage)) err.field(ERR.userMessage).setValue(problem);
  }
  return ack.toHL7String();
}

/** AR for a message refused whole (unreadable, not ORU^R01, its sender unknown). */
export function refuseMessage(er7: string, reason: string, problems: readonly AckProblem[] = []): string {
  return ackOf(er7, "AR", reason, problems);
}

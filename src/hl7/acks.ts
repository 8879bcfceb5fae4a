import { HL7Error, HL7Message, type HL7Segment } from "hl7v2";
import { mshField } from "./er7Messages.ts";
import type { Hl7Location } from "./oruToLabReport.ts";

/*
 * The ACK of one message (contract D.5): AA stored, AE rejected with an ERR segment per problem
 * naming the HL7 field and our field path, AR for what could not be read; MSA-2 echoes MSH-10.
 * hl7v2 builds them; its header leaves the sender's application out of the receiving fields, so
 * the header is written here as a sending system expects it back.
 */

export const OUR_APPLICATION = "DIALYSIS-HUB";

export type AckCode = "AA" | "AE" | "AR";

export interface AckProblem {
  location?: Hl7Location;
  /** hl7v2's table 0357: 101 required field missing, 102 data type error, 207 application error. */
  code: number;
  text: string;
}

const ERR_USER_MESSAGE = 8;

/** The sender's MSH-3, MSH-4 and MSH-11, which an ACK's header names back. */
interface Sender {
  application?: string;
  facility?: string;
  processingId?: string;
}

function addressedBack(msh: HL7Segment, { application, facility, processingId }: Sender): void {
  msh.field(3).setValue(OUR_APPLICATION);
  if (application) msh.field(5).setValue(application);
  if (facility) msh.field(6).setValue(facility);
  msh.field(11).setValue(processingId || "P");
  // The answer is UTF-8 whatever the message came in (the HTTP body and the MLLP frame are).
  msh.field(18).setValue("UNICODE UTF-8");
}

/** The ACK of a message that was read, as ER7 text. */
export function ackOf(message: HL7Message, code: AckCode, text: string, problems: readonly AckProblem[] = []): string {
  const ack =
    problems.length === 0
      ? message.createAck(code, text)
      : message.createNak(
          problems.map(
            ({ location, code: hl7ErrorCode, text: problem }) =>
              new HL7Error(problem, { hl7ErrorCode, severity: "E", segmentType: location?.segment, segmentSequence: location?.sequence, fieldPosition: location?.field, componentPosition: location?.component }),
          ),
        );
  const sent = message.header;
  addressedBack(ack.header, { application: sent.field(3).getValue(), facility: sent.field(4).getValue(), processingId: sent.field(11).getValue() });
  const msa = ack.getSegment("MSA")!;
  msa.field(1).setValue(code);
  msa.field(3).setValue(text);
  // ERR-8 (the user message) exists from v2.5 on; an older ACK names the problem in MSA-3 only.
  const errs = ack.segments.filter((segment) => segment.segmentType === "ERR");
  errs.forEach((err, i) => {
    if (err.definition.fields[ERR_USER_MESSAGE]) err.field(ERR_USER_MESSAGE).setValue(problems[i]!.text);
  });
  return ack.toHL7String();
}

/**
 * AR for a message refused before it could be looked at (unreadable, or its sender unknown):
 * built on what its MSH line still tells (the control id, the version), else on v2.5.
 */
export function refuseMessage(er7: string, reason: string): string {
  const sent = (n: number) => mshField(er7, n);
  const version = /^2\.\d(\.\d)?$/.test(sent(12)) ? sent(12) : "2.5";
  let ack: HL7Message;
  try {
    ack = new HL7Message(version as ConstructorParameters<typeof HL7Message>[0]);
  } catch {
    ack = new HL7Message("2.5");
  }
  const msh = ack.header;
  addressedBack(msh, { application: sent(3), facility: sent(4), processingId: sent(11) });
  msh.field(7).setValue(new Date());
  const trigger = sent(9).split("^")[1];
  msh.field(9).setValue(trigger ? `ACK^${trigger}` : "ACK");
  msh.field(10).setValue(`${Date.now()}`);
  const msa = ack.addSegment("MSA");
  msa.field(1).setValue("AR");
  msa.field(2).setValue(sent(10));
  msa.field(3).setValue(reason);
  return ack.toHL7String();
}

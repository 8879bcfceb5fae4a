import { HL7Message } from "hl7v2";
import { CommandError } from "../../commands/commandError.ts";
import { pushReports, type IngestionDeps, type PushingClient } from "../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../commands/ingestion/reportKinds.ts";
import { ackOf, refuseMessage, type AckProblem } from "./acks.ts";
import { er7Messages } from "./er7Messages.ts";
import { oruToLabReport } from "./oruToLabReport.ts";

/*
 * HL7 v2 ORU^R01 messages in, one ACK per message out (contract D.5). Each message is mapped to
 * the lab report a JSON push would send and goes through the push command itself, alone, so that
 * its ACK says what became of it and its events record the message it came in.
 */

/** HL7 table 0357: what kind of problem an ERR segment reports. */
const REQUIRED_FIELD_MISSING = 101;
const DATA_TYPE_ERROR = 102;

export async function pushHl7Messages(deps: IngestionDeps, client: PushingClient, body: string, requestId: string): Promise<string[]> {
  const { messages } = er7Messages(body);
  if (messages.length === 0) {
    throw new CommandError("invalid", "The body holds no HL7 message: send one or more ORU^R01 messages, each beginning with its MSH segment, segments ending with \\r.");
  }
  return answerMessages(deps, client, messages, requestId);
}

/** The ACKs of messages already split out of their body or frame (er7Messages), in order. */
export async function answerMessages(deps: IngestionDeps, client: PushingClient, messages: readonly string[], requestId: string): Promise<string[]> {
  const acks: string[] = [];
  for (const er7 of messages) acks.push(await answer(deps, client, er7, requestId));
  return acks;
}

async function answer(deps: IngestionDeps, client: PushingClient, er7: string, requestId: string): Promise<string> {
  let message: HL7Message;
  try {
    message = HL7Message.parse(er7);
  } catch {
    return refuseMessage(er7, "The message cannot be read as HL7 v2: it must begin MSH|^~\\&| with its fields, MSH-9 ORU^R01 and MSH-10 its control id.");
  }
  const [event, trigger] = [1, 2].map((c) => message.header.field(9).comp(c)?.getValue() ?? "");
  if (!event) {
    return ackOf(message, "AR", "MSH-9 (the message type) is missing: send ORU^R01 there.", [
      { location: { segment: "MSH", sequence: 1, field: 9 }, code: REQUIRED_FIELD_MISSING, text: "MSH-9: required, ORU^R01" },
    ]);
  }
  if (event !== "ORU" || trigger !== "R01") {
    return ackOf(message, "AR", `Only ORU^R01 messages are taken here; this is ${event}^${trigger}.`, [
      { location: { segment: "MSH", sequence: 1, field: 9 }, code: DATA_TYPE_ERROR, text: `MSH-9: ${event}^${trigger} is not ORU^R01` },
    ]);
  }
  const mapped = oruToLabReport(message);
  const result = await pushReports(deps, reportKinds.lab, client, { reports: [mapped.report] }, requestId, { format: "hl7v2", controlId: mapped.controlId });
  const entry = result.results[0]!;
  if (entry.status === "REJECTED") {
    const problems: AckProblem[] = entry.errors.map(({ field, message: problem }) => ({
      location: mapped.sourceOf(field),
      code: /required|missing/i.test(problem) ? REQUIRED_FIELD_MISSING : DATA_TYPE_ERROR,
      text: `${field}: ${problem}`,
    }));
    return ackOf(message, "AE", `Rejected: ${problems.map((p) => p.text).join("; ")}`.slice(0, 500), problems);
  }
  const waiting = entry.matched ? "" : `; awaiting a patient (${entry.pendingReason ?? "unmatched"})`;
  return ackOf(message, "AA", `${entry.status} ${entry.externalId}${waiting}`);
}

import { setImmediate } from "node:timers/promises";
import { CommandError } from "../../../commands/kit/commandError.ts";
import {
  MAX_REPORTS_PER_PUSH,
  pushReports,
  type IngestionDeps,
  type PushingClient,
  type ResultEntry,
} from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import { ackOf, refuseMessage, type AckCode, type AckProblem } from "./acks.ts";
import { er7Messages } from "./er7Messages.ts";
import { Er7Message, Er7Unreadable } from "./er7Reader.ts";
import { oruToLabReport, type MappedOru } from "./oruToLabReport.ts";

/*
 * HL7 v2 ORU^R01 messages in, one ACK per message out (contract D.5). Each message is read and
 * mapped to the lab report a JSON push would send; the mapped reports go through the push command
 * itself, up to a push's worth at a time, so that each ACK says what became of its report and each
 * report's event records the message it came in.
 */

/** HL7 table 0357: what kind of problem an ERR segment reports. */
const REQUIRED_FIELD_MISSING = 101;
const DATA_TYPE_ERROR = 102;
const MESSAGES_BETWEEN_YIELDS = 10;

/** A message as read: its report mapped, ready to push, or the ACK that refuses it. */
export type ReadMessage = { refusal: { code: "AR"; ack: string } } | { er7: string; mapped: MappedOru };

/** A message's ACK, with what became of its report when it was pushed (for the counts). */
export interface Answer {
  code: AckCode;
  ack: string;
  outcome?: ResultEntry["status"];
}

const refused = (ack: string): ReadMessage => ({ refusal: { code: "AR", ack } });

/** Reads one message (split out of its body or frame by er7Messages): an ORU^R01 is mapped, anything else refused. */
export function readMessage(er7: string): ReadMessage {
  let message: Er7Message;
  try {
    message = new Er7Message(er7);
  } catch (error) {
    if (!(error instanceof Er7Unreadable)) throw error;
    return refused(
      refuseMessage(
        er7,
        "The message cannot be read as HL7 v2: it must begin MSH|^~\\&| with its fields, MSH-9 ORU^R01 and MSH-10 its control id.",
      ),
    );
  }
  const msh = message.segments[0]!;
  const [event, trigger] = [msh.text(9, 1) ?? "", msh.text(9, 2) ?? ""];
  if (!event) {
    return refused(
      refuseMessage(er7, "MSH-9 (the message type) is missing: send ORU^R01 there.", [
        {
          location: { segment: "MSH", sequence: 1, field: 9 },
          code: REQUIRED_FIELD_MISSING,
          text: "MSH-9: required, ORU^R01",
        },
      ]),
    );
  }
  if (event !== "ORU" || trigger !== "R01") {
    return refused(
      refuseMessage(er7, `Only ORU^R01 messages are taken here; this is ${event}^${trigger}.`, [
        {
          location: { segment: "MSH", sequence: 1, field: 9 },
          code: DATA_TYPE_ERROR,
          text: `MSH-9: ${event}^${trigger} is not ORU^R01`,
        },
      ]),
    );
  }
  return { er7, mapped: oruToLabReport(message) };
}

/** The ACKs of a body of ER7 text (HTTP): every message read, then pushed. */
export async function pushHl7Messages(
  deps: IngestionDeps,
  client: PushingClient,
  body: string,
  requestId: string,
): Promise<Answer[]> {
  const { messages } = er7Messages(body);
  if (messages.length === 0) {
    throw new CommandError(
      "invalid",
      "The body holds no HL7 message: send one or more ORU^R01 messages, each beginning with its MSH segment, segments ending with \\r.",
    );
  }
  const read: ReadMessage[] = [];
  for (const er7 of messages) {
    // Reading takes a tenth of a millisecond a message: a body of thousands lets other requests through.
    if (read.length > 0 && read.length % MESSAGES_BETWEEN_YIELDS === 0) await setImmediate();
    read.push(readMessage(er7));
  }
  return answerRead(deps, client, read, requestId);
}

/**
 * The ACKs of messages already read, in order: the mapped reports are pushed in order, a push's
 * worth at a time, so one report sent twice is stored in the order its messages came.
 */
export async function answerRead(
  deps: IngestionDeps,
  client: PushingClient,
  read: readonly ReadMessage[],
  requestId: string,
): Promise<Answer[]> {
  const answers: Answer[] = read.map((message) => ("refusal" in message ? message.refusal : { code: "AR", ack: "" }));
  const toPush = read.flatMap((message, index) =>
    "mapped" in message ? [{ index, er7: message.er7, mapped: message.mapped }] : [],
  );
  for (let from = 0; from < toPush.length; from += MAX_REPORTS_PER_PUSH) {
    const batch = toPush.slice(from, from + MAX_REPORTS_PER_PUSH);
    const origins = batch.map(({ mapped }) => ({ format: "hl7v2", controlId: mapped.controlId }));
    const result = await pushReports(
      deps,
      reportKinds.lab,
      client,
      { reports: batch.map(({ mapped }) => mapped.report) },
      requestId,
      origins,
    );
    batch.forEach(({ index, er7, mapped }, k) => (answers[index] = answerOf(er7, mapped, result.results[k]!)));
  }
  return answers;
}

function answerOf(er7: string, mapped: MappedOru, entry: ResultEntry): Answer {
  if (entry.status === "REJECTED") {
    const problems: AckProblem[] = entry.errors.map(({ field, message: problem }) => ({
      location: mapped.sourceOf(field),
      code: /required|missing/i.test(problem) ? REQUIRED_FIELD_MISSING : DATA_TYPE_ERROR,
      text: `${field}: ${problem}`,
    }));
    return {
      code: "AE",
      ack: ackOf(er7, "AE", `Rejected: ${problems.map((p) => p.text).join("; ")}`.slice(0, 500), problems),
      outcome: entry.status,
    };
  }
  const waiting = entry.matched ? "" : `; awaiting a patient (${entry.pendingReason ?? "unmatched"})`;
  return { code: "AA", ack: ackOf(er7, "AA", `${entry.status} ${entry.externalId}${waiting}`), outcome: entry.status };
}

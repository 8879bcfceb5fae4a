import { randomUUID } from "node:crypto";
import { setImmediate } from "node:timers";
import type { Logger } from "pino";
import { MAX_REPORTS_PER_PUSH, pushingClient, type IngestionDeps } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import { endedCredential, type CredentialCheck } from "../../credentials/credentialCheck.ts";
import type { ServiceMetrics } from "../../metrics/serviceMetrics.ts";
import type { MessageKeeper } from "../../messages/receivedMessage.ts";
import type { Client } from "../../../queries/credentials/credentials.ts";
import { refuseMessage } from "./acks.ts";
import { answerRead, type Answer, type ReadMessage } from "./pushHl7Messages.ts";

/*
 * Group commit for MLLP. A laboratory system may keep several messages unacknowledged, and may open
 * several connections: messages carrying the same key that arrive, on any connection, while that
 * key's pushes are being stored wait, and then go together in one push (up to a push's worth: one
 * transaction, one commit), each still answered with its own ACK. A message that arrives alone is
 * pushed at once. Up to GROUPS_IN_FLIGHT pushes of a key are stored at a time (the database works
 * on one while the next is checked), but never two holding the same report: a corrected result
 * sent after its preliminary one waits for it, and is stored after it.
 */

const GROUPS_IN_FLIGHT = 4;
/**
 * A group short of a push's worth goes only while fewer of the key's pushes than this are being
 * stored: while the database is busy, the messages that arrive make the next group fuller (one
 * transaction, one commit for more of them) instead of a fourth small one. With every group sent as
 * soon as a place was free, 6,400 messages on 4 connections went in 84 transactions, not 64 (#35).
 */
const PARTIAL_GROUPS_IN_FLIGHT = 2;

/** The reasons of an AR for the key (the listener gives them too, to a large frame it refuses before it is whole), and for a fault of ours. */
export const MISSING_KEY = "Send your client key in MSH-8 (Security) of every message.";
export const UNKNOWN_KEY = "The key in MSH-8 is unknown or revoked; ask the administrator for a valid key.";
export const SEND_AGAIN = "The service could not handle this message now; send it again.";

/** A message's answer, and what it showed of its key: valid (true), missing, unknown or revoked (false), not known (null: the service failed first). */
export type SenderAnswer = Answer & { keyValid: boolean | null };

interface Waiting {
  er7: string;
  read: ReadMessage;
  settle: (answer: SenderAnswer) => void;
}

/** A key's messages not yet pushed, its pushes being stored, and the reports they hold. */
interface Sender {
  waiting: Waiting[];
  inFlight: number;
  reportsInFlight: Set<string>;
  dispatching: boolean;
}

const reportOf = (read: ReadMessage): string | null =>
  "mapped" in read ? String(read.mapped.report.externalId ?? "") : null;

export class SenderGroups {
  private readonly senders = new Map<string, Sender>();

  constructor(
    private readonly deps: IngestionDeps,
    private readonly credentials: CredentialCheck,
    private readonly metrics: ServiceMetrics,
    private readonly log: Logger,
    /** Where each message is kept with its ACK (contract G.5); null: not kept. */
    private readonly messages: MessageKeeper | null = null,
  ) {}

  /** The answer to one message sent with `key` (MSH-8), once its group is stored. */
  answer(key: string, er7: string, read: ReadMessage): Promise<SenderAnswer> {
    if (!key) return Promise.resolve(this.refused({ tenant: "", client: "" }, er7, MISSING_KEY, false));
    return new Promise((settle) => {
      let sender = this.senders.get(key);
      if (!sender)
        this.senders.set(key, (sender = { waiting: [], inFlight: 0, reportsInFlight: new Set(), dispatching: false }));
      sender.waiting.push({ er7, read, settle });
      this.dispatchSoon(key, sender);
    });
  }

  /** Dispatches once the frames that arrived together have all been read, so that they group. */
  private dispatchSoon(key: string, sender: Sender): void {
    if (sender.dispatching) return;
    sender.dispatching = true;
    setImmediate(() => {
      sender.dispatching = false;
      this.dispatch(key, sender);
    });
  }

  private dispatch(key: string, sender: Sender): void {
    while (sender.inFlight < GROUPS_IN_FLIGHT && sender.waiting.length > 0) {
      if (sender.waiting.length < MAX_REPORTS_PER_PUSH && sender.inFlight >= PARTIAL_GROUPS_IN_FLIGHT) break;
      const group = this.nextGroup(sender);
      if (group.length === 0) break; // every waiting message's report is being stored
      sender.inFlight++;
      void this.pushGroup(key, group).then((answers) => {
        group.forEach((waiting, i) => {
          const report = reportOf(waiting.read);
          if (report !== null) sender.reportsInFlight.delete(report);
          waiting.settle(answers[i]!);
        });
        sender.inFlight--;
        if (sender.inFlight === 0 && sender.waiting.length === 0) this.senders.delete(key);
        else this.dispatch(key, sender);
      });
    }
  }

  /** Up to a push's worth of waiting messages, in order, leaving those whose report is being stored (and any later copy of it). */
  private nextGroup(sender: Sender): Waiting[] {
    const group: Waiting[] = [];
    const held = new Set<string>();
    const left: Waiting[] = [];
    for (const waiting of sender.waiting) {
      const report = reportOf(waiting.read);
      const free = report === null || (!sender.reportsInFlight.has(report) && !held.has(report));
      if (group.length < MAX_REPORTS_PER_PUSH && free) group.push(waiting);
      else {
        if (report !== null) held.add(report);
        left.push(waiting);
      }
    }
    // A group may hold one report twice (a push stores them in order); the reports are in flight once it is sent.
    for (const waiting of group) {
      const report = reportOf(waiting.read);
      if (report !== null) sender.reportsInFlight.add(report);
    }
    sender.waiting = left;
    return group;
  }

  /** Whether `key` (MSH-8) is a client's valid key now: the listener asks before it takes a large frame from a connection that has shown none. */
  async isValidKey(key: string): Promise<boolean> {
    return key !== "" && (await this.credentials.client(key)).status === "valid";
  }

  /** The group's answers, each message kept with its ACK once its client is known (an unknown key's are not). */
  private async pushGroup(key: string, group: Waiting[]): Promise<SenderAnswer[]> {
    const receivedAt = new Date();
    const answered = await this.answerGroup(key, group);
    if (this.messages && answered.client) {
      const client = answered.client;
      await Promise.all(
        group.map(({ er7 }, i) => {
          const body = Buffer.from(er7, "utf8");
          return this.messages!.keep({
            messageId: randomUUID(),
            tenant: client.tenant,
            receivedAt,
            channel: "hl7-mllp",
            clientId: client.clientId,
            clientName: client.name,
            body,
            bytes: body.length,
            outcome: answered.answers[i]!.code === "AA" ? "accepted" : "refused",
            answer: answered.answers[i]!.ack,
          });
        }),
      );
    }
    return answered.answers;
  }

  private async answerGroup(
    key: string,
    group: Waiting[],
  ): Promise<{ answers: SenderAnswer[]; client: Client | null }> {
    const known: { client: Client | null } = { client: null };
    const answers = await this.answersOf(key, group, known);
    return { answers, client: known.client };
  }

  private async answersOf(key: string, group: Waiting[], known: { client: Client | null }): Promise<SenderAnswer[]> {
    let sender = { tenant: "", client: "" };
    let keyValid: boolean | null = null;
    try {
      // Read for each group: a key revoked meanwhile is refused from the next group on.
      const found = await this.credentials.client(key);
      keyValid = found.status === "valid";
      if (found.status !== "valid") {
        const reason = found.status === "unknown" ? UNKNOWN_KEY : endedCredential(found, "client key");
        return group.map(({ er7 }) => this.refused(sender, er7, reason, false));
      }
      const client = found.credential;
      sender = { tenant: client.tenant, client: client.clientId };
      known.client = client;
      const answers = await answerRead(
        this.deps,
        pushingClient(client),
        group.map(({ read }) => read),
        `mllp-${randomUUID()}`,
      );
      this.metrics.reportsReceived({
        kind: reportKinds.lab.name,
        ...sender,
        outcomes: answers.flatMap((answer) => (answer.outcome ? [answer.outcome] : [])),
      });
      this.metrics.hl7Answered(
        "mllp",
        sender,
        answers.map((answer) => answer.code),
      );
      return answers.map((answer) => ({ ...answer, keyValid: true }));
    } catch (error) {
      // Sent again, a message whose report was stored after all is answered UNCHANGED: nothing doubles.
      this.log.error({ err: error }, "a group of MLLP messages could not be handled");
      return group.map(({ er7 }) => this.refused(sender, er7, SEND_AGAIN, keyValid));
    }
  }

  private refused(
    sender: { tenant: string; client: string },
    er7: string,
    reason: string,
    keyValid: boolean | null,
  ): SenderAnswer {
    this.metrics.hl7Answered("mllp", sender, ["AR"]);
    return { code: "AR", ack: refuseMessage(er7, reason), keyValid };
  }
}

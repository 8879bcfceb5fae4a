import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Logger } from "pino";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import { normaliseIdCard } from "../../commands/patients/events.ts";
import type { Queryable } from "../../db/eventStore.ts";
import { BatchedWriter } from "../batchedWriter.ts";
import { idCardSearchDigest } from "../secrets/idCardSearchKey.ts";
import { messageFacts, withoutKeys } from "./messageFacts.ts";
import { keptBody, type MessageChannel, type MessageOutcome, type ReceivedMessage } from "./receivedMessage.ts";

const gzipped = promisify(gzip);

export interface MessageRecorderMetrics {
  messagesKept(channel: MessageChannel, outcome: MessageOutcome, count: number): void;
  messageWriteFailed(): void;
  messagesLost(count: number): void;
}

export interface MessageRecorderOptions {
  /** How long a message waits for others to go with it in one write. */
  flushAfterMs: number;
  /** The bytes of bodies waiting to be written; past it, the next answer waits for room (never a message dropped). */
  maxQueueBytes: number;
}

/** Messages per write: one multi-row insert. */
const BATCH_MESSAGES = 200;
const COLUMNS = 14;

/**
 * The message store's writer in this process (contract G.5, decision 0086), the access log's way
 * (src/access/accessRecorder.ts), both a BatchedWriter: an answer hands its message over and goes
 * on; messages are written in batches, and what a message carried (its externalIds, patient ids,
 * errors) is read from it here, not on the answer's path. Unlike access records, a message that
 * was answered is never dropped: when the queue is full the next answer waits for room (the sender
 * is slowed, not forgotten), and while the database refuses the write is tried again with
 * back-off. Flushed when the service stops, after the servers that answer.
 */
export class MessageRecorder {
  private readonly writer: BatchedWriter<ReceivedMessage>;

  constructor(
    private readonly db: Queryable,
    private readonly identifiers: IdentifierHasher,
    log: Logger,
    metrics: MessageRecorderMetrics,
    options: MessageRecorderOptions,
  ) {
    this.writer = new BatchedWriter({
      insert: (batch) => this.insert(batch),
      sizeOf: (message) => message.body.length,
      batchSize: BATCH_MESSAGES,
      flushAfterMs: options.flushAfterMs,
      maxQueueBytes: options.maxQueueBytes,
      whenFull: "wait",
      hooks: {
        written(batch) {
          for (const message of batch) metrics.messagesKept(message.channel, message.outcome, 1);
        },
        writeFailed(error, queued, outageBegins) {
          metrics.messageWriteFailed();
          if (outageBegins)
            log.warn(
              { err: error, queued },
              "received messages could not be written; they wait in memory and the write is tried again",
            );
        },
        writingAgain(failedWrites) {
          log.info({ failedWrites }, "received messages are written again");
        },
        lost(count) {
          log.error(
            { messages: count },
            "received messages not written before the service stopped (the database refused them): they are lost",
          );
          metrics.messagesLost(count);
        },
      },
    });
  }

  /** Messages waiting to be written. */
  get queued(): number {
    return this.writer.queued;
  }

  /** Takes a message to be written; resolves at once, or once there is room in the queue. */
  async keep(message: ReceivedMessage): Promise<void> {
    return this.writer.add(message);
  }

  /** Writes what is queued, trying again until `graceMs` has passed; what is left then is lost, counted and logged. */
  stop(graceMs: number): Promise<void> {
    return this.writer.stop(graceMs);
  }

  /** One multi-row insert; a message written before (a retry after a lost commit answer) is not written twice. */
  private async insert(batch: readonly ReceivedMessage[]): Promise<void> {
    const rows = await Promise.all(batch.map((message) => this.row(message)));
    const values = rows.map(
      (_, r) => `(${Array.from({ length: COLUMNS }, (__, c) => `$${r * COLUMNS + c + 1}`).join(", ")})`,
    );
    await this.db.query(
      `insert into messages (message_id, tenant, received_at, channel, client_id, client_name, bytes, outcome,
         external_ids, patient_keys, errors, answer, body, truncated)
       values ${values.join(", ")} on conflict (message_id) do nothing`,
      rows.flat(),
    );
  }

  private async row(message: ReceivedMessage): Promise<unknown[]> {
    const hl7 = message.channel === "hl7-http" || message.channel === "hl7-mllp";
    // MSH-8 carries the client key over MLLP (contract D.5): it is blanked before anything is kept.
    const text = hl7 ? withoutKeys(message.body.toString("utf8")) : message.body.toString("utf8");
    const facts = messageFacts(message.channel, text, message.answer);
    const whole = Buffer.from(text, "utf8");
    const body = keptBody(whole);
    const patientKeys = [...new Set([...facts.idCards, ...facts.hisIds].map((id) => patientKey(this.identifiers, id)))];
    return [
      message.messageId,
      message.tenant,
      message.receivedAt,
      message.channel,
      message.clientId,
      message.clientName,
      message.bytes,
      message.outcome,
      facts.externalIds,
      patientKeys,
      JSON.stringify(facts.errors),
      JSON.stringify(message.answer ?? null),
      message.bytes === 0 ? null : await gzipped(body),
      body.length < whole.length || message.body.length < message.bytes,
    ];
  }
}

/** The keyed hash a patient id (a national id or a HIS id) is stored and searched by: never the id itself. */
export function patientKey(identifiers: IdentifierHasher, id: string): string {
  return idCardSearchDigest(identifiers, normaliseIdCard(id));
}

import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Logger } from "pino";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import { normaliseIdCard } from "../../commands/patients/events.ts";
import type { Queryable } from "../../db/eventStore.ts";
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
const FIRST_RETRY_MS = 200;
const LAST_RETRY_MS = 5000;
const COLUMNS = 14;

interface Queued {
  message: ReceivedMessage;
  queuedAt: number;
}

/**
 * The message store's writer in this process (contract G.5, decision 0086), the access log's way
 * (src/access/accessRecorder.ts): an answer hands its message over and goes on; messages are
 * written in batches, a batch when its first message has waited `flushAfterMs` or at once when
 * full, and what a message carried (its externalIds, patient ids, errors) is read from it here,
 * not on the answer's path. Unlike access records, a message that was answered is never dropped:
 * when the queue is full the next answer waits for room (the sender is slowed, not forgotten),
 * and while the database refuses the write is tried again with back-off. Flushed when the
 * service stops, after the servers that answer.
 */
export class MessageRecorder {
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  private readonly waitingForRoom: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private retryMs = 0;
  private failedWrites = 0;
  private stopped = false;

  constructor(
    private readonly db: Queryable,
    private readonly identifiers: IdentifierHasher,
    private readonly log: Logger,
    private readonly metrics: MessageRecorderMetrics,
    private readonly options: MessageRecorderOptions,
  ) {}

  /** Messages waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  /** Takes a message to be written; resolves at once, or once there is room in the queue. */
  async keep(message: ReceivedMessage): Promise<void> {
    while (
      !this.stopped &&
      this.queue.length > 0 &&
      this.queuedBytes + message.body.length > this.options.maxQueueBytes
    )
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    this.queue.push({ message, queuedAt: performance.now() });
    this.queuedBytes += message.body.length;
    if (this.stopped) return this.writeNow();
    if (this.writing || this.retryMs > 0) return;
    if (this.queue.length >= BATCH_MESSAGES) this.writeNow();
    else this.timer ??= setTimeout(() => this.writeNow(), this.options.flushAfterMs);
  }

  /** Writes what is queued, trying again until `graceMs` has passed; what is left then is lost, counted and logged. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    const deadline = Date.now() + graceMs;
    this.clearTimer();
    for (;;) {
      await this.writing;
      if (this.queue.length === 0) return;
      const wait = Math.min(this.retryMs, deadline - Date.now());
      if (wait < 0) break;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.writeNow();
    }
    this.log.error(
      { messages: this.queue.length },
      "received messages not written before the service stopped (the database refused them): they are lost",
    );
    this.metrics.messagesLost(this.queue.length);
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.roomMade();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private writeNow(): void {
    this.clearTimer();
    if (this.writing) return;
    this.writing = this.writeQueued().finally(() => (this.writing = null));
  }

  private async writeQueued(): Promise<void> {
    for (let first = true; this.queue.length > 0; first = false) {
      const dueIn = this.queue[0]!.queuedAt + this.options.flushAfterMs - performance.now();
      if (!first && !this.stopped && this.queue.length < BATCH_MESSAGES && dueIn > 0) {
        this.timer = setTimeout(() => this.writeNow(), dueIn);
        return;
      }
      const batch = this.queue.slice(0, BATCH_MESSAGES).map(({ message }) => message);
      try {
        await this.insert(batch);
      } catch (error) {
        this.failed(error);
        return;
      }
      this.queue.splice(0, batch.length);
      this.queuedBytes -= batch.reduce((sum, message) => sum + message.body.length, 0);
      this.roomMade();
      for (const message of batch) this.metrics.messagesKept(message.channel, message.outcome, 1);
      if (this.failedWrites > 0)
        this.log.info({ failedWrites: this.failedWrites }, "received messages are written again");
      this.failedWrites = 0;
      this.retryMs = 0;
    }
  }

  private roomMade(): void {
    for (const resolve of this.waitingForRoom.splice(0)) resolve();
  }

  private failed(error: unknown): void {
    this.metrics.messageWriteFailed();
    if (this.failedWrites === 0)
      this.log.warn(
        { err: error, queued: this.queue.length },
        "received messages could not be written; they wait in memory and the write is tried again",
      );
    this.failedWrites += 1;
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs === 0 ? FIRST_RETRY_MS : this.retryMs * 2);
    if (!this.stopped) this.timer = setTimeout(() => this.writeNow(), this.retryMs);
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

import type { Logger } from "pino";
import type { AccessRecord } from "../../commands/access/events.ts";
import { appendAccessRecords, type AccessRecordToWrite } from "../../commands/access/recordAccess.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { authorsByTokenDigest, type RecordedAuthor } from "../../queries/access/accessCallers.ts";
import type { AccessDropReason } from "../metrics/serviceMetrics.ts";

/**
 * Who called, as far as the answer knew without a look-up. An author's id, and who holds a token
 * sent to a viewing call, are looked up when the record is written, a batch at a time, so that
 * recording never costs the answer a round trip.
 */
export type CallerAtAnswer =
  | { kind: "known"; who: string; credential: string; roles: string[] }
  /** A viewing call's token, by the digests it may be stored as: who it names is looked up when written. */
  | { kind: "token"; tokenDigests: string[] };

export const ANONYMOUS: CallerAtAnswer = { kind: "known", who: "anonymous", credential: "none", roles: ["viewer"] };

/** An access record as the answer left it: everything but who called, which the writer completes. */
export interface AnsweredAccess {
  tenant: string;
  recordId: string;
  caller: CallerAtAnswer;
  record: Omit<AccessRecord, "who" | "credential" | "roles">;
}

export interface AccessRecorderMetrics {
  accessRecordsWritten(count: number): void;
  accessWriteFailed(): void;
  accessRecordsDropped(reason: AccessDropReason, count: number): void;
}

export interface AccessRecorderOptions {
  /** How long a record waits for others to go with it in one write. */
  flushAfterMs: number;
  /** The JSON bytes the records waiting to be written may take together; past it, new records are dropped and counted. */
  maxQueueBytes: number;
}

/** Records per write: one multi-row insert per tenant of the batch. */
const BATCH_RECORDS = 500;
/** Waits between failed writes: from the first to the last, doubling. */
const FIRST_RETRY_MS = 200;
const LAST_RETRY_MS = 5000;

interface Queued extends AnsweredAccess {
  bytes: number;
  /** When it was queued (performance.now()): it waits at most `flushAfterMs` from then for others to go with it. */
  queuedAt: number;
}

/**
 * The access log's writer in this process (contract E.4): answers hand it their records and go on;
 * it writes them to the event store in batches, one multi-row append each: a batch goes when its
 * first record has waited `flushAfterMs`, or at once when it is full. Records that come while a
 * write is under way wait for their own batch in the same way, not for the end of that write: were
 * they written right after it, a service answering more often than a write takes would write
 * without pause, a few records at a time, each write waking the access_log projection, all of it
 * beside the answers it records (bench identity). While the database
 * refuses, records wait in memory (up to `maxQueueBytes`) and the write is tried again with
 * back-off; what cannot be kept is counted and logged, never waited for. Flushed when the service
 * stops.
 */
export class AccessRecorder {
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private retryMs = 0;
  private failedWrites = 0;
  private droppedSinceWarned = 0;
  private stopped = false;

  constructor(
    private readonly store: EventStore,
    private readonly log: Logger,
    private readonly metrics: AccessRecorderMetrics,
    private readonly options: AccessRecorderOptions,
  ) {}

  /** Records waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  record(answered: AnsweredAccess): void {
    const bytes = JSON.stringify(answered).length;
    if (this.stopped || this.queuedBytes + bytes > this.options.maxQueueBytes) {
      this.drop(this.stopped ? "shutdown" : "queue_full", 1);
      return;
    }
    this.queue.push({ ...answered, bytes, queuedAt: performance.now() });
    this.queuedBytes += bytes;
    if (this.writing || this.retryMs > 0) return; // the write under way (which times the batch after it), or the next try, takes it
    if (this.queue.length >= BATCH_RECORDS) this.writeNow();
    else this.timer ??= setTimeout(() => this.writeNow(), this.options.flushAfterMs);
  }

  /** Writes what is queued, trying again until `graceMs` has passed; what is left then is counted as dropped. */
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
      { records: this.queue.length },
      "access records not written before the service stopped (the database refused them): they are lost",
    );
    this.drop("shutdown", this.queue.length);
    this.queue.length = 0;
    this.queuedBytes = 0;
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

  /**
   * Writes the batch that is due, then the full batches behind it (all that is left, once stopping);
   * a batch not yet full nor due gets its timer. A failure schedules the next try instead.
   */
  private async writeQueued(): Promise<void> {
    for (let first = true; this.queue.length > 0; first = false) {
      const dueIn = this.queue[0]!.queuedAt + this.options.flushAfterMs - performance.now();
      if (!first && !this.stopped && this.queue.length < BATCH_RECORDS && dueIn > 0) {
        this.timer = setTimeout(() => this.writeNow(), dueIn);
        return;
      }
      const batch = this.queue.slice(0, BATCH_RECORDS);
      try {
        await appendAccessRecords(this.store, await this.completed(batch));
      } catch (error) {
        this.failed(error);
        return;
      }
      this.queue.splice(0, batch.length);
      this.queuedBytes -= batch.reduce((sum, entry) => sum + entry.bytes, 0);
      this.metrics.accessRecordsWritten(batch.length);
      if (this.failedWrites > 0) this.log.info({ failedWrites: this.failedWrites }, "access records are written again");
      this.failedWrites = 0;
      this.retryMs = 0;
    }
  }

  private failed(error: unknown): void {
    this.metrics.accessWriteFailed();
    // Once per outage, not once per try: the metric counts the tries.
    if (this.failedWrites === 0)
      this.log.warn(
        { err: error, queued: this.queue.length },
        "access records could not be written; they wait in memory and the write is tried again",
      );
    this.failedWrites += 1;
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs === 0 ? FIRST_RETRY_MS : this.retryMs * 2);
    if (!this.stopped) this.timer = setTimeout(() => this.writeNow(), this.retryMs);
  }

  private drop(reason: AccessDropReason, count: number): void {
    if (count === 0) return;
    this.metrics.accessRecordsDropped(reason, count);
    if (reason !== "queue_full") return;
    // Warned at the first drop and then at every thousandth, not for each record of a flood.
    if (this.droppedSinceWarned % 1000 === 0)
      this.log.error(
        { queuedBytes: this.queuedBytes, maxQueueBytes: this.options.maxQueueBytes },
        "access records dropped: the queue of records waiting for the database is full",
      );
    this.droppedSinceWarned += count;
  }

  /** The batch's records with who called completed: the authors behind the tokens looked up, once per batch. */
  private async completed(batch: readonly Queued[]): Promise<AccessRecordToWrite[]> {
    const digests = [...new Set(batch.flatMap(({ caller }) => (caller.kind === "known" ? [] : caller.tokenDigests)))];
    const authors = await authorsByTokenDigest(this.store.db, digests);
    return batch.map(({ tenant, recordId, caller, record }) => ({
      tenant,
      recordId,
      record: { ...record, ...callerFields(caller, tenant, authors) },
    }));
  }
}

function callerFields(
  caller: CallerAtAnswer,
  tenant: string,
  authors: ReadonlyMap<string, RecordedAuthor>,
): Pick<AccessRecord, "who" | "credential" | "roles"> {
  switch (caller.kind) {
    case "known":
      return { who: caller.who, credential: caller.credential, roles: caller.roles };
    case "token": {
      // A viewing call takes any token and ignores one it does not know or of another tenant: then its caller is a viewer.
      const author = caller.tokenDigests.map((digest) => authors.get(digest)).find(Boolean);
      return author && author.tenant === tenant
        ? { who: author.name, credential: author.authorId, roles: author.roles }
        : callerFields(ANONYMOUS, tenant, authors);
    }
  }
}

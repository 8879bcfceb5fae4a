/** Why an item was refused by a writer that drops: its queue was full, or the service is stopping. */
export type RefusedBecause = "queue_full" | "shutdown";

/**
 * What a full queue does to the next item. Dropping never makes the one who hands the item over
 * wait (the access log: recording never withholds care); waiting slows the sender rather than
 * forget what it was answered (the message store).
 */
export type WhenFull = { drop: (because: RefusedBecause) => void } | "wait";

/** What the user of a writer hears of it: its metrics and log lines are its own. */
export interface BatchedWriterHooks<T> {
  /** A batch went into the database. */
  written(batch: readonly T[]): void;
  /** A write was refused; `outageBegins` for the first of a run of them, so that it is logged once per outage, not once per try. */
  writeFailed(error: unknown, queued: number, outageBegins: boolean): void;
  /** A write went through after `failedWrites` refused ones. */
  writingAgain(failedWrites: number): void;
  /** At stop, the items the grace period left unwritten: they are gone from the queue. */
  lost(count: number): void;
}

export interface BatchedWriterOptions<T> {
  /** One write of a batch (a multi-row insert); a throw leaves the batch queued, to be tried again. */
  insert(batch: readonly T[]): Promise<void>;
  /** What an item counts for against `maxQueueBytes`, taken once when it is queued. */
  sizeOf(item: T): number;
  /** Items per write. */
  batchSize: number;
  /** How long an item waits for others to go with it in one write. */
  flushAfterMs: number;
  /** The bytes the items waiting to be written may take together. */
  maxQueueBytes: number;
  whenFull: WhenFull;
  hooks: BatchedWriterHooks<T>;
}

/** Waits between refused writes: from the first to the last, doubling. */
const FIRST_RETRY_MS = 200;
const LAST_RETRY_MS = 5000;

interface Queued<T> {
  item: T;
  bytes: number;
  /** When it was queued (performance.now()): it waits at most `flushAfterMs` from then for others to go with it. */
  queuedAt: number;
}

const QUEUED = Promise.resolve();

/**
 * A queue in this process, bounded in bytes, whose items are written in batches, one write at a
 * time, so that the one who hands an item over goes on without a round trip (the access log's
 * writer, contract E.4, and the message store's, G.5). A batch goes when its first item has waited
 * `flushAfterMs`, or at once when it is full. Items that come while a write is under way wait for
 * their own batch in the same way, not for the end of that write: were they written right after
 * it, a service answering more often than a write takes would write without pause, a few items at
 * a time, all of it beside the answers it records (bench identity). While the database refuses,
 * items wait in memory and the write is tried again with back-off. At stop, what is queued is
 * written within a grace period; the rest is lost, and counted by the user.
 */
export class BatchedWriter<T> {
  private readonly queue: Array<Queued<T>> = [];
  private bytesQueued = 0;
  private readonly waitingForRoom: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private retryMs = 0;
  private failedWrites = 0;
  private stopped = false;

  constructor(private readonly options: BatchedWriterOptions<T>) {}

  /** Items waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  /** The bytes the items waiting to be written take together. */
  get queuedBytes(): number {
    return this.bytesQueued;
  }

  /**
   * Takes an item to be written. A writer that drops decides at once (its promise is already
   * settled); one that waits resolves once there is room, and after stop writes what comes at once.
   */
  add(item: T): Promise<void> {
    const bytes = this.options.sizeOf(item);
    const { whenFull } = this.options;
    if (whenFull === "wait") return this.queueWhenRoom(item, bytes);
    if (this.stopped || this.bytesQueued + bytes > this.options.maxQueueBytes)
      whenFull.drop(this.stopped ? "shutdown" : "queue_full");
    else this.queueNow(item, bytes);
    return QUEUED;
  }

  /** Writes what is queued, trying again until `graceMs` has passed; what is left then is lost. */
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
    this.options.hooks.lost(this.queue.length);
    this.queue.length = 0;
    this.bytesQueued = 0;
    this.roomMade();
  }

  private async queueWhenRoom(item: T, bytes: number): Promise<void> {
    // An item larger than the whole queue goes alone once the queue is empty: waiting for more room than that would wait forever.
    while (!this.stopped && this.queue.length > 0 && this.bytesQueued + bytes > this.options.maxQueueBytes)
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    this.queueNow(item, bytes);
  }

  private queueNow(item: T, bytes: number): void {
    this.queue.push({ item, bytes, queuedAt: performance.now() });
    this.bytesQueued += bytes;
    if (this.stopped) return this.writeNow();
    if (this.writing || this.retryMs > 0) return; // the write under way (which times the batch after it), or the next try, takes it
    if (this.queue.length >= this.options.batchSize) this.writeNow();
    else this.timer ??= setTimeout(() => this.writeNow(), this.options.flushAfterMs);
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
    const { batchSize, flushAfterMs, hooks } = this.options;
    for (let first = true; this.queue.length > 0; first = false) {
      const dueIn = this.queue[0]!.queuedAt + flushAfterMs - performance.now();
      if (!first && !this.stopped && this.queue.length < batchSize && dueIn > 0) {
        this.timer = setTimeout(() => this.writeNow(), dueIn);
        return;
      }
      const batch = this.queue.slice(0, batchSize);
      const items = batch.map(({ item }) => item);
      try {
        await this.options.insert(items);
      } catch (error) {
        this.failed(error);
        return;
      }
      this.queue.splice(0, batch.length);
      this.bytesQueued -= batch.reduce((sum, { bytes }) => sum + bytes, 0);
      this.roomMade();
      hooks.written(items);
      if (this.failedWrites > 0) hooks.writingAgain(this.failedWrites);
      this.failedWrites = 0;
      this.retryMs = 0;
    }
  }

  private roomMade(): void {
    for (const resolve of this.waitingForRoom.splice(0)) resolve();
  }

  private failed(error: unknown): void {
    this.options.hooks.writeFailed(error, this.queue.length, this.failedWrites === 0);
    this.failedWrites += 1;
    this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs === 0 ? FIRST_RETRY_MS : this.retryMs * 2);
    if (!this.stopped) this.timer = setTimeout(() => this.writeNow(), this.retryMs);
  }
}

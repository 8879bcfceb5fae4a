import type { Logger } from "pino";
import { withTransaction, type Db } from "../../db/pool.ts";
import { applyNextBatch, type BatchOutcome } from "./applyBatch.ts";
import { lockGeneration } from "./generations.ts";
import type { Projection, TransactionalJobs } from "./projection.ts";
import { isTransient } from "../../db/transientErrors.ts";

export interface RunnerOptions {
  /** Told after a batch of a projection that `emits` events has committed. */
  onEmitted?: (eventTypes: ReadonlySet<string>) => void;
  batchSize?: number;
  /**
   * How soon to look again when events wait behind a transaction that has not finished; each look
   * that finds them still held doubles the pause, up to WAITING_RETRY_MAX_MS.
   */
  waitingRetryMs?: number;
  jobs?: TransactionalJobs;
  /** How long one batch's transaction may take before the next batches shrink to fit (default BATCH_TARGET_MS). */
  batchTargetMs?: number;
}

/**
 * Keeps one projection's live generation up to date in this process. Wake-ups coalesce: a wake
 * during a run makes the run go round once more instead of starting a second one.
 */
/** After a database fault, the first pause before trying again, and the longest. */
const TRANSIENT_RETRY_FIRST_MS = 500;
const TRANSIENT_RETRY_MAX_MS = 30_000;
/*
 * The longest pause between looks while events wait behind an open transaction. A held reader
 * that looked every 20 ms turned 27 transactions a second into 261 (issue #32); the writer that
 * holds them wakes the readers itself when it commits, so a slower look costs no latency then.
 */
const WAITING_RETRY_MAX_MS = 1000;
/*
 * How long a batch's transaction should take, at most. A projection that emits events (a reactor)
 * holds back every reader's horizon while its transaction runs: after a bulk import of 20,000
 * reports the delta checks' batches of 1,000 took 5-13 s each and every tenant's pushes became
 * visible that much later for two minutes (issue #52). So a batch that took longer makes the next
 * ones smaller in proportion, down to BATCH_MIN, and batches grow back (doubling, up to the
 * projection's batch size) while they take under a quarter of it.
 */
const BATCH_TARGET_MS = 250;
const BATCH_MIN = 5;

export class ProjectionRunner {
  private running: Promise<void> | null = null;
  private faultsInARow = 0;
  private waitsInARow = 0;
  private lastOutcome: Awaited<ReturnType<ProjectionRunner["drain"]>> | null = null;
  private again = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly batchSize: number;
  /** The events of the next batch: batchSize, or fewer while batches take longer than the target. */
  private batchLimit: number;
  private readonly batchTargetMs: number;
  private readonly waitingRetryMs: number;

  constructor(
    private readonly db: Db,
    readonly projection: Projection,
    private readonly log: Logger,
    private readonly options: RunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? projection.batchSize ?? 1000;
    this.batchLimit = this.batchSize;
    // Only a projection that emits events holds back the readers while it applies: one that emits
    // none declares so (applyBatch.ts) and keeps its batches whole, which a bulk import's
    // catch-up needs.
    this.batchTargetMs = projection.emits?.length
      ? (options.batchTargetMs ?? BATCH_TARGET_MS)
      : Number.POSITIVE_INFINITY;
    this.waitingRetryMs = options.waitingRetryMs ?? 20;
  }

  /** Resolves when the run that this wake-up caused (or joined) has finished. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * A wake-up for events of its own types just appended. While events wait behind open
   * transactions, each look that finds them held doubles the pause before the next, up to a
   * second; new events of its own start the pauses short again (a pending long one is dropped),
   * so a reader held back by other writers for a while does not leave its own new events a second
   * behind them (a re-mapping's plan waited so behind a sender's back-to-back pushes).
   */
  wakeForNewEvents(): Promise<void> {
    if (this.lastOutcome === "waiting") {
      this.waitsInARow = 0;
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    return this.wake();
  }

  /**
   * Applies everything readable now, waiting out transactions that are still open (which can hold
   * events back): for callers that need the read model complete before they go on.
   */
  async settle(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.wake();
      if (this.lastOutcome !== "waiting" && this.lastOutcome !== "locked" && this.lastOutcome !== "transient") return;
      if (Date.now() > deadline)
        throw new Error(`projection ${this.projection.name} did not settle within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.running;
  }

  private async loop(): Promise<void> {
    let lockedOut = 0;
    do {
      this.again = false;
      const outcome = await this.drain();
      this.lastOutcome = outcome;
      this.waitsInARow = outcome === "waiting" ? this.waitsInARow + 1 : 0;
      if (outcome === "waiting")
        this.retryIn(Math.min(WAITING_RETRY_MAX_MS, this.waitingRetryMs * 2 ** Math.min(this.waitsInARow - 1, 16)));
      if (outcome === "locked") {
        // Another process is applying; it may be just finishing and miss what woke us: look once more.
        if (lockedOut++ === 0) this.retryIn(100);
      }
      // Each fault in a row doubles the pause, up to half a minute: a full disk is not hammered.
      this.faultsInARow = outcome === "transient" ? this.faultsInARow + 1 : 0;
      if (outcome === "transient")
        this.retryIn(Math.min(TRANSIENT_RETRY_MAX_MS, TRANSIENT_RETRY_FIRST_MS * 2 ** (this.faultsInARow - 1)));
      if (outcome === "transient" || outcome === "locked") break;
    } while (this.again && !this.stopped);
  }

  /** The next batch's size after one that took `ms` (BATCH_TARGET_MS). */
  private fitBatch(outcome: BatchOutcome, ms: number): void {
    if (outcome.kind === "idle" || outcome.kind === "waiting" || outcome.kind === "released") return;
    if (ms > this.batchTargetMs)
      this.batchLimit = Math.max(BATCH_MIN, Math.floor((this.batchLimit * this.batchTargetMs) / ms));
    else if (outcome.full && ms < this.batchTargetMs / 4)
      this.batchLimit = Math.min(this.batchSize, this.batchLimit * 2);
  }

  private retryIn(ms: number): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.wake();
    }, ms);
    this.retryTimer.unref();
  }

  private async drain(): Promise<"idle" | "waiting" | "locked" | "stopped" | "transient"> {
    for (;;) {
      if (this.stopped) return "stopped";
      let outcome: BatchOutcome | "locked" | "stopped";
      const started = performance.now();
      try {
        outcome = await withTransaction(this.db, async (tx) => {
          const gen = await lockGeneration(tx, this.projection.name, { state: "live" }, true);
          if (!gen) return "locked";
          // A stopped projection waits for `projections retry`; an outdated one for its rebuild.
          if (gen.error || gen.version !== this.projection.version) return "stopped";
          return applyNextBatch(tx, this.projection, gen, this.batchLimit, false, this.options.jobs);
        });
      } catch (error) {
        // Not an event's fault (that is "quarantined" above): the database or the runtime.
        const level = isTransient(error) ? "warn" : "error";
        this.log[level]({ err: error, projection: this.projection.name }, "projection paused by a fault; retrying");
        return "transient";
      }
      if (outcome === "locked" || outcome === "stopped") return outcome;
      this.fitBatch(outcome, performance.now() - started);
      if (outcome.kind === "quarantined") {
        // Not the message: it may quote a value of the event (the database keeps it for an administrator).
        for (const held of outcome.held) {
          this.log.error(
            {
              projection: this.projection.name,
              tenant: held.tenant,
              position: held.position,
              code: held.code ?? "PROJECTION_ERROR",
            },
            "a tenant's event could not be applied: that tenant is held back in this projection, the others go on",
          );
        }
      }
      if (outcome.kind === "released") {
        this.log.info(
          { projection: this.projection.name, tenant: outcome.tenant, events: outcome.events },
          "a held-back tenant caught up; it is held back no more",
        );
      }
      if (outcome.kind === "idle" || outcome.kind === "waiting") return outcome.kind;
      if (this.projection.emits?.length) this.options.onEmitted?.(new Set(this.projection.emits));
      if (!outcome.full) return outcome.heldBack ? "waiting" : "idle";
    }
  }
}

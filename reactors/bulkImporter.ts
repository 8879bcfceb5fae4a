import { hostname } from "node:os";
import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import { ConcurrencyConflict, readStream, type EventMetadata } from "../db/eventStore.ts";
import { isTransient } from "../db/transientErrors.ts";
import { unfinishedBulkJobs, type UnfinishedJob } from "../queries/bulk/bulkJobs.ts";
import { clientById } from "../queries/credentials/credentials.ts";
import { pushingClient, type IngestionDeps, type PushingClient } from "../commands/ingestion/pushReports.ts";
import { reportKinds } from "../commands/ingestion/reportKinds.ts";
import { bulkJobStreams, type BulkJobEvent } from "../commands/bulk/events.ts";
import { applyBulkJobEvent, evolveBulkJob, initialBulkJobState } from "../commands/bulk/bulkJobState.ts";
import {
  checkBulkPiece,
  MissingPiece,
  storeBulkPiece,
  type CheckedPiece,
  type PieceOfJob,
  type PieceOutcome,
} from "../commands/bulk/importBulkPiece.ts";

/** The pg-boss queue that wakes the importers of every worker process when a job is submitted. */
export const BULK_WAKEUP_QUEUE = "bulk.import";

/** A piece that fails this often for a fault of ours (not the database's) fails its job. */
const ATTEMPTS_PER_PIECE = 3;

export interface BulkImporterOptions {
  /** How often unfinished jobs are looked for whatever the wake-ups: how soon a dead worker's job is taken over. */
  safetyNetMs: number;
  pollingIntervalSeconds: number;
}

/**
 * Runs bulk jobs on a worker process (contract D.4). Any worker may run any job; a client's jobs
 * run one at a time in submission order, which an advisory lock per client held on a connection
 * of its own ensures across processes: a worker killed mid-job loses its connection and so its
 * lock, and the next look for unfinished jobs (here or in another process) resumes the job at
 * the first piece without a checkpoint. The truth about a job is its stream; the bulk_jobs read
 * model only says which jobs to look at.
 */
export class BulkImporter {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly failures = new Map<string, number>();
  private readonly worker = `${hostname()}:${process.pid}`;

  constructor(
    private readonly deps: IngestionDeps,
    /** Wake-ups from other processes; none for a process that runs jobs only while it waits for its own (the command line). */
    private readonly boss: PgBoss | null,
    private readonly log: Logger,
    private readonly options: BulkImporterOptions,
  ) {}

  async start(): Promise<void> {
    await this.boss?.work(
      BULK_WAKEUP_QUEUE,
      { pollingIntervalSeconds: this.options.pollingIntervalSeconds },
      async () => {
        void this.wake();
      },
    );
    this.timer = setInterval(() => void this.wake(), this.options.safetyNetMs);
    this.timer.unref();
    void this.wake();
  }

  /** Looks for work now; a wake during a run makes the run look once more. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => (this.running = null));
    return this.running;
  }

  /** Lets the piece under way commit (or not), then stops: the job is resumed later, here or elsewhere. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.runUnfinishedJobs();
      } catch (err) {
        this.log[isTransient(err) ? "warn" : "error"]({ err }, "bulk import paused by a fault; trying again soon");
        return;
      }
    } while (this.again && !this.stopped);
  }

  private async runUnfinishedJobs(): Promise<void> {
    const clients = new Map<string, UnfinishedJob>();
    for (const job of await unfinishedBulkJobs(this.deps.store.db))
      if (!clients.has(clientKey(job))) clients.set(clientKey(job), job);
    for (const job of clients.values()) {
      if (this.stopped) return;
      await this.runJobsOfClient(job.tenant, job.clientId);
    }
  }

  private async runJobsOfClient(tenant: string, clientId: string): Promise<void> {
    const lockHolder = await this.deps.store.db.connect();
    let broken = false;
    try {
      const { rows } = await lockHolder.query(
        "select pg_try_advisory_lock(hashtext('bulk-import'), hashtext($1)) as locked",
        [`${tenant}:${clientId}`],
      );
      if (!rows[0].locked) return; // another worker runs this client's jobs
      try {
        const done = new Set<string>();
        for (;;) {
          const next = (await unfinishedBulkJobs(this.deps.store.db, { tenant, clientId })).find(
            (job) => !done.has(job.jobId),
          );
          if (!next || this.stopped) return;
          // The read model may not show yet that a job just ended: its stream says so.
          if ((await this.runJob(tenant, next.jobId)) !== "stopped") done.add(next.jobId);
          else return;
        }
      } finally {
        await lockHolder.query("select pg_advisory_unlock(hashtext('bulk-import'), hashtext($1))", [
          `${tenant}:${clientId}`,
        ]);
      }
    } catch (error) {
      broken = isTransient(error);
      throw error;
    } finally {
      lockHolder.release(broken);
    }
  }

  private async runJob(tenant: string, jobId: string): Promise<"ended" | "stopped"> {
    const streamId = bulkJobStreams.id(jobId);
    const stream = await readStream<BulkJobEvent>(this.deps.store.db, tenant, streamId);
    let state = stream.events.reduce(evolveBulkJob, initialBulkJobState());
    const job = state.submitted;
    if (!job || state.status === "DONE" || state.status === "FAILED") return "ended";
    const submittedBy = stream.events[0]!.metadata;
    const client = await this.clientOfJob(job.clientId);
    const append = async (event: BulkJobEvent) => {
      // Through the store, which wakes the read models (bulk_jobs) once it is written: a job's start
      // and end were seen only at the next safety-net look, 5 s later, or never by a CLI import.
      const appended = await this.deps.store.append({
        tenant,
        streamId,
        expectedVersion: state.version,
        events: [event],
        metadata: this.metadata(submittedBy),
      });
      state = applyBulkJobEvent(state, event, appended.nextVersion);
    };
    try {
      if (!client) {
        await append({
          type: "BulkJobFailed",
          data: {
            reason: "The client that submitted the job no longer exists.",
            code: "client-gone",
            counts: state.counts,
          },
        });
        return "ended";
      }
      if (state.status === "QUEUED") {
        await append({ type: "BulkJobStarted", data: { worker: this.worker } });
        this.log.info({ jobId, tenant, client: client.name, lines: job.lines }, "bulk job started");
      }
      const pieceOfJob = (piece: number): PieceOfJob => ({
        tenant,
        jobId,
        kind: reportKinds[job.kind],
        piece,
        expectedVersion: state.version,
        metadata: this.pieceMetadata(submittedBy, client, jobId),
      });
      // The next piece is checked (this process's CPU) while the database stores this one.
      const check = (piece: number) => {
        const checking = checkBulkPiece(this.deps, client, pieceOfJob(piece));
        checking.catch(() => {}); // awaited, and so reported, when its turn comes
        return checking;
      };
      let next = check(state.piecesDone);
      for (let piece = state.piecesDone; piece < job.pieces; piece++) {
        if (this.stopped) return "stopped";
        const checking = next;
        if (piece + 1 < job.pieces) next = check(piece + 1);
        const outcome = await this.importPiece(client, pieceOfJob(piece), checking);
        if (outcome === "failed") {
          const reason =
            `The job stopped at piece ${piece + 1} of ${job.pieces}: the service could not import it. Ask the ` +
            `service's operators about job ${jobId}; the lines before that piece are stored.`;
          await append({
            type: "BulkJobFailed",
            data: { reason, code: "piece-failed", piece: piece + 1, counts: state.counts },
          });
          this.log.error({ jobId, tenant, piece }, "bulk job failed");
          return "ended";
        }
        // Another worker checkpointed this piece: it runs the job now.
        if (outcome === "taken") return "ended";
        state = applyBulkJobEvent(state, outcome.checkpoint, outcome.version);
      }
      await append({ type: "BulkJobFinished", data: { counts: state.counts } });
      this.log.info({ jobId, tenant, client: client.name, ...state.counts }, "bulk job finished");
      return "ended";
    } catch (error) {
      // Another worker moved the job on between our reading and our append: it has the job.
      if (error instanceof ConcurrencyConflict) return "ended";
      throw error;
    }
  }

  /** One piece; a fault of ours is tried again a few times before it fails the job, a database fault pauses the job. */
  private async importPiece(
    client: PushingClient,
    piece: PieceOfJob,
    checking: Promise<CheckedPiece>,
  ): Promise<PieceOutcome | "failed"> {
    const key = `${piece.jobId}:${piece.piece}`;
    try {
      const outcome = await storeBulkPiece(this.deps, client, piece, await checking);
      this.failures.delete(key);
      return outcome;
    } catch (error) {
      if (isTransient(error)) throw error;
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      this.log.error({ err: error, jobId: piece.jobId, piece: piece.piece, failures }, "bulk piece failed");
      if (error instanceof MissingPiece || failures >= ATTEMPTS_PER_PIECE) {
        this.failures.delete(key);
        return "failed";
      }
      throw error;
    }
  }

  private async clientOfJob(clientId: string): Promise<PushingClient | null> {
    const client = await clientById(this.deps.store.db, clientId);
    // A job accepted before its client's key was revoked is still imported: it was received.
    return client ? pushingClient(client) : null;
  }

  private metadata(submittedBy: EventMetadata): EventMetadata {
    return {
      actor: "bulk import",
      worker: this.worker,
      ...(submittedBy.requestId ? { requestId: submittedBy.requestId } : {}),
    };
  }

  /** A bulk line's events name the client and the upload's request, as a push's do, and the job. */
  private pieceMetadata(submittedBy: EventMetadata, client: PushingClient, jobId: string): EventMetadata {
    return {
      actor: client.name,
      client: client.clientId,
      ...(submittedBy.requestId ? { requestId: submittedBy.requestId } : {}),
      bulkJob: jobId,
    };
  }
}

function clientKey(job: UnfinishedJob): string {
  return `${job.tenant}:${job.clientId}`;
}

import type { Logger } from "pino";
import type { AccessRecord } from "../../commands/access/events.ts";
import { appendAccessRecords, type AccessRecordToWrite } from "../../commands/access/recordAccess.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { authorsByTokenDigest, type RecordedAuthor } from "../../queries/access/accessCallers.ts";
import { BatchedWriter } from "../batchedWriter.ts";
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

/**
 * The access log's writer in this process (contract E.4), a BatchedWriter: answers hand it their
 * records and go on; it writes them to the event store in batches, one multi-row append each,
 * each write waking the access_log projection. While the database refuses, records wait in memory
 * (up to `maxQueueBytes`) and the write is tried again with back-off; what cannot be kept is
 * counted and logged, never waited for: recording never withholds care. Flushed when the service
 * stops.
 */
export class AccessRecorder {
  private readonly writer: BatchedWriter<AnsweredAccess>;
  private droppedSinceWarned = 0;

  constructor(
    private readonly store: EventStore,
    private readonly log: Logger,
    private readonly metrics: AccessRecorderMetrics,
    private readonly options: AccessRecorderOptions,
  ) {
    this.writer = new BatchedWriter({
      insert: async (batch) => appendAccessRecords(this.store, await this.completed(batch)),
      sizeOf: (answered) => JSON.stringify(answered).length,
      batchSize: BATCH_RECORDS,
      flushAfterMs: options.flushAfterMs,
      maxQueueBytes: options.maxQueueBytes,
      whenFull: { drop: (because) => this.drop(because, 1) },
      hooks: {
        written: (batch) => metrics.accessRecordsWritten(batch.length),
        writeFailed(error, queued, outageBegins) {
          metrics.accessWriteFailed();
          if (outageBegins)
            log.warn(
              { err: error, queued },
              "access records could not be written; they wait in memory and the write is tried again",
            );
        },
        writingAgain: (failedWrites) => log.info({ failedWrites }, "access records are written again"),
        lost: (count) => {
          log.error(
            { records: count },
            "access records not written before the service stopped (the database refused them): they are lost",
          );
          this.drop("shutdown", count);
        },
      },
    });
  }

  /** Records waiting to be written. */
  get queued(): number {
    return this.writer.queued;
  }

  record(answered: AnsweredAccess): void {
    void this.writer.add(answered);
  }

  /** Writes what is queued, trying again until `graceMs` has passed; what is left then is counted as dropped. */
  stop(graceMs: number): Promise<void> {
    return this.writer.stop(graceMs);
  }

  private drop(reason: AccessDropReason, count: number): void {
    if (count === 0) return;
    this.metrics.accessRecordsDropped(reason, count);
    if (reason !== "queue_full") return;
    // Warned at the first drop and then at every thousandth, not for each record of a flood.
    if (this.droppedSinceWarned % 1000 === 0)
      this.log.error(
        { queuedBytes: this.writer.queuedBytes, maxQueueBytes: this.options.maxQueueBytes },
        "access records dropped: the queue of records waiting for the database is full",
      );
    this.droppedSinceWarned += count;
  }

  /** The batch's records with who called completed: the authors behind the tokens looked up, once per batch. */
  private async completed(batch: readonly AnsweredAccess[]): Promise<AccessRecordToWrite[]> {
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

import {
  BULK_JOB_EVENT_TYPES,
  bulkJobStreams,
  type BulkFailureCode,
  type BulkJobEvent,
} from "../../commands/bulk/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";

/** Bulk jobs (contract D.4) as senders and workers see them: status and counts, and each rejected line. */
export const bulkJobsProjection: Projection<BulkJobEvent> = {
  name: "bulk_jobs",
  // 2: a failed job's reason_code (issue #54).
  version: 2,
  handles: BULK_JOB_EVENT_TYPES,
  tables: ["bulk_jobs", "bulk_job_rejections"],
  ddl: "projections/bulk/bulkJobs.sql",
  async apply(tx: Tx, event: StoredEvent<BulkJobEvent>) {
    const jobId = bulkJobStreams.key(event.streamId);
    switch (event.type) {
      case "BulkJobSubmitted": {
        const job = event.data;
        await tx.query(
          `insert into bulk_jobs (tenant, job_id, kind, client_id, status, lines, pieces, submitted_position, created_at)
           values ($1, $2, $3, $4, 'QUEUED', $5, $6, $7, $8)`,
          [event.tenant, jobId, job.kind, job.clientId, job.lines, job.pieces, event.position, event.recordedAt],
        );
        break;
      }
      case "BulkJobStarted":
        await tx.query("update bulk_jobs set status = 'RUNNING', started_at = $2 where job_id = $1", [
          jobId,
          event.recordedAt,
        ]);
        break;
      case "BulkPieceImported": {
        const { piece, counts, rejections } = event.data;
        await tx.query(
          `update bulk_jobs set pieces_done = $2 + 1, processed = processed + $3, accepted = accepted + $4, rejected = rejected + $5,
             created = created + $6, updated = updated + $7, unchanged = unchanged + $8, unmatched = unmatched + $9
           where job_id = $1`,
          [
            jobId,
            piece,
            counts.processed,
            counts.accepted,
            counts.rejected,
            counts.created,
            counts.updated,
            counts.unchanged,
            counts.unmatched,
          ],
        );
        if (rejections.length > 0) {
          await tx.query(
            `insert into bulk_job_rejections (tenant, job_id, line, external_id, errors)
             select $1, $2, r.line, r."externalId", r.errors from jsonb_to_recordset($3::jsonb) as r(line integer, "externalId" text, errors jsonb)`,
            [event.tenant, jobId, JSON.stringify(rejections)],
          );
        }
        break;
      }
      case "BulkJobFinished":
        await tx.query("update bulk_jobs set status = 'DONE', finished_at = $2 where job_id = $1", [
          jobId,
          event.recordedAt,
        ]);
        break;
      case "BulkJobFailed":
        await tx.query(
          "update bulk_jobs set status = 'FAILED', finished_at = $2, reason = $3, reason_code = $4 where job_id = $1",
          [jobId, event.recordedAt, event.data.reason, event.data.code ?? codeOfSentence(event.data.reason)],
        );
        break;
    }
  },
};

/**
 * A job failed before its event carried a code: the importer's two sentences of that time, which
 * never change now that they are stored, say which it was.
 */
function codeOfSentence(reason: string): BulkFailureCode | null {
  if (reason.startsWith("The client that submitted the job no longer exists")) return "client-gone";
  if (reason.startsWith("The job stopped at piece ")) return "piece-failed";
  return null;
}

import { randomUUID } from "node:crypto";
import type { AppendResult, EventMetadata, EventStore } from "../../db/eventStore.ts";
import type { ReportKind } from "../ingestion/reportKinds.ts";
import { bulkJobStreams, type BulkJobEvent } from "./events.ts";
import { ndjsonPieces, type NdjsonLimits, type PieceSize } from "./ndjsonPieces.ts";

/** Contract D.4: at most 1,000,000 lines and 512 MB uncompressed per job; a line is one report, at most what a push may carry. */
export const BULK_LIMITS: NdjsonLimits = {
  maxLines: 1_000_000,
  maxBytes: 512 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
};

/**
 * A piece is what a worker imports in one transaction with its checkpoint: small enough that the
 * transaction is short (it holds back the projections' reading horizon while it runs), large
 * enough that a job of a million lines is a few thousand of them.
 */
export const PIECE_SIZE: PieceSize = { reports: 250, bytes: 2 * 1024 * 1024 };

export interface SubmittingClient {
  clientId: string;
  name: string;
  tenant: string;
}

export interface SubmittedJob {
  jobId: string;
  lines: number;
  /** Where the job's event stands, to wait for the read model. */
  last: AppendResult["last"];
}

/**
 * Stores the body durably, piece by piece as it streams in, then records the job: once this
 * returns, the job survives any crash and a worker will import it. A body refused on the way
 * (not NDJSON, over a limit, cut off) leaves no job and its pieces are removed.
 */
export async function submitBulkJob(
  store: EventStore,
  kind: ReportKind,
  client: SubmittingClient,
  body: AsyncIterable<Buffer>,
  options: { requestId: string; gzip: boolean; limits?: NdjsonLimits; pieceSize?: PieceSize },
): Promise<SubmittedJob> {
  const jobId = randomUUID();
  let pieces = 0;
  // Once the job's event is sent it may have been stored even if the answer never came back:
  // its pieces are then left in place, never removed from under a job.
  let recording = false;
  try {
    const cut = ndjsonPieces(body, options.limits ?? BULK_LIMITS, options.pieceSize ?? PIECE_SIZE);
    for (;;) {
      const next = await cut.next();
      if (next.done) {
        const submitted: BulkJobEvent = {
          type: "BulkJobSubmitted",
          data: {
            jobId,
            kind: kind.name,
            clientId: client.clientId,
            clientName: client.name,
            lines: next.value.lines,
            pieces,
            bytes: next.value.bytes,
            gzip: options.gzip,
          },
        };
        const metadata: EventMetadata = { actor: client.name, client: client.clientId, requestId: options.requestId };
        recording = true;
        const appended = await store.append({
          tenant: client.tenant,
          streamId: bulkJobStreams.id(jobId),
          expectedVersion: 0,
          events: [submitted],
          metadata,
        });
        return { jobId, lines: next.value.lines, last: appended.last };
      }
      const piece = next.value;
      await store.db.query(
        "insert into bulk_job_bodies (tenant, job_id, piece, first_line, reports, body) values ($1, $2, $3, $4, $5, $6)",
        [client.tenant, jobId, pieces++, piece.firstLine, piece.reports, piece.body],
      );
    }
  } catch (error) {
    if (pieces > 0 && !recording)
      await store.db.query("delete from bulk_job_bodies where job_id = $1", [jobId]).catch(() => {});
    throw error;
  }
}

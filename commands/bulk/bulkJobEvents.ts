import { z } from "zod";
import type { StoredEvent } from "../../db/eventStore.ts";
import { fieldErrorSchema } from "../ingestion/reportSchemas.ts";

/*
 * A bulk job (contract D.4) is a stream of its own: submitted once its body is stored, started
 * by the worker that takes it, one event per piece of lines imported (the piece's outcome, which
 * commits with the reports' events: the checkpoint), and finished or failed. Every count and
 * rejected line a sender reads is folded from these events.
 */

export const BULK_JOB_STREAM_PREFIX = "bulk-job:";

export function bulkJobStream(jobId: string): string {
  return `${BULK_JOB_STREAM_PREFIX}${jobId}`;
}

export const BULK_STATUSES = ["QUEUED", "RUNNING", "DONE", "FAILED"] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

/** A line that was not stored: its 1-based line number in the uncompressed body, as an editor shows it. */
export const bulkRejectionSchema = z.object({
  line: z.int().meta({ description: "1-based line number in the uncompressed body (blank lines counted)" }),
  externalId: z.string().nullable().meta({ description: "As sent, or null" }),
  errors: z.array(fieldErrorSchema).meta({ description: "As for a push; a line that is not JSON has one error with field \"\"" }),
});
export type BulkRejection = z.infer<typeof bulkRejectionSchema>;

export interface BulkCounts {
  processed: number;
  accepted: number;
  rejected: number;
  created: number;
  updated: number;
  unchanged: number;
  unmatched: number;
}

export const NO_COUNTS: BulkCounts = { processed: 0, accepted: 0, rejected: 0, created: 0, updated: 0, unchanged: 0, unmatched: 0 };

export type BulkJobEvent =
  | {
      type: "BulkJobSubmitted";
      data: { jobId: string; kind: "lab" | "exam"; clientId: string; clientName: string; lines: number; pieces: number; bytes: number; gzip: boolean };
    }
  | { type: "BulkJobStarted"; data: { worker: string } }
  | { type: "BulkPieceImported"; data: { piece: number; counts: BulkCounts; rejections: BulkRejection[] } }
  | { type: "BulkJobFinished"; data: { counts: BulkCounts } }
  | { type: "BulkJobFailed"; data: { reason: string; counts: BulkCounts } };

export const BULK_JOB_EVENT_TYPES = ["BulkJobSubmitted", "BulkJobStarted", "BulkPieceImported", "BulkJobFinished", "BulkJobFailed"] as const satisfies ReadonlyArray<BulkJobEvent["type"]>;

export interface BulkJobState {
  submitted: Extract<BulkJobEvent, { type: "BulkJobSubmitted" }>["data"] | null;
  status: BulkStatus;
  /** Pieces imported so far: the next one to import is this number. */
  piecesDone: number;
  counts: BulkCounts;
  /** The stream's version: what the next event's append expects. */
  version: number;
}

export function initialBulkJobState(): BulkJobState {
  return { submitted: null, status: "QUEUED", piecesDone: 0, counts: { ...NO_COUNTS }, version: 0 };
}

export function addCounts(a: BulkCounts, b: BulkCounts): BulkCounts {
  return {
    processed: a.processed + b.processed,
    accepted: a.accepted + b.accepted,
    rejected: a.rejected + b.rejected,
    created: a.created + b.created,
    updated: a.updated + b.updated,
    unchanged: a.unchanged + b.unchanged,
    unmatched: a.unmatched + b.unmatched,
  };
}

export function evolveBulkJob(state: BulkJobState, stored: StoredEvent): BulkJobState {
  return applyBulkJobEvent(state, { type: stored.type, data: stored.data } as BulkJobEvent, stored.streamVersion);
}

/** The state after `event`, stored as the stream's version `version`. */
export function applyBulkJobEvent(state: BulkJobState, event: BulkJobEvent, version: number): BulkJobState {
  switch (event.type) {
    case "BulkJobSubmitted":
      return { ...state, submitted: event.data, version };
    case "BulkJobStarted":
      return { ...state, status: "RUNNING", version };
    case "BulkPieceImported":
      return { ...state, piecesDone: event.data.piece + 1, counts: addCounts(state.counts, event.data.counts), version };
    case "BulkJobFinished":
      return { ...state, status: "DONE", version };
    case "BulkJobFailed":
      return { ...state, status: "FAILED", version };
  }
}

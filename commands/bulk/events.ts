import { z } from "zod";
import { streamCodec, type Event } from "../kit/events.ts";
import { fieldErrorSchema } from "../ingestion/reportSchemas.ts";

/*
 * A bulk job (contract D.4) is a stream of its own: submitted once its body is stored, started
 * by the worker that takes it, one event per piece of lines imported (the piece's outcome, which
 * commits with the reports' events: the checkpoint), and finished or failed. Every count and
 * rejected line a sender reads is folded from these events.
 */

export const bulkJobStreams = streamCodec("bulk-job:");

/** Where a job's events put it: submitted, started, finished or failed. */
export const BULK_STATUSES = ["QUEUED", "RUNNING", "DONE", "FAILED"] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

/** A line that was not stored: its 1-based line number in the uncompressed body, as an editor shows it. */
export const bulkRejectionSchema = z.object({
  line: z.int().meta({ description: "1-based line number in the uncompressed body (blank lines counted)" }),
  externalId: z.string().nullable().meta({ description: "As sent, or null" }),
  errors: z
    .array(fieldErrorSchema)
    .meta({ description: 'As for a push; a line that is not JSON has one error with field ""' }),
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

export const NO_COUNTS: BulkCounts = {
  processed: 0,
  accepted: 0,
  rejected: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  unmatched: 0,
};

export type BulkJobSubmitted = Event<
  "BulkJobSubmitted",
  {
    jobId: string;
    kind: "lab" | "exam";
    clientId: string;
    clientName: string;
    lines: number;
    pieces: number;
    bytes: number;
    gzip: boolean;
  }
>;
export type BulkJobStarted = Event<"BulkJobStarted", { worker: string }>;
/** A piece's outcome, committed with its reports' events: the job's checkpoint. */
export type BulkPieceImported = Event<
  "BulkPieceImported",
  { piece: number; counts: BulkCounts; rejections: BulkRejection[] }
>;
export type BulkJobFinished = Event<"BulkJobFinished", { counts: BulkCounts }>;
/**
 * Why a job stopped, as a stable code beside the service's sentence (issue #54), which pages word
 * in their language: its client no longer exists, or a piece could not be imported. Codes are
 * only ever added; a job failed before they existed has none in its event.
 */
export const BULK_FAILURE_CODES = ["client-gone", "piece-failed"] as const;
export type BulkFailureCode = (typeof BULK_FAILURE_CODES)[number];

/** `piece`: the 1-based piece the job stopped at (piece-failed). */
export type BulkJobFailed = Event<
  "BulkJobFailed",
  { reason: string; code?: BulkFailureCode; piece?: number; counts: BulkCounts }
>;
/** The events of a `bulk-job:` stream. */
export type BulkJobEvent = BulkJobSubmitted | BulkJobStarted | BulkPieceImported | BulkJobFinished | BulkJobFailed;

export const BULK_JOB_EVENT_TYPES = [
  "BulkJobSubmitted",
  "BulkJobStarted",
  "BulkPieceImported",
  "BulkJobFinished",
  "BulkJobFailed",
] as const satisfies ReadonlyArray<BulkJobEvent["type"]>;

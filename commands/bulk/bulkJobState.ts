import type { StoredEvent } from "../../db/eventStore.ts";
import { NO_COUNTS, type BulkCounts, type BulkJobEvent, type BulkJobSubmitted, type BulkStatus } from "./events.ts";

/** A bulk job as its stream says it stands: where a worker resumes it. */
export interface BulkJobState {
  submitted: BulkJobSubmitted["data"] | null;
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

export function evolveBulkJob(state: BulkJobState, stored: StoredEvent<BulkJobEvent>): BulkJobState {
  return applyBulkJobEvent(state, stored, stored.streamVersion);
}

/** The state after `event`, stored as the stream's version `version`. */
export function applyBulkJobEvent(state: BulkJobState, event: BulkJobEvent, version: number): BulkJobState {
  switch (event.type) {
    case "BulkJobSubmitted":
      return { ...state, submitted: event.data, version };
    case "BulkJobStarted":
      return { ...state, status: "RUNNING", version };
    case "BulkPieceImported":
      return {
        ...state,
        piecesDone: event.data.piece + 1,
        counts: addCounts(state.counts, event.data.counts),
        version,
      };
    case "BulkJobFinished":
      return { ...state, status: "DONE", version };
    case "BulkJobFailed":
      return { ...state, status: "FAILED", version };
  }
}

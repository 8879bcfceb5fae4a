import { streamCodec, type Event } from "../kit/events.ts";
import type { Audit } from "./spec/audit.ts";
import type { QueryOutcome } from "./spec/queryOutcome.ts";
import type { QueryProblem } from "./spec/queryTrial.ts";
import type { ReportSpec } from "./spec/specSchema.ts";

/**
 * The reports context's published language: the events a report's stream holds, and the stream's
 * name. The read side builds on these (and on the report format, spec/), never on the commands.
 */

/** One stream a report: `report:<report id>`. */
export const reportStreams = streamCodec("report:");

export type Mode = "dynamic" | "snapshot";

export interface Draft {
  title: string;
  datasource: string;
  spec: ReportSpec;
  /** Counts the queries that failed when tried at save (absent in drafts saved before they were tried). */
  audit: Audit;
  /** The queries that failed when tried at save, as the database said it then: recorded, never tried again on replay. */
  queryProblems?: QueryProblem[];
}

export interface PublishedVersion extends Draft {
  no: number;
  mode: Mode;
  note: string;
  params: Record<string, unknown>;
  /** The frozen results of a snapshot version, exactly as the data call will return them. */
  frozen: Record<string, QueryOutcome> | null;
  /**
   * A snapshot's: the wards of the publisher it was frozen for (contract G.1: their queries kept
   * to them); null, every ward; absent, a snapshot frozen before this was recorded (every ward).
   */
  frozenFor?: string[] | null;
  /** A snapshot frozen for every ward: each ward's own results, frozen at the same publishing, for a caller of that ward alone. */
  frozenByWard?: Record<string, Record<string, QueryOutcome>>;
  who: string;
  restoredFrom?: number;
}

export type ReportDraftSaved = Event<"ReportDraftSaved", Draft & { who: string }>;
export type ReportDraftDiscarded = Event<"ReportDraftDiscarded", { who: string }>;
/** A publish, or a restore (`restoredFrom`): both make a new version, the current one. */
export type ReportVersionPublished = Event<"ReportVersionPublished", PublishedVersion>;

export type ReportEvent = ReportDraftSaved | ReportDraftDiscarded | ReportVersionPublished;

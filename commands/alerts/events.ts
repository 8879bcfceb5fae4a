import { streamCodec, type Event } from "../kit/events.ts";

/*
 * The alerts context's published language (contract D.7): one stream per laboratory report,
 * `critical-results:<externalId>`, holding its alerts raised, closed and acknowledged, so the
 * report's history shows them and a replay finds them made.
 */

export const criticalResultsStreams = streamCodec("critical-results:");

export interface RaisedAlert {
  alertId: string;
  externalId: string;
  itemIndex: number;
  patientRef: string;
  code: string;
  name: string;
  value: number | string;
  unit: string | null;
  flag: string | null;
  /** Why it is critical, in words a nurse reads: "flagged HH by the laboratory", "above the critical limit 6.2 mmol/L". */
  reason: string;
  collectedAt: string | null;
  reportedAt: string;
}

export type CriticalResultRaised = Event<"CriticalResultRaised", RaisedAlert>;
/** An update of the report no longer holds the critical value. */
export type CriticalResultClosed = Event<"CriticalResultClosed", { alertId: string; reason: string }>;
export type CriticalResultAcknowledged = Event<"CriticalResultAcknowledged", { alertId: string; note: string; by: string }>;
/** The events of a `critical-results:` stream. */
export type CriticalResultEvent = CriticalResultRaised | CriticalResultClosed | CriticalResultAcknowledged;

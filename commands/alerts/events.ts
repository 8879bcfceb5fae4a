import { streamCodec, type Event } from "../kit/events.ts";

/*
 * The alerts context's published language (contract D.7): one stream per laboratory report,
 * `critical-results:<externalId>`, holding its alerts raised, closed and acknowledged, so the
 * report's history shows them and a replay finds them made.
 */

export const criticalResultsStreams = streamCodec("critical-results:");

/** The results query flags a point by the rule the delta alerts are raised by, so that the two never disagree. */
export { deltaBeyondLimit } from "./deltaRule.ts";

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
/** Acknowledges an alert of the stream, of either kind. */
export type CriticalResultAcknowledged = Event<
  "CriticalResultAcknowledged",
  { alertId: string; note: string; by: string }
>;

/** The two kinds of alert (contract F.3): an alert raised before there were kinds is CRITICAL. */
export type AlertKind = "CRITICAL" | "DELTA";

/** A result that moved from the patient's previous one of the item by more than the dictionary's delta limit (contract F.3). */
export interface RaisedDeltaAlert extends RaisedAlert {
  /** The previous result: its value (standard unit), when it was collected (else reported), its report. */
  previous: number;
  previousAt: string;
  previousExternalId: string;
  /** value − previous, signed, in the standard unit. */
  change: number;
  /** The limit exceeded, as the dictionary held it. */
  limit: { limit: number; percent: boolean; days: number };
  /**
   * How the change asks to be handled (contract F.3 as amended; decision 0073). Absent: an alert of
   * its own, to acknowledge (every delta alert recorded before there was a choice). "critical": the
   * result is critical as well, and its CRITICAL alert carries the change, so that the result is
   * acknowledged once, there. "info": the value came back inside the reference range from a
   * previous one outside it (a return towards normal, as after treatment): shown as information,
   * nothing to acknowledge.
   */
  handledAs?: DeltaHandling;
}

/** What a delta that is not an alert of its own is (RaisedDeltaAlert.handledAs). */
export type DeltaHandling = "critical" | "info";

/** Contract F.3: raised on the report of the result that moved; a late-arriving older result may raise one on a later report. */
export type DeltaAlertRaised = Event<"DeltaAlertRaised", RaisedDeltaAlert>;
/** The result no longer moved beyond the limit from its previous one (an update, or a late-arriving result between them). */
export type DeltaAlertClosed = Event<"DeltaAlertClosed", { alertId: string; reason: string }>;
export type DeltaAlertEvent = DeltaAlertRaised | DeltaAlertClosed;

/**
 * The events of a `critical-results:` stream: the report's alerts of both kinds. The stream kept
 * its name when delta alerts joined it (ids in the store never change), so that one
 * acknowledgement and one report history serve both.
 */
export type CriticalResultEvent =
  CriticalResultRaised | CriticalResultClosed | CriticalResultAcknowledged | DeltaAlertEvent;

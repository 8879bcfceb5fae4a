import type { StoredEvent } from "../../db/eventStore.ts";
import type { Dictionary, DictionaryItem } from "../../db/seed/defaultDictionary.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { deltaBeyondLimit, type Measured } from "./deltaRule.ts";
import type { CriticalResultEvent, RaisedDeltaAlert } from "./events.ts";

/*
 * Delta checks (contract F.3): a result that moved from the same patient's previous result of the
 * item (the one collected most recently before it, as known now) by more than the dictionary's
 * delta limit raises a DELTA alert on its report. A late-arriving older result becomes the previous
 * of the one collected after it, so that one is judged again: an alert raised when it now moved too
 * far, its standing alert closed when it no longer did. The alerts share each report's
 * `critical-results:` stream with the critical ones, under an actor of their own, so that neither
 * reactor's decisions or replay guard touch the other's.
 */

export const DELTA_CHECKS_ACTOR = "delta-checks";

/** The items the dictionary gives a delta limit, by code. */
export function deltaLimitedItems(
  dictionary: Dictionary,
): Map<string, DictionaryItem & { delta: NonNullable<DictionaryItem["delta"]> }> {
  return new Map(
    dictionary.items.flatMap((item) => (item.delta ? [[item.code, { ...item, delta: item.delta }] as const] : [])),
  );
}

/** A result of the series as the reactor reads it: its report, its place there, its value and time. */
export interface SeriesResult extends Measured {
  externalId: string;
  itemIndex: number;
  flag: string | null;
}

export type DeltaFinding = Omit<
  RaisedDeltaAlert,
  "alertId" | "externalId" | "patientRef" | "collectedAt" | "reportedAt"
>;

/** What a result means against its previous one (null: none within the item's days): a finding when it moved beyond the limit. */
export function judgeResult(
  item: DictionaryItem,
  result: SeriesResult,
  previous: (Measured & { externalId: string }) | null,
): DeltaFinding | null {
  if (!item.delta || previous === null) return null;
  const beyond = deltaBeyondLimit(result, previous, item.delta);
  if (!beyond) return null;
  const { limit, percent, days } = item.delta;
  const inUnit = (value: number) => `${value}${item.unit ? ` ${item.unit}` : ""}`;
  const signed = `${beyond.change > 0 ? "+" : ""}${inUnit(beyond.change)}`;
  return {
    itemIndex: result.itemIndex,
    code: item.code,
    name: item.name,
    value: result.value,
    unit: item.unit || null,
    flag: result.flag,
    reason: `changed by ${signed} from ${inUnit(previous.value)} on ${previous.at.slice(0, 10)}, beyond the delta limit ${percent ? `${limit} %` : inUnit(limit)} within ${days} days`,
    previous: previous.value,
    previousAt: previous.at,
    previousExternalId: previous.externalId,
    change: beyond.change,
    limit: { limit, percent, days },
  };
}

export interface DeltaAlertOfReport {
  alertId: string;
  code: string;
  closed: boolean;
}

export interface DeltaAlertsState {
  /** The report's delta alerts only: its critical alerts are the critical reactor's to decide about. */
  alerts: DeltaAlertOfReport[];
  /**
   * The positions of the events this reactor reacted to on this stream: a replay reacts to none of
   * them again. A set, not the last one as the critical reactor keeps: events of other reports
   * (a late-arriving result) decide here too, and two pushes committing side by side may reach the
   * reactor in an order their positions do not follow.
   */
  reactedTo: readonly number[];
}

export const initialDeltaAlertsState = (): DeltaAlertsState => ({ alerts: [], reactedTo: [] });

export function evolveDeltaAlerts(state: DeltaAlertsState, event: StoredEvent<CriticalResultEvent>): DeltaAlertsState {
  const cause = Number(event.metadata.causationId ?? 0);
  const reactedTo =
    event.metadata.actor === DELTA_CHECKS_ACTOR && !state.reactedTo.includes(cause)
      ? [...state.reactedTo, cause]
      : state.reactedTo;
  switch (event.type) {
    case "DeltaAlertRaised":
      return {
        alerts: [...state.alerts, { alertId: event.data.alertId, code: event.data.code, closed: false }],
        reactedTo,
      };
    case "DeltaAlertClosed":
      return {
        alerts: state.alerts.map((alert) =>
          alert.alertId === event.data.alertId ? { ...alert, closed: true } : alert,
        ),
        reactedTo,
      };
    default:
      return { ...state, reactedTo };
  }
}

/** A report's results judged, for some of its items or all of them. */
export interface JudgedReport {
  externalId: string;
  /** null when the report has no patient: it stands in no series, and its delta alerts close. */
  patientRef: string | null;
  collectedAt: string | null;
  reportedAt: string;
  /**
   * The item codes judged; null when the report's own version was judged whole (its standing alerts
   * of codes it no longer holds close too). A later report judged again because a late-arriving
   * result came before it is judged for that item only.
   */
  codes: readonly string[] | null;
  /** At most one per code: the first of the code's results that moved beyond the limit. */
  findings: readonly DeltaFinding[];
  /** False for a result too old at receipt to be news (the critical alerts' rule): it raises nothing, but still closes what no longer holds. */
  mayRaise: boolean;
}

/**
 * What a judgement means for the report's delta alerts: a finding with no alert of its code standing
 * raises one (when it may); a standing alert of a judged code without a finding closes
 * (acknowledged or not). An alert stays while its result stays beyond the limit.
 */
export function decideDeltaAlerts(
  state: DeltaAlertsState,
  report: JudgedReport,
  newAlertId: () => string,
): CriticalResultEvent[] {
  const findings = report.patientRef === null ? [] : report.findings;
  const judged = (code: string) => report.codes === null || report.codes.includes(code);
  const standing = state.alerts.filter((alert) => !alert.closed);
  const events: CriticalResultEvent[] = [];
  for (const alert of standing) {
    if (!judged(alert.code) || findings.some((finding) => finding.code === alert.code)) continue;
    events.push({
      type: "DeltaAlertClosed",
      data: {
        alertId: alert.alertId,
        reason: "the result no longer differs from the previous one by more than the delta limit",
      },
    });
  }
  if (!report.mayRaise) return events;
  for (const finding of findings) {
    if (standing.some((alert) => alert.code === finding.code)) continue;
    events.push({
      type: "DeltaAlertRaised",
      data: {
        alertId: newAlertId(),
        externalId: report.externalId,
        patientRef: report.patientRef!,
        collectedAt: report.collectedAt,
        reportedAt: report.reportedAt,
        ...finding,
      },
    });
  }
  return events;
}

/** What the reactor asks for: the delta alerts of a report judged, caused by the event at `cause`. */
export interface JudgeReport {
  cause: number;
  report: JudgedReport;
}

/** A report's delta alerts as a decider: an event already reacted to on this stream decides nothing. */
export function deltaAlertsDecider(
  newAlertId: () => string,
): Decider<DeltaAlertsState, JudgeReport, CriticalResultEvent> {
  return {
    initialState: initialDeltaAlertsState,
    evolve: evolveDeltaAlerts,
    decide: ({ cause, report }, state) =>
      state.reactedTo.includes(cause) ? [] : decideDeltaAlerts(state, report, newAlertId),
  };
}

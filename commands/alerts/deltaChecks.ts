import type { StoredEvent } from "../../db/eventStore.ts";
import type { Dictionary, DictionaryItem } from "../../db/seed/defaultDictionary.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { deltaBeyondLimit, type Measured } from "./deltaRule.ts";
import type { CriticalResultEvent, DeltaHandling, RaisedDeltaAlert } from "./events.ts";

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
  /** Inside its laboratory's reference range (true), outside it (false), or not known (null): see inReferenceRange in the reactor. */
  inRange: boolean | null;
  /** The report holds a critical result of the item (isCriticalResult): its CRITICAL alert carries the change. */
  critical: boolean;
}

/** The previous result a result is compared with. */
export interface PreviousResult extends Measured {
  externalId: string;
  inRange: boolean | null;
}

/**
 * How a change beyond the limit is handled (decision 0073): carried by the result's critical alert
 * when the result is critical (one result, one acknowledgement); information when the value came
 * back inside the reference range from a previous one outside it (a return towards normal, as after
 * treatment, which CLSI EP33 counts among the expected changes that make most delta alerts noise);
 * else an alert of its own. Where either range is not known, it is an alert: a return to normal is
 * never assumed.
 */
export function deltaHandling(
  critical: boolean,
  inRange: boolean | null,
  previousInRange: boolean | null,
): DeltaHandling | undefined {
  if (critical) return "critical";
  return inRange === true && previousInRange === false ? "info" : undefined;
}

export type DeltaFinding = Omit<
  RaisedDeltaAlert,
  "alertId" | "externalId" | "patientRef" | "collectedAt" | "reportedAt"
>;

/** What a result means against its previous one (null: none within the item's days): a finding when it moved beyond the limit. */
export function judgeResult(
  item: DictionaryItem,
  result: SeriesResult,
  previous: PreviousResult | null,
): DeltaFinding | null {
  if (!item.delta || previous === null) return null;
  const beyond = deltaBeyondLimit(result, previous, item.delta);
  if (!beyond) return null;
  const { limit, percent, days } = item.delta;
  const inUnit = (value: number) => `${value}${item.unit ? ` ${item.unit}` : ""}`;
  const signed = `${beyond.change > 0 ? "+" : ""}${inUnit(beyond.change)}`;
  const handledAs = deltaHandling(result.critical, result.inRange, previous.inRange);
  return {
    itemIndex: result.itemIndex,
    code: item.code,
    name: item.name,
    value: result.value,
    unit: item.unit || null,
    flag: result.flag,
    reason:
      `changed by ${signed} from ${inUnit(previous.value)} on ${previous.at.slice(0, 10)}, beyond the delta ` +
      `limit ${percent ? `${limit} %` : inUnit(limit)} within ${days} days`,
    previous: previous.value,
    previousAt: previous.at,
    previousExternalId: previous.externalId,
    change: beyond.change,
    limit: { limit, percent, days },
    ...(handledAs ? { handledAs } : {}),
  };
}

export interface DeltaAlertOfReport {
  alertId: string;
  code: string;
  closed: boolean;
  /** Not an alert of its own (RaisedDeltaAlert.handledAs); null: an alert to acknowledge. */
  handledAs: DeltaHandling | null;
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
        alerts: [
          ...state.alerts,
          {
            alertId: event.data.alertId,
            code: event.data.code,
            closed: false,
            handledAs: event.data.handledAs ?? null,
          },
        ],
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
 * (acknowledged or not). An alert stays while its result stays beyond the limit and is handled
 * the same way; one whose handling changed (the result became critical, or came back inside the
 * reference range, or no longer did) closes, saying why, and the finding raises one handled anew.
 */
export function decideDeltaAlerts(
  state: DeltaAlertsState,
  report: JudgedReport,
  newAlertId: () => string,
): CriticalResultEvent[] {
  const findings = report.patientRef === null ? [] : report.findings;
  const judged = (code: string) => report.codes === null || report.codes.includes(code);
  const findingOf = (code: string) => findings.find((finding) => finding.code === code);
  const standing = state.alerts.filter((alert) => !alert.closed);
  const events: CriticalResultEvent[] = [];
  const kept = new Set<string>();
  for (const alert of standing) {
    if (!judged(alert.code)) {
      kept.add(alert.code);
      continue;
    }
    const finding = findingOf(alert.code);
    if (finding && (finding.handledAs ?? null) === alert.handledAs) {
      kept.add(alert.code);
      continue;
    }
    // Handled anew only where a new one may be raised; else the alert stands as it was.
    if (finding && !report.mayRaise) {
      kept.add(alert.code);
      continue;
    }
    events.push({
      type: "DeltaAlertClosed",
      data: { alertId: alert.alertId, reason: finding ? HANDLED_ANEW[finding.handledAs ?? "alert"] : NO_LONGER_BEYOND },
    });
  }
  if (!report.mayRaise) return events;
  for (const finding of findings) {
    if (kept.has(finding.code)) continue;
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

const NO_LONGER_BEYOND = "the result no longer differs from the previous one by more than the delta limit";
/** Why a standing delta closes when its result is handled otherwise now: by how it is handled now. */
const HANDLED_ANEW: Record<DeltaHandling | "alert", string> = {
  critical: "the result is critical as well: its critical alert carries the change",
  info: "the value is back inside the reference range: the change is shown as information",
  alert: "the change is an alert of its own now",
};

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

import type { MappedItem } from "../ingestion/itemMapping.ts";
import { loadDefaultDictionary, type Dictionary } from "../../db/seed/defaultDictionary.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import { parseLocalDateTime } from "../../db/localDateTime.ts";
import type {
  AlertEscalationScheduled,
  AlertKind,
  CriticalResultEvent,
  DeltaHandling,
  NotificationOutcome,
  RaisedAlert,
} from "./events.ts";
import type { Decider } from "../kit/handleCommand.ts";

/*
 * Critical results (contract D.7): a laboratory result flagged LL or HH, or beyond the dictionary's
 * critical limits, raises an alert for the patient; an update of the report that no longer holds
 * it closes the alert; a person acknowledges it with a note. All three are events of one stream per
 * report, so the report's history shows them and a replay finds them made.
 */

export const CRITICAL_RESULTS_ACTOR = "critical-results";

export interface AlertOfReport {
  alertId: string;
  /** Both kinds share the report's stream: a person acknowledges either; this reactor decides only about its own. */
  kind: AlertKind;
  /** A delta that is not an alert of its own (carried by its result's critical alert, or information): nothing to acknowledge. */
  handledAs: DeltaHandling | null;
  code: string;
  /** The value and unit raised with, which a read-back must repeat (contract G.3). */
  value: number | string;
  unit: string | null;
  closed: boolean;
  acknowledged: { by: string; note: string; at: Date } | null;
  /** The escalation fixed when the alert was raised (contract G.3); null: none. */
  escalation: AlertEscalationScheduled["data"] | null;
  /** The last attempt recorded for each step's target (`<step>:<target>`). */
  notifications: Map<string, { attempt: number; outcome: NotificationOutcome }>;
}

export interface CriticalResultsState {
  alerts: AlertOfReport[];
  /** The position of the last event the reactor has reacted to: a replay reacts to nothing up to it. */
  lastCause: number;
}

export const initialCriticalResultsState = (): CriticalResultsState => ({ alerts: [], lastCause: 0 });

export function evolveCriticalResults(
  state: CriticalResultsState,
  event: StoredEvent<CriticalResultEvent>,
): CriticalResultsState {
  const cause = Number(event.metadata.causationId ?? 0);
  const lastCause =
    event.metadata.actor === CRITICAL_RESULTS_ACTOR && cause > state.lastCause ? cause : state.lastCause;
  const alerts = state.alerts.map((alert) => ({ ...alert }));
  const alert = alerts.find((candidate) => candidate.alertId === event.data.alertId);
  if (event.type === "AlertNotified" && alert) alert.notifications = new Map(alert.notifications);
  switch (event.type) {
    case "CriticalResultRaised":
    case "DeltaAlertRaised":
      alerts.push({
        alertId: event.data.alertId,
        kind: event.type === "DeltaAlertRaised" ? "DELTA" : "CRITICAL",
        handledAs: event.type === "DeltaAlertRaised" ? (event.data.handledAs ?? null) : null,
        code: event.data.code,
        value: event.data.value,
        unit: event.data.unit,
        closed: false,
        acknowledged: null,
        escalation: null,
        notifications: new Map(),
      });
      break;
    case "CriticalResultClosed":
    case "DeltaAlertClosed":
      if (alert) alert.closed = true;
      break;
    case "CriticalResultAcknowledged":
      if (alert) alert.acknowledged = { by: event.data.by, note: event.data.note, at: event.recordedAt };
      break;
    case "AlertEscalationScheduled":
      if (alert) alert.escalation = event.data;
      break;
    case "AlertNotified":
      alert?.notifications.set(`${event.data.step}:${event.data.target}`, {
        attempt: event.data.attempt,
        outcome: event.data.outcome,
      });
      break;
    case "AlertReadBackRefused":
      break;
  }
  return { alerts, lastCause };
}

/** One result item of a received report: as sent, and as mapped. */
export interface ReportItem {
  index: number;
  sent: { itemCode?: string; itemName?: string; value?: unknown; unit?: string; abnormalFlag?: string };
  mapped: Pick<MappedItem, "stdCode" | "stdName" | "stdValue" | "stdUnit">;
}

export type CriticalFinding = Omit<RaisedAlert, "alertId" | "externalId" | "patientRef" | "collectedAt" | "reportedAt">;

const CRITICAL_FLAGS = new Set(["LL", "HH"]);

/** The items of a report that are critical, one per item code (the first such item of a code). */
export function findCritical(items: readonly ReportItem[], dictionary: Dictionary): CriticalFinding[] {
  const limits = criticalLimitsOf(dictionary);
  const found = new Map<string, CriticalFinding>();
  for (const { index, sent, mapped } of items) {
    const code = mapped.stdCode ?? sent.itemCode?.trim() ?? sent.itemName?.trim();
    if (!code || found.has(code)) continue;
    const flag = typeof sent.abnormalFlag === "string" ? sent.abnormalFlag.trim().toUpperCase() : null;
    const standard = mapped.stdValue !== null && mapped.stdValue !== undefined;
    const unit = standard ? mapped.stdUnit : (sent.unit ?? null);
    const reason = criticalReason(flag, standard ? mapped.stdValue! : null, limits.get(code), unit);
    if (reason === null) continue;
    found.set(code, {
      itemIndex: index,
      code,
      name: mapped.stdName ?? sent.itemName ?? code,
      value: standard
        ? mapped.stdValue!
        : typeof sent.value === "number" || typeof sent.value === "string"
          ? sent.value
          : "",
      unit: unit || null,
      flag,
      reason,
    });
  }
  return [...found.values()];
}

/** Why a result is critical (its laboratory's LL or HH flag, else its standard value beyond the limits), or null when it is not. */
function criticalReason(
  flag: string | null,
  stdValue: number | null,
  limits: { low: number | null; high: number | null } | undefined,
  unit: string | null,
): string | null {
  if (flag && CRITICAL_FLAGS.has(flag)) return `flagged ${flag} by the laboratory`;
  return stdValue === null ? null : beyondLimits(stdValue, limits, unit);
}

/**
 * Whether a result of item `code` (its standard value, the laboratory's flag) is critical by the
 * rule findCritical raises CRITICAL alerts by: the delta checks ask it, so that a change of a
 * critical result rides on that result's critical alert instead of raising one of its own (F.3).
 */
export function isCriticalResult(
  dictionary: Dictionary,
  code: string,
  stdValue: number | null,
  flag: string | null,
): boolean {
  const normalised = flag === null ? null : flag.trim().toUpperCase();
  return criticalReason(normalised, stdValue, criticalLimitsOf(dictionary).get(code), null) !== null;
}

function beyondLimits(
  value: number,
  limits: { low: number | null; high: number | null } | undefined,
  unit: string | null,
): string | null {
  if (!limits) return null;
  const inUnit = (limit: number) => `${limit}${unit ? ` ${unit}` : ""}`;
  if (limits.low !== null && value < limits.low) return `below the critical limit ${inUnit(limits.low)}`;
  if (limits.high !== null && value > limits.high) return `above the critical limit ${inUnit(limits.high)}`;
  return null;
}

const limitsByDictionary = new WeakMap<Dictionary, Map<string, { low: number | null; high: number | null }>>();

function criticalLimitsOf(dictionary: Dictionary): Map<string, { low: number | null; high: number | null }> {
  let limits = limitsByDictionary.get(dictionary);
  if (!limits) {
    limits = new Map(dictionary.items.flatMap((item) => (item.critical ? [[item.code, item.critical] as const] : [])));
    limitsByDictionary.set(dictionary, limits);
  }
  return limits;
}

/**
 * Results older than this when they reach us raise no alert: a bulk import of years of history,
 * or a laboratory's backlog sent days late, is not news a nurse must act on now.
 */
export const CRITICAL_RESULT_MAX_AGE_HOURS = 72;

/** True when the sample (else the report) is at most CRITICAL_RESULT_MAX_AGE_HOURS older than `receivedAt`. */
export function isRecentEnough(collectedAt: string | null, reportedAt: string, receivedAt: Date): boolean {
  const taken = parseLocalDateTime(collectedAt ?? reportedAt) ?? parseLocalDateTime(reportedAt);
  return taken === null || receivedAt.getTime() - taken.getTime() <= CRITICAL_RESULT_MAX_AGE_HOURS * 3_600_000;
}

/** The dictionary alerts are judged by (its items' critical limits): the reactor's, and the hint's below. */
let alertsDictionaryLoaded: Dictionary | undefined;
export function alertsDictionary(): Dictionary {
  return (alertsDictionaryLoaded ??= loadDefaultDictionary());
}

/** The metadata key under which ingestion records mayRaiseAlert's answer, and the reactor reads it. */
export const CRITICAL_AT_RECEIPT = "criticalAtReceipt";

/**
 * Whether a laboratory report as received may raise an alert: some item critical by
 * `alertsDictionary` and the sample recent enough. Ingestion records the answer in the received
 * event's metadata (`criticalAtReceipt`), so that the reactor passes over the first versions that
 * cannot (nearly every report, and every report of a bulk import of history) without reading
 * their payloads. Never false where the reactor would find otherwise: recency is judged an hour
 * early, against a clock of the database (the event's recorded time) that may run behind ours.
 */
export function mayRaiseAlert(
  report: { collectedAt?: unknown; reportedAt?: unknown; items?: unknown },
  mapped: readonly ReportItem["mapped"][],
  receivedAt: Date,
): boolean {
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  const reportedAt = text(report.reportedAt);
  if (reportedAt === null) return true; // required of a laboratory report: the reactor decides
  if (!isRecentEnough(text(report.collectedAt), reportedAt, new Date(receivedAt.getTime() - CLOCK_MARGIN_MS)))
    return false;
  const sent = Array.isArray(report.items) ? (report.items as ReportItem["sent"][]) : [];
  return (
    findCritical(
      sent.map((item, index) => ({ index, sent: item, mapped: mapped[index]! })),
      alertsDictionary(),
    ).length > 0
  );
}

const CLOCK_MARGIN_MS = 3_600_000;

export interface ReportVersion {
  externalId: string;
  /** null when the report is not matched to a patient: alerts are for a patient's results. */
  patientRef: string | null;
  collectedAt: string | null;
  reportedAt: string;
  findings: readonly CriticalFinding[];
}

/**
 * What a report's newest version means for its alerts: a critical item without an alert still
 * standing raises one; a standing alert whose item is no longer critical is closed (acknowledged
 * or not). An alert stays raised while an update keeps its item critical.
 */
export function decideCriticalResults(
  state: CriticalResultsState,
  report: ReportVersion,
  newAlertId: () => string,
): CriticalResultEvent[] {
  const findings = report.patientRef === null ? [] : report.findings;
  const standing = state.alerts.filter((alert) => !alert.closed && alert.kind === "CRITICAL");
  const events: CriticalResultEvent[] = [];
  for (const alert of standing) {
    if (!findings.some((finding) => finding.code === alert.code)) {
      events.push({
        type: "CriticalResultClosed",
        data: { alertId: alert.alertId, reason: "an update of the report no longer holds this critical value" },
      });
    }
  }
  for (const finding of findings) {
    if (standing.some((alert) => alert.code === finding.code)) continue;
    events.push({
      type: "CriticalResultRaised",
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

/** What the reactor asks for: the alerts of this version of a report, caused by the event at `cause`. */
export interface ReactToReport {
  cause: number;
  report: ReportVersion;
}

/** The report's alerts as a decider: an event already reacted to (its cause at or before the last) decides nothing. */
export function criticalResultsDecider(
  newAlertId: () => string,
): Decider<CriticalResultsState, ReactToReport, CriticalResultEvent> {
  return {
    initialState: initialCriticalResultsState,
    evolve: evolveCriticalResults,
    decide: ({ cause, report }, state) =>
      state.lastCause >= cause ? [] : decideCriticalResults(state, report, newAlertId),
  };
}

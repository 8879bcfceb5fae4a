import type { Decider } from "../kit/handleCommand.ts";
import { evolveCriticalResults, initialCriticalResultsState, type CriticalResultsState } from "./criticalResults.ts";
import type {
  AlertEscalationScheduled,
  CriticalResultEvent,
  EscalationPolicy,
  EscalationStep,
  NotifyTarget,
} from "./events.ts";

/*
 * A critical alert's escalation (contract G.3) as decisions on its report's stream: the steps fixed
 * when it was raised, and each attempt to tell a step's target. What is recorded decides what is
 * sent: a step's target is tried once per attempt number, whichever process runs it and however
 * often its job runs, and never after the alert was acknowledged or closed.
 */

export const ALERT_ESCALATION_ACTOR = "alert-escalation";

/** The steps of the policy for a patient of `ward` (null: none): the ward's own, else `*`; null when neither has any. */
export function stepsFor(
  policy: EscalationPolicy,
  ward: string | null,
): { policyWard: string; steps: EscalationStep[] } | null {
  const own = ward === null ? undefined : policy.wards[ward];
  const policyWard = own ? ward! : "*";
  const steps = own ?? policy.wards["*"];
  return steps && steps.length > 0 ? { policyWard, steps } : null;
}

interface Schedule {
  alertId: string;
  ward: string | null;
  policyWard: string;
  steps: EscalationStep[];
  raisedAt: Date;
}

/** Fixes the escalation of a critical alert that has none yet and still stands. */
export const scheduleEscalationDecider: Decider<CriticalResultsState, Schedule, CriticalResultEvent> = {
  initialState: initialCriticalResultsState,
  evolve: evolveCriticalResults,
  decide: ({ alertId, ward, policyWard, steps, raisedAt }, state) => {
    const alert = state.alerts.find((candidate) => candidate.alertId === alertId);
    if (!alert || alert.kind !== "CRITICAL" || alert.escalation || alert.closed || alert.acknowledged) return [];
    return [
      {
        type: "AlertEscalationScheduled",
        data: {
          alertId,
          ward,
          policyWard,
          steps: steps.map((step, i) => ({
            step: i + 1,
            ...step,
            dueAt: new Date(raisedAt.getTime() + step.afterMinutes * 60_000).toISOString(),
          })),
        },
      },
    ];
  },
};

/** A target of a step to try at this attempt. */
export interface DueTarget {
  target: number;
  notify: NotifyTarget;
}

/**
 * The targets of `step` to try at `attempt`: none once the alert is acknowledged or closed; else
 * those with no final outcome whose last recorded attempt is an earlier one.
 */
export function targetsDue(state: CriticalResultsState, alertId: string, step: number, attempt: number): DueTarget[] {
  const alert = state.alerts.find((candidate) => candidate.alertId === alertId);
  if (!alert || alert.closed || alert.acknowledged || !alert.escalation) return [];
  const planned = alert.escalation.steps.find((candidate) => candidate.step === step);
  if (!planned) return [];
  return planned.notify.flatMap((notify, target) => {
    const last = alert.notifications.get(`${step}:${target}`);
    if (last && (last.outcome !== "retrying" || last.attempt >= attempt)) return [];
    return [{ target, notify }];
  });
}

/** What one attempt at a target came to: null when it was delivered, else why not (the SMTP server's or the receiver's answer). */
export interface AttemptResult extends DueTarget {
  failure: string | null;
}

interface RecordAttempts {
  alertId: string;
  step: number;
  attempt: number;
  results: AttemptResult[];
  /** When the next attempt comes; null: this was the last, a failure is final. */
  nextAttemptAt: Date | null;
}

/** Records an attempt's outcomes: of the targets still due at that attempt only, so a second run of the same attempt records nothing. */
export const recordAttemptsDecider: Decider<CriticalResultsState, RecordAttempts, CriticalResultEvent> = {
  initialState: initialCriticalResultsState,
  evolve: evolveCriticalResults,
  decide: ({ alertId, step, attempt, results, nextAttemptAt }, state) => {
    const due = new Set(targetsDue(state, alertId, step, attempt).map(({ target }) => target));
    return results
      .filter(({ target }) => due.has(target))
      .map(({ target, notify, failure }) => ({
        type: "AlertNotified",
        data: {
          alertId,
          step,
          target,
          channel: notify.channel,
          to: notify.channel === "email" ? notify.to : notify.url,
          attempt,
          ...(failure === null
            ? { outcome: "sent" as const }
            : nextAttemptAt
              ? { outcome: "retrying" as const, reason: failure, nextAttemptAt: nextAttemptAt.toISOString() }
              : { outcome: "failed" as const, reason: failure }),
        },
      }));
  },
};

/** The steps an alert's escalation fixed, as its event holds them. */
export type ScheduledSteps = AlertEscalationScheduled["data"]["steps"];

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
/** Whom the person acknowledging told of the value (contract G.3), as they name them. */
export interface NotifiedPerson {
  name: string;
  role: string;
}

/** Acknowledges an alert of the stream, of either kind; `notified` and `readBack` where the person gave them (contract G.3). */
export type CriticalResultAcknowledged = Event<
  "CriticalResultAcknowledged",
  {
    alertId: string;
    note: string;
    by: string;
    notified?: NotifiedPerson;
    /** The value the person read back, always the alert's own (a different one is refused: AlertReadBackRefused). */
    readBack?: { value: number | string; matched: true };
  }
>;

/** An acknowledgement refused because the value read back was not the alert's (contract G.3): recorded, so the unit sees it. */
export type AlertReadBackRefused = Event<
  "AlertReadBackRefused",
  { alertId: string; value: number | string; expected: number | string; by: string; notified?: NotifiedPerson }
>;

/** Where a step of an escalation sends its notification (contract G.3). */
export type NotifyTarget = { channel: "email"; to: string } | { channel: "webhook"; url: string };

/** One step of an escalation: whom to tell after how many minutes without an acknowledgement. */
export interface EscalationStep {
  afterMinutes: number;
  notify: NotifyTarget[];
}

/** A tenant's escalation policy: steps per ward, `*` for every ward without its own; whether read-back is required. */
export interface EscalationPolicy {
  wards: Record<string, EscalationStep[]>;
  readBackRequired: boolean;
}

/** `PUT /api/alerts/escalation`: the tenant's whole policy, replaced (stream `alert-escalation:policy`). */
export type EscalationPolicySet = Event<"EscalationPolicySet", EscalationPolicy & { by: string }>;
export type EscalationPolicyEvent = EscalationPolicySet;

/** The one escalation policy stream of a tenant: `alert-escalation:policy`. */
export const escalationPolicyStreams = streamCodec("alert-escalation:");
export const ESCALATION_POLICY_KEY = "policy";

/**
 * A critical alert's escalation, fixed when it was raised by the policy then in force for the
 * patient's ward: each step's moment (the raise plus its minutes) and whom it tells. A later
 * policy changes only the alerts raised after it.
 */
export type AlertEscalationScheduled = Event<
  "AlertEscalationScheduled",
  {
    alertId: string;
    /** The patient's ward when the alert was raised (null: none), and the policy's key that applied (the ward or `*`). */
    ward: string | null;
    policyWard: string;
    steps: Array<EscalationStep & { step: number; dueAt: string }>;
  }
>;

export type NotificationOutcome = "sent" | "retrying" | "failed";

/** One attempt to tell a step's target: sent, failed with a try to come (`nextAttemptAt`), or failed for good. */
export type AlertNotified = Event<
  "AlertNotified",
  {
    alertId: string;
    step: number;
    /** The target's place in the step's `notify`. */
    target: number;
    channel: NotifyTarget["channel"];
    /** The mail address or the webhook's URL. */
    to: string;
    outcome: NotificationOutcome;
    attempt: number;
    /** Why the attempt failed: the SMTP server's or the receiver's answer, never a credential. */
    reason?: string;
    nextAttemptAt?: string;
  }
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
  CriticalResultRaised | CriticalResultClosed | CriticalResultAcknowledged | DeltaAlertEvent | AlertEscalationEvent;

/** The escalation of an alert (contract G.3), on its report's stream beside the alert. */
export type AlertEscalationEvent = AlertEscalationScheduled | AlertNotified | AlertReadBackRefused;

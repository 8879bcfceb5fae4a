import { ALERT_ESCALATION_ACTOR, scheduleEscalationDecider, stepsFor } from "../commands/alerts/escalateAlert.ts";
import {
  criticalResultsStreams,
  ESCALATION_POLICY_KEY,
  escalationPolicyStreams,
  type CriticalResultRaised,
  type EscalationPolicySet,
} from "../commands/alerts/events.ts";
import { patientStreams, type PatientEvent } from "../commands/patients/events.ts";
import { handleCommandInTransaction } from "../commands/kit/handleCommand.ts";
import type { StoredEvent } from "../db/eventStore.ts";
import type { Tx } from "../db/pool.ts";
import type { ApplyContext, Projection } from "../projections/runtime/projection.ts";

/*
 * Contract G.3: when a critical alert is raised, its escalation is fixed by the policy in force
 * for the patient's ward as of that moment (the store's events before the raise), recorded on the
 * alert's stream, and each step becomes a pg-boss job due at its time, sent in the same transaction:
 * a step exists as a job exactly when its schedule is recorded. While a rebuild loads history it does
 * nothing (what it did is in the store), and a replay finds each alert's escalation made.
 */

export const ALERT_ESCALATION_QUEUE = "alert-escalation";

/** What a step's job carries: which alert, which step, which attempt (1 the first). */
export interface EscalationJob {
  tenant: string;
  externalId: string;
  alertId: string;
  step: number;
  attempt: number;
}

/** One job per alert, step and attempt, whoever sends it. */
export const escalationJobKey = (job: Pick<EscalationJob, "alertId" | "step" | "attempt">) =>
  `${job.alertId}:${job.step}:${job.attempt}`;

export const alertEscalationReactor: Projection<CriticalResultRaised> = {
  name: "alert_escalation",
  version: 1,
  handles: ["CriticalResultRaised"],
  emits: ["AlertEscalationScheduled"],
  tables: [],
  loadThrough: async () => {},
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events, context = { loading: false }) {
    if (context.loading) return;
    for (const event of events) await escalate(tx, event, context);
  },
};

async function escalate(tx: Tx, raised: StoredEvent<CriticalResultRaised>, context: ApplyContext): Promise<void> {
  const policy = await policyBefore(tx, raised);
  if (!policy) return;
  const ward = await wardBefore(tx, raised);
  const chosen = stepsFor(policy, ward);
  if (!chosen) return;
  const { events } = await handleCommandInTransaction(
    tx,
    { tenant: raised.tenant, streamId: raised.streamId },
    scheduleEscalationDecider,
    { alertId: raised.data.alertId, ward, ...chosen, raisedAt: raised.recordedAt },
    { actor: ALERT_ESCALATION_ACTOR, causationId: String(raised.position) },
  );
  for (const scheduled of events) {
    if (scheduled.type !== "AlertEscalationScheduled") continue;
    for (const step of scheduled.data.steps) {
      const job: EscalationJob = {
        tenant: raised.tenant,
        externalId: criticalResultsStreams.key(raised.streamId),
        alertId: raised.data.alertId,
        step: step.step,
        attempt: 1,
      };
      await context.jobs?.send(tx, ALERT_ESCALATION_QUEUE, job, escalationJobKey(job), {
        startAfter: new Date(step.dueAt),
      });
    }
  }
}

/** The policy put last before the alert was raised. */
async function policyBefore(tx: Tx, raised: StoredEvent): Promise<EscalationPolicySet["data"] | null> {
  const { rows } = await tx.query<{ data: EscalationPolicySet["data"] }>(
    "select data from events where tenant = $1 and stream_id = $2 and position < $3 order by stream_version desc limit 1",
    [raised.tenant, escalationPolicyStreams.id(ESCALATION_POLICY_KEY), raised.position],
  );
  return rows[0]?.data ?? null;
}

/** The patient's ward as registered or updated last before the alert was raised. */
async function wardBefore(tx: Tx, raised: StoredEvent<CriticalResultRaised>): Promise<string | null> {
  const { rows } = await tx.query<{ data: PatientEvent["data"] }>(
    "select data from events where tenant = $1 and stream_id = $2 and position < $3 order by stream_version desc limit 1",
    [raised.tenant, patientStreams.id(raised.data.patientRef), raised.position],
  );
  return rows[0]?.data.ward ?? null;
}

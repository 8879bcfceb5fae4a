import type { CriticalResultEvent, DeltaHandling } from "../../commands/alerts/events.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";

/**
 * Critical-result and delta alerts as the staff pages list them (contracts D.7, F.3). Each change is also told on
 * ALERTS_CHANNEL when it commits (NOTIFY waits for the commit), so open pages hear of it at once;
 * a rebuild's load tells nothing, its alerts are not news.
 */

/** The columns every raised alert fills, $1–$15: its key, then raisedValues. */
const RAISED_COLUMNS = `tenant, alert_id, external_id, item_index, patient_ref, code, name, value_num,
  value_text, unit, flag, reason, collected_at, reported_at, raised_at`;

/** What a critical or a delta alert's event gives those columns after its key. */
function raisedValues(
  a: {
    externalId: string;
    itemIndex: number;
    patientRef: string | null;
    code: string;
    name: string;
    value: unknown;
    unit: string | null;
    flag: string | null;
    reason: string;
    collectedAt: string | null;
    reportedAt: string;
  },
  recordedAt: unknown,
): unknown[] {
  return [
    a.externalId,
    a.itemIndex,
    a.patientRef,
    a.code,
    a.name,
    typeof a.value === "number" ? a.value : null,
    typeof a.value === "string" ? a.value : null,
    a.unit,
    a.flag,
    a.reason,
    a.collectedAt,
    a.reportedAt,
    recordedAt,
  ];
}

export const ALERTS_CHANNEL = "dialysis_hub_alerts";

/**
 * What ALERTS_CHANNEL carries: which alert of which tenant changed, and how. `updated`: a critical
 * alert took on, or lost, the change of its result (decision 0073), nothing a person must act on anew.
 */
export interface AlertNotice {
  tenant: string;
  alertId: string;
  change: "raised" | "acknowledged" | "closed" | "updated";
}

export const alertsProjection: Projection<CriticalResultEvent> = {
  name: "alerts",
  // 4: handled_as, the changes carried by a critical alert or shown as information (decision 0073).
  // 5: escalation, notifications and read-back (contract G.3, decision 0084).
  version: 5,
  handles: [
    "CriticalResultRaised",
    "CriticalResultClosed",
    "CriticalResultAcknowledged",
    "DeltaAlertRaised",
    "DeltaAlertClosed",
    "AlertEscalationScheduled",
    "AlertNotified",
  ],
  tables: ["alerts"],
  patientRows: { alerts: { patientRef: "patient_ref" } },
  ddl: "projections/alerts/alerts.sql",
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events, context = { loading: false }) {
    for (const event of events) {
      const key = [event.tenant, event.data.alertId];
      // Whom the change concerns on the pages: the alert itself, else the critical alert carrying it, else nobody.
      let notice: AlertNotice | null = {
        tenant: event.tenant,
        alertId: event.data.alertId,
        change: CHANGES[event.type],
      };
      switch (event.type) {
        case "CriticalResultRaised": {
          const a = event.data;
          await tx.query(
            `insert into alerts (${RAISED_COLUMNS})
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) on conflict do nothing`,
            [...key, ...raisedValues(a, event.recordedAt)],
          );
          break;
        }
        case "DeltaAlertRaised": {
          const a = event.data;
          await tx.query(
            `insert into alerts (${RAISED_COLUMNS},
               kind, previous, previous_at, previous_external_id, change, delta_limit, handled_as)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'DELTA', $16, $17, $18, $19, $20, $21) on conflict do nothing`,
            [
              ...key,
              ...raisedValues(a, event.recordedAt),
              a.previous,
              a.previousAt,
              a.previousExternalId,
              a.change,
              a.limit,
              a.handledAs ?? null,
            ],
          );
          if (a.handledAs) notice = await carrierNotice(tx, event.tenant, a.handledAs, a.externalId, a.code);
          break;
        }
        case "CriticalResultClosed":
        case "DeltaAlertClosed": {
          const { rows } = await tx.query<{ handled_as: DeltaHandling | null; external_id: string; code: string }>(
            "update alerts set closed_at = $3, closed_reason = $4 where tenant = $1 and alert_id = $2 returning handled_as, external_id, code",
            [...key, event.recordedAt, event.data.reason],
          );
          const closed = rows[0];
          if (closed?.handled_as)
            notice = await carrierNotice(tx, event.tenant, closed.handled_as, closed.external_id, closed.code);
          break;
        }
        case "CriticalResultAcknowledged":
          await tx.query(
            `update alerts set acknowledged_at = $3, acknowledged_by = $4, note = $5, notified = $6, read_back = $7
             where tenant = $1 and alert_id = $2`,
            [
              ...key,
              event.recordedAt,
              event.data.by,
              event.data.note,
              event.data.notified ?? null,
              event.data.readBack ?? null,
            ],
          );
          break;
        case "AlertEscalationScheduled": {
          const last =
            event.data.steps
              .map((step) => step.dueAt)
              .sort()
              .at(-1) ?? null;
          await tx.query("update alerts set escalation_due_at = $3 where tenant = $1 and alert_id = $2", [
            ...key,
            last,
          ]);
          break;
        }
        case "AlertNotified": {
          const { step, target, channel, to, outcome, attempt, reason } = event.data;
          const entry = { step, target, channel, to, at: event.recordedAt, outcome, attempts: attempt, reason };
          // One entry a step's target: its last attempt replaces the one before.
          await tx.query(
            `update alerts set notifications = (
               select coalesce(jsonb_agg(n), '[]'::jsonb) from jsonb_array_elements(notifications) n
               where not ((n->>'step')::int = $3 and (n->>'target')::int = $4)
             ) || jsonb_build_array($5::jsonb)
             where tenant = $1 and alert_id = $2`,
            [...key, step, target, JSON.stringify(entry)],
          );
          break;
        }
      }
      if (!context.loading && notice)
        await tx.query("select pg_notify($1, $2)", [ALERTS_CHANNEL, JSON.stringify(notice)]);
    }
  },
};

/**
 * A change that is no alert of its own is told to nobody (contract F.3 as amended: not in the
 * stream), except as an update of the critical alert that carries it, when that one is there.
 */
async function carrierNotice(
  tx: Tx,
  tenant: string,
  handledAs: DeltaHandling,
  externalId: string,
  code: string,
): Promise<AlertNotice | null> {
  if (handledAs !== "critical") return null;
  const { rows } = await tx.query<{ alert_id: string }>(
    "select alert_id from alerts where tenant = $1 and external_id = $2 and code = $3 and kind = 'CRITICAL' order by raised_at desc limit 1",
    [tenant, externalId, code],
  );
  return rows[0] ? { tenant, alertId: rows[0].alert_id, change: "updated" } : null;
}

const CHANGES = {
  CriticalResultRaised: "raised",
  CriticalResultClosed: "closed",
  CriticalResultAcknowledged: "acknowledged",
  DeltaAlertRaised: "raised",
  DeltaAlertClosed: "closed",
  AlertEscalationScheduled: "updated",
  AlertNotified: "updated",
  AlertReadBackRefused: "updated",
} as const satisfies Record<CriticalResultEvent["type"], AlertNotice["change"]>;

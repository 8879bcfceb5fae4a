import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTime, localIsoDateTimeText, storedMomentText } from "../../db/localDateTime.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { itemNamesOf } from "../dictionary/itemNames.ts";

export const ALERT_KINDS = ["CRITICAL", "DELTA"] as const;
/** Why a result is alerted on (decision 0073): one alert of a result may have both reasons. */
export const ALERT_REASONS = ["critical", "delta"] as const;
/** alert: to acknowledge; info: a change back inside the reference range, shown with nothing to acknowledge (contract F.3 as amended). */
export const ALERT_SEVERITIES = ["alert", "info"] as const;

/** Contract F.3: what a DELTA alert's result moved from. */
export const alertDeltaSchema = z.object({
  previous: z.number().meta({ description: "The patient's previous result of the item, in the standard unit" }),
  previousAt: localIsoDateTimeText.meta({ description: "When the previous result was collected, else reported" }),
  change: z.number().meta({ description: "value − previous, signed, in the standard unit", example: 1.8 }),
  previousExternalId: z.string().meta({ description: "The report the previous result belongs to" }),
  limit: z.object({ limit: z.number(), percent: z.boolean(), days: z.int() }).meta({
    description:
      "The dictionary's delta limit the change exceeded: in the standard unit, or in % of the previous value; within days",
  }),
});

/** Contract G.3: one target of one step of an alert's escalation, by its last attempt. */
export const alertNotificationSchema = z.object({
  step: z.int().min(1).meta({ description: "The step of the escalation, 1 the first" }),
  channel: z.enum(["email", "webhook"]),
  to: z.string().meta({ description: "The mail address or the webhook's URL" }),
  at: localIsoDateTimeText.meta({ description: "When the last attempt was recorded" }),
  outcome: z.enum(["sent", "retrying", "failed"]).meta({
    description:
      "sent: taken by the SMTP server or the receiver; retrying: refused or unanswered, tried again later; failed: every attempt was",
  }),
  attempts: z.int().min(1),
  reason: z.string().optional().meta({
    description: "Why the last attempt failed: the SMTP server's or the receiver's answer",
    example: "421 4.3.2 Service not available",
  }),
});

/** Contract D.7: a critical-result alert as listed, streamed and sent to the webhook; F.3 adds its kind, and delta alerts. */
export const alertSchema = z.object({
  alertId: z.string(),
  kind: z.enum(ALERT_KINDS).meta({
    description:
      "CRITICAL: a critical result (D.7); DELTA: a result that moved from the patient's previous one beyond " +
      "the dictionary's delta limit (F.3). A result both critical and beyond its delta limit is one CRITICAL " +
      "alert whose reasons hold both",
  }),
  reasons: z.array(z.enum(ALERT_REASONS)).meta({
    description:
      'Why the result is alerted on, the kind\'s own reason first: ["critical"], ["delta"], or ["critical", ' +
      '"delta"] for a critical result that also moved beyond its delta limit (acknowledged once)',
    example: ["critical", "delta"],
  }),
  severity: z.enum(ALERT_SEVERITIES).meta({
    description:
      "alert: to acknowledge; info: a DELTA whose value came back inside the reference range from a previous " +
      "one outside it (a return towards normal), listed under state=info, never in the open list, the count, " +
      "the stream or the webhook",
  }),
  patientRef: z.string(),
  patientName: z.string().nullable(),
  code: z.string().meta({ description: "The standard item code (the sender's code for an item the dictionary lacks)" }),
  name: z
    .string()
    .meta({ description: "The item's Chinese name (the sender's item name for an item the dictionary lacks)" }),
  nameEn: z
    .string()
    .nullable()
    .meta({ description: "The item's English name; null for an item the dictionary lacks", example: "Potassium" }),
  label: z.string().nullable().meta({
    description: "The short clinical label staff know the item by; null for an item the dictionary lacks",
    example: "K",
  }),
  value: z
    .union([z.number(), z.string()])
    .meta({ description: "In the standard unit when the item is mapped and numeric, else as sent" }),
  unit: z.string().nullable(),
  flag: z.string().nullable().meta({ description: "The laboratory's abnormal flag, as sent" }),
  reason: z.string().meta({
    description: "Why the result is critical, or how far it moved",
    example: "above the critical limit 6.2 mmol/L",
  }),
  externalId: z.string().meta({ description: "The report the result belongs to" }),
  collectedAt: localIsoDateTimeText.nullable(),
  raisedAt: localIsoDateTimeText,
  acknowledgedAt: localIsoDateTimeText.optional(),
  acknowledgedBy: z.string().optional(),
  note: z.string().optional(),
  closedAt: localIsoDateTimeText
    .optional()
    .meta({ description: "When an update of the report no longer held the critical value" }),
  closedReason: z.string().optional(),
  notifications: z.array(alertNotificationSchema).meta({
    description:
      "Contract G.3: each step's target of the alert's escalation, by its last attempt, in the order of the steps; empty when nobody was told by mail or webhook",
  }),
  overdue: z.boolean().meta({
    description:
      "Contract G.3: the last step of the alert's escalation is due and nobody acknowledged the alert (nor did an update close it)",
  }),
  notified: z
    .object({ name: z.string(), role: z.string() })
    .optional()
    .meta({ description: "Whom the person acknowledging told of the value, as they named them (contract G.3)" }),
  readBack: z
    .object({ value: z.union([z.number(), z.string()]), matched: z.literal(true) })
    .optional()
    .meta({ description: "The value read back when acknowledging, which matched the alert's (contract G.3)" }),
  delta: alertDeltaSchema.optional().meta({
    description:
      "DELTA alerts, and CRITICAL alerts whose result also moved beyond its delta limit: the previous result and the change from it",
  }),
});
export type Alert = z.infer<typeof alertSchema>;

export const ALERT_STATES = ["open", "acknowledged", "closed", "info"] as const;
export type AlertState = (typeof ALERT_STATES)[number];
export type AlertKind = (typeof ALERT_KINDS)[number];

/**
 * Which alerts a state lists, and in which order (newest first by the moment that put it there).
 * A change carried by a critical alert is listed only there; information only under `info`, while
 * it stands (decision 0073).
 */
const STATES: Record<AlertState, { where: string; at: string }> = {
  open: { where: "a.acknowledged_at is null and a.closed_at is null and a.handled_as is null", at: "a.raised_at" },
  acknowledged: { where: "a.acknowledged_at is not null and a.handled_as is null", at: "a.acknowledged_at" },
  closed: {
    where: "a.closed_at is not null and a.acknowledged_at is null and a.handled_as is null",
    at: "a.closed_at",
  },
  info: { where: "a.handled_as = 'info' and a.closed_at is null", at: "a.raised_at" },
};

/** Where a page of the list ends: the moment that put its last alert there (as PostgreSQL writes it), and that alert. */
export const alertListKey = z.tuple([storedMomentText, z.string().max(200)]);
export type AlertListKey = z.infer<typeof alertListKey>;

// Moments (timestamptz) are written in the service's zone by Node, as everywhere in /api; the
// collection time is a local time already.
const ALERT_COLUMNS = `a.alert_id, a.patient_ref, p.name as patient_name, a.code, a.name, a.value_num, a.value_text, a.unit, a.flag, a.reason, a.external_id,
  to_char(a.collected_at, 'YYYY-MM-DD"T"HH24:MI:SS') as collected_at, a.raised_at, a.acknowledged_at, a.acknowledged_by, a.note, a.closed_at, a.closed_reason,
  a.kind, a.handled_as, coalesce(c.previous, a.previous) as previous,
  to_char(coalesce(c.previous_at, a.previous_at), 'YYYY-MM-DD"T"HH24:MI:SS') as previous_at,
  coalesce(c.previous_external_id, a.previous_external_id) as previous_external_id, coalesce(c.change, a.change) as change,
  coalesce(c.delta_limit, a.delta_limit) as delta_limit, c.alert_id is not null as carries_delta,
  a.notifications, a.notified, a.read_back,
  coalesce(a.escalation_due_at <= now() and a.acknowledged_at is null and a.closed_at is null, false) as overdue`;

/**
 * The alerts with their patients, and for a critical alert the change of its result that it
 * carries (a standing DELTA of the same report and item handled as "critical", decision 0073).
 */
const ALERTS_FROM = `read.alerts a left join read.patients p on p.patient_ref = a.patient_ref
  left join lateral (
    select d.alert_id, d.previous, d.previous_at, d.previous_external_id, d.change, d.delta_limit from read.alerts d
    where a.kind = 'CRITICAL' and d.tenant = a.tenant and d.external_id = a.external_id and d.code = a.code
      and d.handled_as = 'critical' and d.closed_at is null
    order by d.raised_at desc limit 1
  ) c on true`;

interface AlertRow {
  alert_id: string;
  patient_ref: string;
  patient_name: string | null;
  code: string;
  name: string;
  value_num: number | null;
  value_text: string | null;
  unit: string | null;
  flag: string | null;
  reason: string;
  external_id: string;
  collected_at: string | null;
  raised_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  note: string | null;
  closed_at: Date | null;
  closed_reason: string | null;
  kind: AlertKind;
  handled_as: "critical" | "info" | null;
  carries_delta: boolean;
  previous: number | null;
  previous_at: string | null;
  previous_external_id: string | null;
  change: number | null;
  delta_limit: { limit: number; percent: boolean; days: number } | null;
  notifications: Array<Omit<AlertNotification, "at"> & { target: number; at: string; reason: string | null }>;
  notified: { name: string; role: string } | null;
  read_back: { value: number | string; matched: true } | null;
  overdue: boolean;
}

type AlertNotification = z.infer<typeof alertNotificationSchema>;

/** The notifications in the order of the steps and their targets; moments in the service's time, as every moment of /api. */
function notificationsOf(row: AlertRow): AlertNotification[] {
  return [...row.notifications]
    .sort((a, b) => a.step - b.step || a.target - b.target)
    .map(({ step, channel, to, at, outcome, attempts, reason }) => ({
      step,
      channel,
      to,
      at: localIsoDateTime(new Date(at)),
      outcome,
      attempts,
      ...(reason ? { reason } : {}),
    }));
}

/**
 * The alert as answered. Its item's English name and label come from the dictionary in force (the
 * alert's event keeps the Chinese name it was raised with), so that alerts raised before there were
 * labels have them too, with no replay.
 */
function toAlert(row: AlertRow, dictionary: Dictionary): Alert {
  const names = itemNamesOf(dictionary, row.code);
  return {
    alertId: row.alert_id,
    kind: row.kind,
    reasons: row.kind === "DELTA" ? ["delta"] : row.carries_delta ? ["critical", "delta"] : ["critical"],
    severity: row.handled_as === "info" ? "info" : "alert",
    patientRef: row.patient_ref,
    patientName: row.patient_name,
    code: row.code,
    name: row.name,
    nameEn: names?.nameEn ?? null,
    label: names?.label ?? null,
    value: row.value_num ?? row.value_text ?? "",
    unit: row.unit,
    flag: row.flag,
    reason: row.reason,
    externalId: row.external_id,
    collectedAt: row.collected_at,
    raisedAt: localIsoDateTime(row.raised_at),
    ...(row.acknowledged_at
      ? {
          acknowledgedAt: localIsoDateTime(row.acknowledged_at),
          acknowledgedBy: row.acknowledged_by ?? "",
          note: row.note ?? "",
        }
      : {}),
    ...(row.closed_at ? { closedAt: localIsoDateTime(row.closed_at), closedReason: row.closed_reason ?? "" } : {}),
    notifications: notificationsOf(row),
    overdue: row.overdue,
    ...(row.notified ? { notified: row.notified } : {}),
    ...(row.read_back ? { readBack: row.read_back } : {}),
    ...(row.kind === "DELTA" || row.carries_delta ? { delta: deltaOf(row) } : {}),
  };
}

function deltaOf(row: AlertRow): z.infer<typeof alertDeltaSchema> {
  return {
    previous: row.previous!,
    previousAt: row.previous_at!,
    change: row.change!,
    previousExternalId: row.previous_external_id!,
    limit: row.delta_limit!,
  };
}

/** A page of the alerts of a state, newest first, after `after`; `kind` absent: alerts of both kinds. */
export async function listAlerts(
  reader: TenantReader,
  dictionary: Dictionary,
  state: AlertState,
  { limit, after = null, kind }: { limit: number; after?: AlertListKey | null; kind?: AlertKind },
): Promise<Array<Alert & { key: AlertListKey }>> {
  const { where, at } = STATES[state];
  const { rows } = await reader.query<AlertRow & { at_key: string }>(
    `select ${ALERT_COLUMNS}, ${at}::text as at_key from ${ALERTS_FROM}
     where ${where} and ($2::text is null or a.kind = $2)
       and ($3::timestamptz is null or ${at} < $3 or (${at} = $3 and a.alert_id > $4))
     order by ${at} desc, a.alert_id limit $1`,
    [limit, kind ?? null, after?.[0] ?? null, after?.[1] ?? null],
  );
  return rows.map((row) => ({ ...toAlert(row, dictionary), key: [row.at_key, row.alert_id] }));
}

export async function alertById(
  reader: TenantReader,
  dictionary: Dictionary,
  alertId: string,
): Promise<Alert | undefined> {
  const { rows } = await reader.query<AlertRow>(`select ${ALERT_COLUMNS} from ${ALERTS_FROM} where a.alert_id = $1`, [
    alertId,
  ]);
  return rows.map((row) => toAlert(row, dictionary))[0];
}

/**
 * How many alerts wait to be acknowledged (the open list: neither acknowledged nor closed, no
 * change carried by a critical alert, no information), and how many of them are of each kind: the
 * badge on every staff page and the counts on the alerts page's tabs, which so always add up.
 */
export async function openAlertCount(reader: TenantReader): Promise<{ open: number; critical: number; delta: number }> {
  const { rows } = await reader.query<{ open: number; critical: number; delta: number }>(
    `select count(*)::int as open, (count(*) filter (where a.kind = 'CRITICAL'))::int as critical,
            (count(*) filter (where a.kind = 'DELTA'))::int as delta
     from read.alerts a where ${STATES.open.where}`,
  );
  return rows[0]!;
}

/** Where a page of a patient's alerts ends: when it was raised (as PostgreSQL writes it), the alert. */
export type PatientAlertKey = [string, string];

/**
 * A page of one patient's alerts of every state and kind, oldest raised first, after `after`
 * (a patient's copy, contract G.1); `limit` of them. A change carried by a critical alert is in that
 * alert, as the list shows it.
 */
export async function patientAlerts(
  reader: TenantReader,
  dictionary: Dictionary,
  patientRef: string,
  after: PatientAlertKey | null,
  limit: number,
): Promise<{ alerts: Alert[]; next: PatientAlertKey | null }> {
  const { rows } = await reader.query<AlertRow & { at_key: string }>(
    `select ${ALERT_COLUMNS}, a.raised_at::text as at_key from ${ALERTS_FROM}
     where a.patient_ref = $1 and a.handled_as is distinct from 'critical' and ($2::timestamptz is null
       or (a.raised_at, a.alert_id) > ($2::timestamptz, $3::text))
     order by a.raised_at, a.alert_id limit $4::int`,
    [patientRef, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  const last = rows.at(-1);
  return {
    alerts: rows.map((row) => toAlert(row, dictionary)),
    next: rows.length === limit && last ? [last.at_key, last.alert_id] : null,
  };
}

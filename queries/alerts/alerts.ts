import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { itemNamesOf } from "../dictionary/itemNames.ts";

/** Contract D.7: a critical-result alert as listed, streamed and sent to the webhook. */
export const alertSchema = z.object({
  alertId: z.string(),
  patientRef: z.string(),
  patientName: z.string().nullable(),
  code: z.string().meta({ description: "The standard item code (the sender's code for an item the dictionary lacks)" }),
  name: z.string().meta({ description: "The item's Chinese name (the sender's item name for an item the dictionary lacks)" }),
  nameEn: z.string().nullable().meta({ description: "The item's English name; null for an item the dictionary lacks", example: "Potassium" }),
  label: z.string().nullable().meta({ description: "The short clinical label staff know the item by; null for an item the dictionary lacks", example: "K" }),
  value: z.union([z.number(), z.string()]).meta({ description: "In the standard unit when the item is mapped and numeric, else as sent" }),
  unit: z.string().nullable(),
  flag: z.string().nullable().meta({ description: "The laboratory's abnormal flag, as sent" }),
  reason: z.string().meta({ description: "Why the result is critical", example: "above the critical limit 6.2 mmol/L" }),
  externalId: z.string().meta({ description: "The report the result belongs to" }),
  collectedAt: localIsoDateTimeText.nullable(),
  raisedAt: localIsoDateTimeText,
  acknowledgedAt: localIsoDateTimeText.optional(),
  acknowledgedBy: z.string().optional(),
  note: z.string().optional(),
  closedAt: localIsoDateTimeText.optional().meta({ description: "When an update of the report no longer held the critical value" }),
  closedReason: z.string().optional(),
});
export type Alert = z.infer<typeof alertSchema>;

export const ALERT_STATES = ["open", "acknowledged", "closed"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** Which alerts a state lists, and in which order (newest first by the moment that put it there). */
const STATES: Record<AlertState, { where: string; order: string }> = {
  open: { where: "a.acknowledged_at is null and a.closed_at is null", order: "a.raised_at desc" },
  acknowledged: { where: "a.acknowledged_at is not null", order: "a.acknowledged_at desc" },
  closed: { where: "a.closed_at is not null and a.acknowledged_at is null", order: "a.closed_at desc" },
};

// Moments (timestamptz) are written in the service's zone by Node, as everywhere in /api; the
// collection time is a local time already.
const ALERT_COLUMNS = `a.alert_id, a.patient_ref, p.name as patient_name, a.code, a.name, a.value_num, a.value_text, a.unit, a.flag, a.reason, a.external_id,
  to_char(a.collected_at, 'YYYY-MM-DD"T"HH24:MI:SS') as collected_at, a.raised_at, a.acknowledged_at, a.acknowledged_by, a.note, a.closed_at, a.closed_reason`;

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
    ...(row.acknowledged_at ? { acknowledgedAt: localIsoDateTime(row.acknowledged_at), acknowledgedBy: row.acknowledged_by ?? "", note: row.note ?? "" } : {}),
    ...(row.closed_at ? { closedAt: localIsoDateTime(row.closed_at), closedReason: row.closed_reason ?? "" } : {}),
  };
}

export async function listAlerts(reader: TenantReader, dictionary: Dictionary, state: AlertState, limit: number): Promise<Alert[]> {
  const { where, order } = STATES[state];
  const { rows } = await reader.query<AlertRow>(
    `select ${ALERT_COLUMNS} from read.alerts a left join read.patients p on p.patient_ref = a.patient_ref where ${where} order by ${order}, a.alert_id limit $1`,
    [limit],
  );
  return rows.map((row) => toAlert(row, dictionary));
}

export async function alertById(reader: TenantReader, dictionary: Dictionary, alertId: string): Promise<Alert | undefined> {
  const { rows } = await reader.query<AlertRow>(`select ${ALERT_COLUMNS} from read.alerts a left join read.patients p on p.patient_ref = a.patient_ref where a.alert_id = $1`, [alertId]);
  return rows.map((row) => toAlert(row, dictionary))[0];
}

/** How many alerts stand (neither acknowledged nor closed): the badge on every staff page. */
export async function openAlertCount(reader: TenantReader): Promise<number> {
  const { rows } = await reader.query<{ n: number }>(`select count(*)::int as n from read.alerts a where ${STATES.open.where}`);
  return rows[0]!.n;
}

import { z } from "zod";
import { PENDING_CODES, pendingCodeOf } from "../../commands/ingestion/events.ts";
import { maskIdCard } from "../../commands/patients/events.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";

/** Contract C.4: a report awaiting claim. */
export const unmatchedEntrySchema = z.object({
  kind: z.enum(["lab", "exam"]),
  externalId: z.string(),
  reportNo: z.string().nullable(),
  patient: z.object({
    name: z.string().nullable(),
    idCard: z.string().nullable().meta({ description: "Masked: first 6 and last 4 kept", example: "110101********1234" }),
    hisPatientId: z.string().nullable(),
  }),
  pendingReason: z.string(),
  pendingCode: z
    .enum(PENDING_CODES)
    .nullable()
    .meta({ description: "The reason as a stable code, for pages to translate: no-id-card, invalid-id-card, no-patient, name-differs; null for a reason written by an older version (then `pendingReason` is the text)", example: "no-patient" }),
  receivedAt: localIsoDateTimeText,
});
export type UnmatchedEntry = z.infer<typeof unmatchedEntrySchema>;

/** Where a row of the queue stands in its order: received at (exactly, as PostgreSQL writes it), externalId, kind. */
export const unmatchedKey = z.tuple([
  // timestamptz as PostgreSQL writes it: a cursor is sent back by callers, so it is checked before SQL casts it.
  z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/),
  z.string().max(200),
  z.enum(["lab", "exam"]),
]);
export type UnmatchedKey = z.infer<typeof unmatchedKey>;

/**
 * Reports awaiting claim, oldest first; id cards masked. `limit` rows after `after` when given
 * (the caller asks one more than it answers, to know whether more remain).
 */
export async function unmatchedQueue(reader: TenantReader, { limit = null, after = null }: { limit?: number | null; after?: UnmatchedKey | null } = {}): Promise<Array<UnmatchedEntry & { key: UnmatchedKey }>> {
  const { rows } = await reader.query(
    `select * from (
       select 'lab' as kind, external_id, report_no, patient_name, id_card, his_patient_id, pending_reason, received_at, received_at::text as received_at_key
         from read.lab_reports where not matched and dismissed_at is null
       union all
       select 'exam', external_id, report_no, patient_name, id_card, his_patient_id, pending_reason, received_at, received_at::text
         from read.exam_reports where not matched and dismissed_at is null
     ) queue
     where $1::timestamptz is null or (received_at, external_id, kind) > ($1::timestamptz, $2::text, $3::text)
     order by received_at, external_id, kind
     limit $4::int`,
    [after?.[0] ?? null, after?.[1] ?? null, after?.[2] ?? null, limit],
  );
  return rows.map((row) => ({
    key: [row.received_at_key, row.external_id, row.kind],
    kind: row.kind,
    externalId: row.external_id,
    reportNo: row.report_no,
    patient: { name: row.patient_name, idCard: row.id_card ? maskIdCard(row.id_card) : null, hisPatientId: row.his_patient_id },
    pendingReason: row.pending_reason,
    pendingCode: pendingCodeOf(row.pending_reason),
    receivedAt: localIsoDateTime(row.received_at),
  }));
}

import { z } from "zod";
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
  receivedAt: localIsoDateTimeText,
});
export type UnmatchedEntry = z.infer<typeof unmatchedEntrySchema>;

/** Reports awaiting claim, oldest first; id cards masked. */
export async function unmatchedQueue(reader: TenantReader): Promise<UnmatchedEntry[]> {
  const { rows } = await reader.query(
    `select 'lab' as kind, external_id, report_no, patient_name, id_card, his_patient_id, pending_reason, received_at
       from read.lab_reports where not matched and dismissed_at is null
     union all
     select 'exam', external_id, report_no, patient_name, id_card, his_patient_id, pending_reason, received_at
       from read.exam_reports where not matched and dismissed_at is null
     order by received_at, external_id`,
  );
  return rows.map((row) => ({
    kind: row.kind,
    externalId: row.external_id,
    reportNo: row.report_no,
    patient: { name: row.patient_name, idCard: row.id_card ? maskIdCard(row.id_card) : null, hisPatientId: row.his_patient_id },
    pendingReason: row.pending_reason,
    receivedAt: localIsoDateTime(row.received_at),
  }));
}

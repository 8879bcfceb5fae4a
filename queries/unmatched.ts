import { maskIdCard } from "../commands/patients/nationalId.ts";
import type { TenantReader } from "../db/tenantScope.ts";
import { localIsoDateTime } from "./localDateTime.ts";

export interface UnmatchedEntry {
  kind: "lab" | "exam";
  externalId: string;
  reportNo: string | null;
  patient: { name: string | null; idCard: string | null; hisPatientId: string | null };
  pendingReason: string;
  receivedAt: string;
}

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

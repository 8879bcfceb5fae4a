import { maskIdCard } from "../commands/patients/nationalId.ts";
import type { TenantReader } from "../db/tenantScope.ts";

export interface PatientListEntry {
  patientRef: string;
  name: string;
  idCard: string;
  hisPatientId: string | null;
  ward: string | null;
  active: boolean;
}

/** The tenant's patients, id cards masked (first 6 and last 4 kept). */
export async function listPatients(reader: TenantReader): Promise<PatientListEntry[]> {
  const { rows } = await reader.query(
    "select patient_ref, name, id_card, his_patient_id, ward, active from read.patients order by patient_ref",
  );
  return rows.map((row) => ({
    patientRef: row.patient_ref,
    name: row.name,
    idCard: maskIdCard(row.id_card),
    hisPatientId: row.his_patient_id,
    ward: row.ward,
    active: row.active,
  }));
}

export interface RegisteredPatient {
  patientRef: string;
  name: string;
  idCard: string;
}

/** Patients holding any of these (normalised) id cards, for matching reports and for uniqueness. */
export async function patientsByIdCards(reader: TenantReader, idCards: readonly string[]): Promise<RegisteredPatient[]> {
  if (idCards.length === 0) return [];
  const { rows } = await reader.query("select patient_ref, name, id_card from read.patients where id_card = any($1::text[])", [idCards]);
  return rows.map((row) => ({ patientRef: row.patient_ref, name: row.name, idCard: row.id_card }));
}

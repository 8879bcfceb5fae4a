import type { TenantReader } from "../../db/tenantScope.ts";

/**
 * What names a patient in a report's answer (contract E.4, issue #51): their patientRef, their
 * name and their HIS id, each mapped to the patients it may name (two patients may share a name).
 * Read under the request's ward scope, so a value can only ever name a patient the caller may see:
 * a literal naming another ward's patient names nobody.
 */
export type PatientIdentifiers = ReadonlyMap<string, readonly string[]>;

export async function patientIdentifiers(reader: TenantReader): Promise<PatientIdentifiers> {
  const { rows } = await reader.query("select patient_ref, name, his_patient_id from read.patients");
  const named = new Map<string, string[]>();
  const add = (value: unknown, patientRef: string) => {
    if (typeof value !== "string") return;
    const text = value.trim();
    if (text === "") return;
    const refs = named.get(text);
    if (!refs) named.set(text, [patientRef]);
    else if (!refs.includes(patientRef)) refs.push(patientRef);
  };
  for (const row of rows) {
    add(row.patient_ref, row.patient_ref);
    add(row.name, row.patient_ref);
    add(row.his_patient_id, row.patient_ref);
  }
  return named;
}

import { maskIdCard, normaliseIdCard } from "../../commands/patients/events.ts";
import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";

/** Contract C.4: a dialysis patient as listed. */
export const patientListEntrySchema = z.object({
  patientRef: z.string(),
  name: z.string(),
  idCard: z.string().meta({ description: "Masked: first 6 and last 4 kept", example: "110101********1234" }),
  hisPatientId: z.string().nullable(),
  ward: z.string().nullable(),
  active: z.boolean(),
});
export type PatientListEntry = z.infer<typeof patientListEntrySchema>;

/**
 * What a search text matches (`GET /api/patients?q=`), case-insensitively:
 * - a part of the name, whitespace ignored (`张 三` finds 张三), of the patientRef or of the hisPatientId;
 * - a part of the id card as the list shows it masked (`110105********002X`, `002X`), so only the
 *   digits anyone can see already are searchable: the hidden ones cannot be probed one at a time;
 * - the whole id card, for someone holding the card.
 * `strpos`, not LIKE: a `%` or `_` typed by a person is a character, not a wildcard. Its values
 * are $3 to $5: $1 and $2 are the page's (listPatients).
 */
const SEARCH_CONDITION = `(
     strpos(lower(regexp_replace(name, '\\s', '', 'g')), lower($3)) > 0
  or strpos(lower(patient_ref), lower($4)) > 0
  or strpos(lower(coalesce(his_patient_id, '')), lower($4)) > 0
  or strpos(left(id_card, 6) || '********' || right(id_card, 4), $5) > 0
  or id_card = $5)`;

const LIST_COLUMNS = "patient_ref, name, id_card, his_patient_id, ward, active";

/**
 * The tenant's patients by patientRef, id cards masked (first 6 and last 4 kept); only those
 * matching `search` when given; `limit` of them after the patientRef `after` when given.
 */
export async function listPatients(
  reader: TenantReader,
  search?: string,
  { limit = null, after = null }: { limit?: number | null; after?: string | null } = {},
): Promise<PatientListEntry[]> {
  const text = search?.trim() ?? "";
  const { rows } = await reader.query<PatientRow>(
    `select ${LIST_COLUMNS} from read.patients
     where ($1::text is null or patient_ref > $1) ${text ? `and ${SEARCH_CONDITION}` : ""}
     order by patient_ref limit $2::int`,
    [after, limit, ...(text ? [text.replace(/\s+/g, ""), text, normaliseIdCard(text)] : [])],
  );
  return rows.map(listEntry);
}

/** One patient as the list shows it, or undefined when the tenant has none by that reference. */
export async function patientByRef(reader: TenantReader, patientRef: string): Promise<PatientListEntry | undefined> {
  const { rows } = await reader.query<PatientRow>(`select ${LIST_COLUMNS} from read.patients where patient_ref = $1`, [
    patientRef,
  ]);
  return rows.map(listEntry)[0];
}

/** Whether the reader sees this patient (the tenant's, within the caller's wards: db/wardScope.ts). */
export async function patientVisible(reader: TenantReader, patientRef: string): Promise<boolean> {
  const { rowCount } = await reader.query("select 1 from read.patients where patient_ref = $1", [patientRef]);
  return (rowCount ?? 0) > 0;
}

/** A row of read.patients as the patient reads select it. */
export interface PatientRow {
  patient_ref: string;
  name: string;
  id_card: string;
  his_patient_id: string | null;
  ward: string | null;
  active: boolean;
}

function listEntry(row: PatientRow): PatientListEntry {
  return {
    patientRef: row.patient_ref,
    name: row.name,
    idCard: maskIdCard(row.id_card),
    hisPatientId: row.his_patient_id,
    ward: row.ward,
    active: row.active,
  };
}

export interface RegisteredPatient {
  patientRef: string;
  name: string;
  idCard: string;
}

/** Patients holding any of these (normalised) id cards, for matching reports and for uniqueness. */
export async function patientsByIdCards(
  reader: TenantReader,
  idCards: readonly string[],
): Promise<RegisteredPatient[]> {
  if (idCards.length === 0) return [];
  const { rows } = await reader.query(
    "select patient_ref, name, id_card from read.patients where id_card = any($1::text[])",
    [idCards],
  );
  return rows.map((row) => ({ patientRef: row.patient_ref, name: row.name, idCard: row.id_card }));
}

/** The wards the reader's patients are in (contract G.1: a snapshot is frozen for each). */
export async function wardsOfPatients(reader: TenantReader): Promise<string[]> {
  const { rows } = await reader.query("select distinct ward from read.patients where ward is not null order by ward");
  return rows.map((row) => row.ward as string);
}

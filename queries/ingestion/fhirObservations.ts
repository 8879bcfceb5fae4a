import type { TenantReader } from "../../db/tenantScope.ts";
import { formulasInForce, patientDerivedValues, type DerivedInput } from "../patients/derivedResults.ts";

/** A result item as FHIR serves it: one row of read.lab_results with its report's status. */
export interface ObservationRow {
  external_id: string;
  item_index: number;
  patient_ref: string | null;
  item_code: string | null;
  item_name: string | null;
  std_code: string | null;
  std_name: string | null;
  value_num: number | null;
  value_text: string | null;
  unit: string | null;
  std_value: number | null;
  std_unit: string | null;
  ref_low: number | null;
  ref_high: number | null;
  abnormal_flag: string | null;
  result_type: string | null;
  effective_at: string;
  /** Null for a derived value: it is not a laboratory's report. */
  reported_at: string | null;
  status: string | null;
  /** Of a value the service derived (contract F.2): its formula and the results it read; else absent. */
  derived?: { name: string; version: number; expression: string; inputs: DerivedInput[] };
}

const OBSERVATION_COLUMNS = `r.external_id, r.item_index, r.patient_ref, r.item_code, r.item_name, r.std_code, r.std_name, r.value_num, r.value_text, r.unit,
            r.std_value, r.std_unit, r.ref_low, r.ref_high, r.abnormal_flag, r.result_type,
            to_char(coalesce(r.collected_at, r.reported_at), 'YYYY-MM-DD"T"HH24:MI:SS') as effective_at,
            to_char(r.reported_at, 'YYYY-MM-DD"T"HH24:MI:SS') as reported_at, p.status`;

export interface ObservationSearch {
  patientRef: string;
  /** Standard item codes, or null for every item. */
  stdCodes: readonly string[] | null;
  /** Inclusive days (yyyy-MM-dd) of the result's effective time. */
  fromDay: string | null;
  toDay: string | null;
  count: number;
  /** The last row of the page before: (effective time, externalId, item index). */
  after: readonly [string, string, number] | null;
}

/**
 * A patient's results, newest first (by when the sample was collected, else reported), a page at a
 * time by keyset. The patient's rows of an item are found by lab_results_by_patient; the few
 * hundred of one patient and item are then filtered and sorted.
 */
export async function searchObservations(
  reader: TenantReader,
  search: ObservationSearch,
  derivedCodes: readonly string[],
): Promise<ObservationRow[]> {
  const [{ rows }, derived] = await Promise.all([
    reader.query<ObservationRow>(
      `select ${OBSERVATION_COLUMNS}
       from read.lab_results r
       join read.lab_reports p on p.tenant = r.tenant and p.external_id = r.external_id
       where r.patient_ref = $1
         and ($2::text[] is null or r.std_code = any($2::text[]))
         and ($3::date is null or coalesce(r.collected_on, r.reported_on) >= $3::date)
         and ($4::date is null or coalesce(r.collected_on, r.reported_on) <= $4::date)
         and ($5::timestamp is null
           or (coalesce(r.collected_at, r.reported_at), r.external_id collate "C", r.item_index) < ($5::timestamp, $6::text collate "C", $7::int))
       order by coalesce(r.collected_at, r.reported_at) desc, r.external_id collate "C" desc, r.item_index desc
       limit $8`,
      [
        search.patientRef,
        search.stdCodes,
        search.fromDay,
        search.toDay,
        search.after?.[0] ?? null,
        search.after?.[1] ?? null,
        search.after?.[2] ?? null,
        search.count,
      ],
    ),
    derivedObservations(reader, search, derivedCodes),
  ]);
  return [...rows, ...derived].sort(newestFirst).slice(0, search.count);
}

/**
 * The patient's derived values (contract F.2) the search asks for, after its cursor, as rows. A
 * derived value is paged as a row of the first report it read, numbered below every item of it
 * (-1 for the dictionary's first derived item, -2 for the next …): its place in the keyset order
 * is fixed and told apart from the day's other derived values.
 */
async function derivedObservations(
  reader: TenantReader,
  search: ObservationSearch,
  derivedCodes: readonly string[],
): Promise<ObservationRow[]> {
  const codes =
    search.stdCodes === null ? derivedCodes : derivedCodes.filter((code) => search.stdCodes!.includes(code));
  if (codes.length === 0) return [];
  const formulas = await formulasInForce(reader, null, codes);
  const values = await patientDerivedValues(reader, search.patientRef, formulas, search.fromDay, search.toDay);
  const rows = values.map((value): ObservationRow => ({
    external_id: value.inputs[0]!.externalId,
    item_index: -1 - derivedCodes.indexOf(value.stdCode),
    patient_ref: search.patientRef,
    item_code: null,
    item_name: null,
    std_code: value.stdCode,
    std_name: null,
    value_num: null,
    value_text: null,
    unit: null,
    std_value: value.value,
    std_unit: value.unit,
    ref_low: null,
    ref_high: null,
    abnormal_flag: null,
    result_type: null,
    effective_at: value.at,
    reported_at: null,
    status: "FINAL",
    derived: { ...value.formula, inputs: value.inputs },
  }));
  return search.after
    ? rows.filter(
        (row) =>
          newestFirst(row, {
            effective_at: search.after![0].replace(" ", "T"),
            external_id: search.after![1],
            item_index: search.after![2],
          }) > 0,
      )
    : rows;
}

/**
 * The search's order: effective time, externalId, item, each descending; times compare as their
 * text, externalIds by code point, as the query orders them (collate "C"), whatever the database's collation.
 */
function newestFirst(
  a: Pick<ObservationRow, "effective_at" | "external_id" | "item_index">,
  b: Pick<ObservationRow, "effective_at" | "external_id" | "item_index">,
): number {
  if (a.effective_at !== b.effective_at) return a.effective_at < b.effective_at ? 1 : -1;
  if (a.external_id !== b.external_id) return a.external_id < b.external_id ? 1 : -1;
  return b.item_index - a.item_index;
}

/** A lab report as FHIR serves it (DiagnosticReport), with its result rows in order. */
export interface ReportRow {
  external_id: string;
  patient_ref: string | null;
  panel_name: string | null;
  status: string | null;
  collected_at: string | null;
  reported_at: string;
  results: ObservationRow[];
}

export async function reportWithResults(reader: TenantReader, externalId: string): Promise<ReportRow | null> {
  const { rows } = await reader.query<Omit<ReportRow, "results">>(
    `select external_id, patient_ref, panel_name, status, to_char(collected_at, 'YYYY-MM-DD"T"HH24:MI:SS') as collected_at,
            to_char(reported_at, 'YYYY-MM-DD"T"HH24:MI:SS') as reported_at
     from read.lab_reports where external_id = $1`,
    [externalId],
  );
  if (!rows[0]) return null;
  const results = await reader.query<ObservationRow>(
    `select ${OBSERVATION_COLUMNS}
     from read.lab_results r join read.lab_reports p on p.tenant = r.tenant and p.external_id = r.external_id
     where r.external_id = $1 order by r.item_index`,
    [externalId],
  );
  return { ...rows[0], results: results.rows };
}

/** Registered patients by national id (FHIR Patient?identifier=). */
export async function patientsByIdCard(
  reader: TenantReader,
  idCard: string,
): Promise<
  Array<{ patient_ref: string; name: string; id_card: string; his_patient_id: string | null; active: boolean }>
> {
  const { rows } = await reader.query(
    "select patient_ref, name, id_card, his_patient_id, active from read.patients where id_card = $1 order by patient_ref",
    [idCard],
  );
  return rows;
}

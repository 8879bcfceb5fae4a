import type { TenantReader } from "../../db/tenantScope.ts";
import { monthBefore, type MonthFacts, type MonthValue } from "./monthFigures.ts";

/** A month of a tenant (ward null) or of one ward: `month` is yyyy-MM. */
export interface MonthScope {
  month: string;
  ward: string | null;
  /** One patient's month alone (the patient's month, contract G.2). */
  patientRef?: string;
}

/**
 * What the quality_months projection had applied when the facts were read: its last event of the
 * tenant (or a release), in the store's order (transaction, then position). A month closed on these facts names it, and the
 * events after it are those its restatement may name.
 */
export interface AppliedThrough {
  transactionId: string;
  position: number;
}

/**
 * A month's facts for the figures (monthFigures.ts), in one statement so that they are of one
 * moment: the patients under care (of the ward, as the patients are in it now, when one is named),
 * and their last values of `codes` in the month and the `windowMonths` - 1 before it (of one
 * patient, under care or not, when `scope` names one); with what the projection had applied then.
 * A month is read by its own rows (quality_reports_by_month and the values' key): the same work in
 * the first year as in the tenth.
 */
export async function readMonthFacts(
  reader: TenantReader,
  scope: MonthScope,
  codes: readonly string[],
  windowMonths: number,
): Promise<MonthFacts & { applied: AppliedThrough | null }> {
  const { rows } = await reader.query<{
    care: string[] | null;
    values: Array<Omit<MonthValue, "value"> & { value: number | null }> | null;
    applied_tx: string | null;
    applied_position: string | null;
  }>(
    `with care as (
       select distinct r.patient_ref from read.quality_reports r
       where r.month = $1::date and r.patient_ref is not null and ($5::text is null or r.patient_ref = $5)
         and ($2::text is null or exists (select 1 from read.patients p where p.patient_ref = r.patient_ref and p.ward = $2))
     ),
     month_values as (
       select v.std_code as "stdCode", to_char(v.month, 'YYYY-MM') as month, v.patient_ref as "patientRef", v.value, v.value_text as "valueText",
              to_char(v.at, 'YYYY-MM-DD"T"HH24:MI:SS') as at, v.external_ids as "externalIds", v.formula_version as "formulaVersion"
       from read.quality_values v
       where v.std_code = any($3::text[]) and v.month between $4::date and $1::date
         and ($5::text is null and v.patient_ref in (select patient_ref from care) or v.patient_ref = $5)
     )
     select (select array_agg(patient_ref order by patient_ref) from care) as care,
            (select json_agg(m) from month_values m) as values,
            (select tx::text from read.quality_applied) as applied_tx,
            (select position from read.quality_applied) as applied_position`,
    [
      `${scope.month}-01`,
      scope.ward,
      codes,
      `${monthBefore(scope.month, Math.max(windowMonths, 1) - 1)}-01`,
      scope.patientRef ?? null,
    ],
  );
  const row = rows[0]!;
  return {
    month: scope.month,
    underCare: row.care ?? [],
    values: row.values ?? [],
    applied: row.applied_tx === null ? null : { transactionId: row.applied_tx, position: Number(row.applied_position) },
  };
}

/** Whether a ward has or had patients in the tenant: a ward no patient names is a mistake in the call. */
export async function wardKnown(reader: TenantReader, ward: string): Promise<boolean> {
  const { rows } = await reader.query<{ known: boolean }>(
    "select exists (select 1 from read.patients where ward = $1) as known",
    [ward],
  );
  return rows[0]!.known;
}

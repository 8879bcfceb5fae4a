import type { Tx } from "../../db/pool.ts";
import { CLINICAL_TARGETS } from "./clinicalTargets.ts";

/*
 * What dashboards read instead of every item row (clinical.monthly_results, latest_results):
 * kept by the lab_results projection in the same transaction as the rows they summarise.
 *
 * - result_months: per month, ward and standard item, the matched numeric results: how many, of
 *   how many patients, their sum and how many fell below, within and above the clinical target.
 *   A month of a ward is some tens of rows where its item rows are thousands.
 * - latest_results: each patient's newest numeric result of each item.
 * - patient_wards: the patients' wards, as the lab_results projection has seen them.
 *
 * Both summaries are kept by difference (a batch costs what it holds, not what the store holds):
 * a set of item rows is added after it is written and taken away before it is rewritten or
 * removed. The ward is the patient's current one, as in clinical.lab_results: a patient who moves
 * takes their results along. Sums are numeric, so that adding and taking away leave no rounding
 * behind and a replay reaches the same figures whatever its batches.
 */

/** Fills std_targets (created by resultSummaries.sql) with the clinical targets of the default dictionary. */
export async function fillClinicalTargets(tx: Tx): Promise<void> {
  await tx.query(
    `insert into std_targets
     select code, low, high, source from json_to_recordset($1::json)
       as t(code text, low double precision, high double precision, source text)`,
    [JSON.stringify(CLINICAL_TARGETS)],
  );
}

/**
 * The first day of the month of a row's report day (lab_results aliased `alias`). Truncated as a
 * timestamp without time zone: the same day, without the time zone arithmetic a date's implicit
 * cast to timestamptz costs (about a second a scan of 4.5 M item rows).
 */
const monthOf = (alias: string) => `date_trunc('month', ${alias}.reported_on::timestamp)::date`;

/** Which item rows a change concerns, as a condition on a lab_results row aliased `r`, with its parameters. */
export interface RowScope {
  where: (alias: string) => string;
  params: unknown[];
}

export function reportsScope(tenants: string[], externalIds: string[]): RowScope {
  return {
    where: (a) => `(${a}.tenant, ${a}.external_id) in (select * from unnest($1::text[], $2::text[]))`,
    params: [tenants, externalIds],
  };
}

export function patientScope(tenant: string, patientRef: string): RowScope {
  return { where: (a) => `(${a}.tenant = $1 and ${a}.patient_ref = $2)`, params: [tenant, patientRef] };
}

/**
 * Adds (sign 1) or takes away (-1) the rows in scope from result_months, under the patients'
 * wards in patient_wards. A patient counts once in a month of an item: they are added or taken
 * away only when no row of theirs outside the scope holds that month and item
 * (lab_results_by_patient answers each such question with one probe).
 */
export async function shiftMonths(tx: Tx, sign: 1 | -1, scope: RowScope): Promise<void> {
  const ctes = monthShiftCtes(sign, {
    from: "lab_results",
    where: scope.where,
    outside: (o) => `not ${scope.where(o)}`,
  });
  await tx.query(`with ${ctes} select 1`, scope.params);
  if (sign < 0) await tx.query("delete from result_months where results = 0");
}

/** Item rows to count into the summaries: a relation of lab_results' columns, which of its rows, and which lab_results rows lie outside them. */
export interface SummarisedRows {
  /** A table or a CTE with lab_results' columns. */
  from: string;
  /** Which of its rows (aliased as given). */
  where: (alias: string) => string;
  /** Whether a lab_results row (aliased as given) lies outside them: the other rows a patient's month may already count. */
  outside: (alias: string) => string;
}

/**
 * shiftMonths' statement as common table expressions, the last of them (`shifted_months`) the
 * upsert, for a statement of its own or one that also makes the rows it counts (a re-mapping step,
 * whose probe of lab_results sees the rows as they were before it: none of them yet).
 */
export function monthShiftCtes(sign: 1 | -1, rows: SummarisedRows): string {
  return `rows as (
       select r.tenant, r.patient_ref, r.std_code, ${monthOf("r")} as month, r.std_value::numeric as value,
              r.std_value < t.low as below, r.std_value > t.high as above, t.code is not null as targeted
       from ${rows.from} r
       left join std_targets t on t.code = r.std_code
       where ${rows.where("r")} and r.patient_ref is not null and r.std_value is not null
     ),
     per_patient as (
       select tenant, patient_ref, std_code, month, count(*) as results, sum(value) as value_sum,
              count(*) filter (where below) as below, count(*) filter (where targeted and not coalesce(below or above, false)) as within,
              count(*) filter (where above) as above
       from rows
       group by tenant, patient_ref, std_code, month
     ),
     per_ward as (
       select p.tenant, p.std_code, p.month, w.ward, sum(p.results)::integer as results, sum(p.value_sum) as value_sum,
              sum(p.below)::integer as below, sum(p.within)::integer as within, sum(p.above)::integer as above,
              count(*) filter (where not exists (
                select 1 from lab_results o
                where o.tenant = p.tenant and o.patient_ref = p.patient_ref and o.std_code = p.std_code
                  and o.reported_on >= p.month and o.reported_on < (p.month + interval '1 month')::date
                  and o.std_value is not null and ${rows.outside("o")}
              ))::integer as patients
       from per_patient p
       left join patient_wards w on w.tenant = p.tenant and w.patient_ref = p.patient_ref
       group by p.tenant, p.std_code, p.month, w.ward
     ),
     shifted_months as (
       insert into result_months as m (tenant, std_code, month, ward, results, patients, value_sum, below_target, in_target, above_target)
       select tenant, std_code, month, ward, ${sign} * results, ${sign} * patients, ${sign} * value_sum, ${sign} * below, ${sign} * within, ${sign} * above
       from per_ward
       on conflict (tenant, std_code, month, ward) do update set
         results = m.results + excluded.results, patients = m.patients + excluded.patients, value_sum = m.value_sum + excluded.value_sum,
         below_target = m.below_target + excluded.below_target, in_target = m.in_target + excluded.in_target,
         above_target = m.above_target + excluded.above_target
       returning 1
     )`;
}

/**
 * result_months from every item row at once, into an empty table (a rebuild's finishLoad). The
 * same figures as shiftMonths, grouped otherwise. shiftMonths groups each patient's month of an
 * item first (its probe for rows outside the scope needs them): nearly one group a row, 21 M at
 * two million reports, which spilled gigabytes however they were hashed or sorted.
 *
 * Here the sums are grouped by ward and month directly (some thousands of groups). The patients
 * are counted from each patient's months, one group per patient and month holding which items
 * they had as the bits of a bigint (some ten times fewer groups than items, and narrow ones), read
 * back against the item codes numbered in the same statement (`codes`, from the sums' groups). The
 * ward is a patient's, so it is looked up per patient month, not per row.
 */
export async function countEveryMonth(tx: Tx): Promise<void> {
  await tx.query(
    `with sums as (
       select r.tenant, r.std_code, ${monthOf("r")} as month, w.ward, count(*) as results, sum(r.std_value::numeric) as value_sum,
              count(*) filter (where r.std_value < t.low) as below,
              count(*) filter (where t.code is not null and not coalesce(r.std_value < t.low or r.std_value > t.high, false)) as within,
              count(*) filter (where r.std_value > t.high) as above
       from lab_results r
       left join std_targets t on t.code = r.std_code
       left join patient_wards w on w.tenant = r.tenant and w.patient_ref = r.patient_ref
       where r.patient_ref is not null and r.std_value is not null
       group by r.tenant, r.std_code, month, w.ward
     ),
     codes as (
       select std_code, (row_number() over (order by std_code) - 1)::integer as n from (select distinct std_code from sums) c
     ),
     patient_months as (
       select r.tenant, r.patient_ref, ${monthOf("r")} as month, c.n / 64 as word, bit_or(1::bigint << (c.n % 64)) as items
       from lab_results r join codes c on c.std_code = r.std_code
       where r.patient_ref is not null and r.std_value is not null
       group by r.tenant, r.patient_ref, month, word
     )
     insert into result_months (tenant, std_code, month, ward, results, patients, value_sum, below_target, in_target, above_target)
     select tenant, std_code, month, ward, sum(results)::integer, sum(patients)::integer, sum(value_sum),
       sum(below)::integer, sum(within)::integer, sum(above)::integer
     from (
       select tenant, std_code, month, ward, results, 0 as patients, value_sum, below, within, above from sums
       union all
       select p.tenant, c.std_code, p.month, w.ward, 0, count(*), 0, 0, 0, 0
       from patient_months p
       join codes c on c.n / 64 = p.word and p.items & (1::bigint << (c.n % 64)) <> 0
       left join patient_wards w on w.tenant = p.tenant and w.patient_ref = p.patient_ref
       group by p.tenant, c.std_code, p.month, w.ward
     ) counted
     group by tenant, std_code, month, ward`,
  );
}

/**
 * latest_results from every item row at once, into an empty table (a rebuild's finishLoad): each
 * patient's last report time of each item found by hashing (a few hundred thousand groups), then
 * only the rows of that time ordered to break ties, instead of sorting every row as offerLatest
 * does (10.9 -> 3.9 s at 400,000 reports).
 */
export async function findEveryLatest(tx: Tx): Promise<void> {
  await tx.query(
    `with newest as (
       select tenant, patient_ref, std_code, max(reported_at) as reported_at
       from lab_results
       where patient_ref is not null and std_value is not null
       group by tenant, patient_ref, std_code
     )
     insert into latest_results
     select distinct on (tenant, patient_ref, std_code) tenant, patient_ref, std_code, std_value, reported_at, reported_on, external_id, item_index
     from lab_results join newest using (tenant, patient_ref, std_code, reported_at)
     where std_value is not null
     order by tenant, patient_ref, std_code, ${NEWEST_FIRST}`,
  );
}

/** The order that makes a result a patient's latest: reported last, then the greater external id and item. */
const NEWEST_FIRST = "reported_at desc, external_id desc, item_index desc";

/** Makes the rows in scope a patient's latest where they are newer than what latest_results holds. */
export async function offerLatest(tx: Tx, scope: RowScope): Promise<void> {
  await tx.query(`with ${latestOfferCte({ from: "lab_results", where: scope.where })} select 1`, scope.params);
}

/** offerLatest's upsert as a common table expression (`offered_latest`), for a statement that also makes the rows it offers. */
export function latestOfferCte(rows: Pick<SummarisedRows, "from" | "where">): string {
  return `offered_latest as (
       insert into latest_results as l
       select distinct on (tenant, patient_ref, std_code) tenant, patient_ref, std_code, std_value, reported_at, reported_on, external_id, item_index
       from ${rows.from} r
       where ${rows.where("r")} and r.patient_ref is not null and r.std_value is not null
       order by tenant, patient_ref, std_code, ${NEWEST_FIRST}
       on conflict (tenant, patient_ref, std_code) do update set
         std_value = excluded.std_value, reported_at = excluded.reported_at, reported_on = excluded.reported_on,
         external_id = excluded.external_id, item_index = excluded.item_index
       where (excluded.reported_at, excluded.external_id, excluded.item_index) > (l.reported_at, l.external_id, l.item_index)
       returning 1
     )`;
}

/** Patients and items whose latest result went with rows that changed or went. */
export type LostLatest = Array<{ tenant: string; patient_ref: string; std_code: string }>;

/**
 * Before the rows in scope change or go: forgets the latest results they hold, and returns which
 * patients and items lost one, to be found again (findLatest) once the change is written.
 */
export async function forgetLatest(tx: Tx, scope: RowScope): Promise<LostLatest> {
  const { rows } = await tx.query(
    `delete from latest_results l
     using lab_results r
     where ${scope.where("r")} and l.tenant = r.tenant and l.patient_ref = r.patient_ref and l.std_code = r.std_code
       and l.external_id = r.external_id and l.item_index = r.item_index
     returning l.tenant, l.patient_ref, l.std_code`,
    scope.params,
  );
  return rows;
}

/** Finds again the latest result of patients and items that lost theirs, where they have one left. */
export async function findLatest(tx: Tx, lost: LostLatest): Promise<void> {
  if (lost.length === 0) return;
  await tx.query(
    `insert into latest_results
     select k.tenant, k.patient_ref, k.std_code, r.std_value, r.reported_at, r.reported_on, r.external_id, r.item_index
     from unnest($1::text[], $2::text[], $3::text[]) as k(tenant, patient_ref, std_code)
     cross join lateral (
       select * from lab_results r
       where r.tenant = k.tenant and r.patient_ref = k.patient_ref and r.std_code = k.std_code and r.std_value is not null
       order by ${NEWEST_FIRST} limit 1
     ) r
     on conflict (tenant, patient_ref, std_code) do nothing`,
    [lost.map((k) => k.tenant), lost.map((k) => k.patient_ref), lost.map((k) => k.std_code)],
  );
}

import type pg from "pg";
import { derivationInputRow, DERIVED_ITEMS, formulaCodes, sqlText } from "./seed/derivedItems.ts";
import { formulaInputs, formulaSql, parseFormula } from "./seed/formulaExpression.ts";
import { boundedSql } from "./numberBounds.ts";
import { qualityMonthsSql } from "./qualityMonthsView.ts";
import { ensureResearchViews, RESEARCH_RELATIONS } from "./researchViews.ts";

export const REPORT_RUNNER_ROLE = "dh_report_runner";

/*
 * The relations of the `clinical` data source (contract C.5), exactly those columns. They read the
 * read models with the owner's rights and keep only the rows of the tenant that the service bound
 * to this connection (report_sessions, by backend pid and the server's start, as the clinical
 * source may be a replica); security_barrier keeps an author's function from seeing rows before
 * that filter. An unbound connection sees no rows.
 */
const THIS_CONNECTION = "s.pid = pg_backend_pid() and s.server_started = pg_postmaster_start_time()";
const TENANT_OF_THIS_CONNECTION = `(select s.tenant from public.report_sessions s where ${THIS_CONNECTION})`;
/*
 * Contract G.1: the wards of the caller this connection serves (null: every ward), bound beside the
 * tenant. A row of a patient outside them, or of no patient (an unmatched report), is not there for
 * a caller with wards; the filter sits inside each security_barrier view, below any condition of
 * the author's, so neither a function of theirs nor an error can see such a row.
 */
// The cast makes `= any(…)` read the array, not the rows of a subquery.
const WARDS_OF_THIS_CONNECTION = `(select s.wards from public.report_sessions s where ${THIS_CONNECTION})::text[]`;
/** True when a row whose patient's ward is `ward` is in this connection's scope. */
const inWardScope = (ward: string) =>
  `(${WARDS_OF_THIS_CONNECTION} is null or ${ward} = any(${WARDS_OF_THIS_CONNECTION}))`;
/** The same for a row that names only its patient (`alias.patient_ref`): the patient's ward decides. */
const patientInWardScope = (alias: string) =>
  `(${WARDS_OF_THIS_CONNECTION} is null or exists (select 1 from read.patients wp where wp.tenant = ` +
  `${alias}.tenant and wp.patient_ref = ${alias}.patient_ref and wp.ward = any(${WARDS_OF_THIS_CONNECTION})))`;
/** Of a day's results of an item, the one a formula reads (as queries/patients/derivedResults.ts). */
const NEWEST_FIRST =
  "coalesce(r.collected_at, r.reported_at) desc, r.reported_at desc, r.external_id desc, r.item_index desc";
const CLINICAL_VIEWS: Record<string, { needs: string[]; sql: string }> = {
  patients: {
    needs: ["patients"],
    sql: `select patient_ref, name, his_patient_id, ward, active from read.patients where tenant = ${TENANT_OF_THIS_CONNECTION} and ${inWardScope("ward")}`,
  },
  lab_reports: {
    needs: ["lab_reports", "patients"],
    sql: `select external_id, report_no, patient_ref, matched, panel_name, specimen, status, lab_name, collected_at, reported_at, received_at,
                 report_day as reported_on
          from read.lab_reports l where l.tenant = ${TENANT_OF_THIS_CONNECTION} and ${patientInWardScope("l")}`,
  },
  lab_results: {
    needs: ["lab_results", "patients"],
    sql: `select r.external_id, r.patient_ref, p.ward, r.item_code, r.item_name, r.std_code, r.std_name, r.category, r.value_num,
                 r.value_text, r.unit, r.std_value, r.std_unit, r.ref_low, r.ref_high, r.abnormal_flag, r.result_type,
                 r.collected_at, r.reported_at, r.collected_on, r.reported_on
          from read.lab_results r
          left join read.patients p on p.tenant = r.tenant and p.patient_ref = r.patient_ref
          where r.tenant = ${TENANT_OF_THIS_CONNECTION} and ${inWardScope("p.ward")}`,
  },
  exam_reports: {
    needs: ["exam_reports", "patients"],
    sql: `select external_id, patient_ref, exam_type, exam_name, examined_at, reported_at, findings, conclusion, report_day as reported_on
          from read.exam_reports e where e.tenant = ${TENANT_OF_THIS_CONNECTION} and ${patientInWardScope("e")}`,
  },
  std_items: {
    needs: ["std_items"],
    // name_en and label (issue #34, item 5) after the contract's columns: added, none moved.
    sql: `select code, name, category, unit, core, timing, name_en, label from read.std_items`,
  },
  // The summaries (projections/ingestion/resultSummaries.ts): dashboards over years read these, not item rows.
  monthly_results: {
    needs: ["result_months"],
    sql: `select month, ward, std_code, results, patients, value_sum, (value_sum / results)::double precision as value_avg,
                 below_target, in_target, above_target
          from read.result_months where tenant = ${TENANT_OF_THIS_CONNECTION} and results > 0 and ${inWardScope("ward")}`,
  },
  latest_results: {
    needs: ["latest_results", "patient_wards"],
    sql: `select l.patient_ref, w.ward, l.std_code, l.std_value, l.reported_at, l.reported_on, l.external_id
          from read.latest_results l
          left join read.patient_wards w on w.tenant = l.tenant and w.patient_ref = l.patient_ref
          where l.tenant = ${TENANT_OF_THIS_CONNECTION} and ${inWardScope("w.ward")}`,
  },
  // Contract F.2: the values derived from the item rows by the formulas of the service's dictionary (its
  // release), worked out on reading (derivedResultsSql); collected_on after the contract's columns.
  derived_results: {
    needs: ["lab_results", "patients"],
    sql: derivedResultsSql(),
  },
  std_targets: {
    needs: ["std_targets"],
    sql: `select code, low, high, source from read.std_targets`,
  },
  // Contract G.2: the month's figures, closed months as frozen, open ones counted on reading (qualityMonthsView.ts).
  quality_months: {
    needs: ["quality_reports", "quality_values", "quality_indicators", "quality_closed_figures", "patients"],
    sql: qualityMonthsSql({
      tenant: TENANT_OF_THIS_CONNECTION,
      wards: WARDS_OF_THIS_CONNECTION,
      inWardScope,
    }),
  },
};

export const CLINICAL_RELATIONS = Object.keys(CLINICAL_VIEWS);

/** What report SQL of a data source may read: a built-in source's views; another source's relations are its own (undefined). */
export function relationsOf(
  datasource: string,
): { schema: "clinical" | "research"; relations: readonly string[] } | undefined {
  if (datasource === "clinical") return { schema: "clinical", relations: CLINICAL_RELATIONS };
  if (datasource === "research") return { schema: "research", relations: RESEARCH_RELATIONS };
  return undefined;
}

/**
 * clinical.derived_results: per patient, day of collection and derived item, the formula over the
 * day's newest result of each item it reads, unless the laboratory sent the item itself that day;
 * `inputs` the externalIds read, each once, in the formula's order. The rules of
 * queries/patients/derivedResults.ts, in SQL: one branch per formula, reading only its items'
 * rows, so that a period's filter on collected_on reaches lab_results_by_derivation_day and a filter
 * on std_code leaves out the other branches.
 */
function derivedResultsSql(): string {
  return DERIVED_ITEMS.map(({ code, unit, formula }) => {
    const tree = parseFormula(formula.expression);
    const reads = formulaInputs(tree);
    const newest = (column: string, of: string) =>
      `(array_agg(${column} order by ${NEWEST_FIRST}) filter (where r.std_code = ${sqlText(of)}))[1]`;
    const perItem = reads.flatMap((input) => [
      `${newest("r.std_value", input)} as ${JSON.stringify(input)}`,
      `${newest("coalesce(r.collected_at, r.reported_at)", input)} as ${JSON.stringify(`${input}@`)}`,
      `${newest("r.external_id", input)} as ${JSON.stringify(`${input}#`)}`,
    ]);
    const value = formulaSql(tree, (input) => `d.${JSON.stringify(input)}`);
    const ids = `array[${reads.map((input) => `d.${JSON.stringify(`${input}#`)}`).join(", ")}]`;
    return `select d.patient_ref, p.ward, ${sqlText(code)}::text as std_code,
                   round((${boundedSql(value)})::numeric, ${formula.decimals})::double precision as value,
                   ${sqlText(unit)}::text as unit, greatest(${reads.map((input) => `d.${JSON.stringify(`${input}@`)}`).join(", ")}) as collected_at,
                   ${sqlText(formula.name)}::text as formula, ${formula.version} as formula_version,
                   array(select e from unnest(${ids}) with ordinality as t(e, o) group by e order by min(o)) as inputs, d.day as collected_on
            from (
              select r.tenant, r.patient_ref, coalesce(r.collected_on, r.reported_on) as day, ${perItem.join(", ")},
                     bool_or(r.std_code in (${formula.sentAs.map(sqlText).join(", ")})) as sent
              from read.lab_results r
              where r.tenant = ${TENANT_OF_THIS_CONNECTION} and ${derivationInputRow("r")} and r.std_code in (${formulaCodes(formula).map(sqlText).join(", ")})
              group by r.tenant, r.patient_ref, coalesce(r.collected_on, r.reported_on)
            ) d
            left join read.patients p on p.tenant = d.tenant and p.patient_ref = d.patient_ref
            where not d.sent and (${value}) is not null and ${inWardScope("p.ward")}`;
  }).join("\n          union all\n          ");
}

/**
 * Creates or refreshes (in the caller's transaction) the views whose read models exist; called at
 * every start and in the swap transaction of every rebuild. The views name the live generation's tables directly:
 * the read.* views check privileges as the querying role, which must not reach them.
 */
export async function ensureClinicalViews(db: Pick<pg.ClientBase, "query">): Promise<string[]> {
  // Several processes start at once; concurrent CREATE OR REPLACE of one view fails.
  await db.query("select pg_advisory_xact_lock(hashtext('clinical views'))");
  const { rows } = await db.query(
    "select view_name, table_schema, table_name from information_schema.view_table_usage where view_schema = 'read'",
  );
  const live = new Map(rows.map((row) => [row.view_name as string, `${row.table_schema}.${row.table_name}`]));
  const created: string[] = [];
  for (const [name, view] of Object.entries(CLINICAL_VIEWS)) {
    if (!view.needs.every((table) => live.has(table))) continue;
    const sql = view.sql.replace(/read\.([a-z_]+)/g, (_, table: string) => live.get(table)!);
    if (!(await tried(db, `create or replace view clinical.${name} with (security_barrier = true) as ${sql}`))) {
      // A read model changed its columns' types: recreate the view rather than replace it (and the
      // research view over it, made again below). If the live generation lacks a column still (its
      // rebuild is under way), keep the view as it is: the rebuild's swap calls this again.
      if (
        !(await tried(
          db,
          `drop view if exists clinical.${name} cascade; create view clinical.${name} with (security_barrier = true) as ${sql}`,
        ))
      )
        continue;
    }
    await db.query(`grant select on clinical.${name} to ${REPORT_RUNNER_ROLE}`);
    created.push(name);
  }
  await ensureResearchViews(db, live, created, (sql) => tried(db, sql));
  return created;
}

async function tried(db: Pick<pg.ClientBase, "query">, sql: string): Promise<boolean> {
  await db.query("savepoint clinical_view");
  try {
    await db.query(sql);
    await db.query("release savepoint clinical_view");
    return true;
  } catch {
    await db.query("rollback to savepoint clinical_view");
    return false;
  }
}

import type pg from "pg";

export const REPORT_RUNNER_ROLE = "dh_report_runner";

/*
 * The relations of the `clinical` data source (contract C.5), exactly those columns. They read the
 * read models with the owner's rights and keep only the rows of the tenant that the service bound
 * to this connection (report_sessions, by backend pid and the server's start, as the clinical
 * source may be a replica); security_barrier keeps an author's function from seeing rows before
 * that filter. An unbound connection sees no rows.
 */
const TENANT_OF_THIS_CONNECTION =
  "(select s.tenant from public.report_sessions s where s.pid = pg_backend_pid() and s.server_started = pg_postmaster_start_time())";
const CLINICAL_VIEWS: Record<string, { needs: string[]; sql: string }> = {
  patients: {
    needs: ["patients"],
    sql: `select patient_ref, name, his_patient_id, ward, active from read.patients where tenant = ${TENANT_OF_THIS_CONNECTION}`,
  },
  lab_reports: {
    needs: ["lab_reports"],
    sql: `select external_id, report_no, patient_ref, matched, panel_name, specimen, status, lab_name, collected_at, reported_at, received_at,
                 report_day as reported_on
          from read.lab_reports where tenant = ${TENANT_OF_THIS_CONNECTION}`,
  },
  lab_results: {
    needs: ["lab_results", "patients"],
    sql: `select r.external_id, r.patient_ref, p.ward, r.item_code, r.item_name, r.std_code, r.std_name, r.category, r.value_num,
                 r.value_text, r.unit, r.std_value, r.std_unit, r.ref_low, r.ref_high, r.abnormal_flag, r.result_type,
                 r.collected_at, r.reported_at, r.collected_on, r.reported_on
          from read.lab_results r
          left join read.patients p on p.tenant = r.tenant and p.patient_ref = r.patient_ref
          where r.tenant = ${TENANT_OF_THIS_CONNECTION}`,
  },
  exam_reports: {
    needs: ["exam_reports"],
    sql: `select external_id, patient_ref, exam_type, exam_name, examined_at, reported_at, findings, conclusion, report_day as reported_on
          from read.exam_reports where tenant = ${TENANT_OF_THIS_CONNECTION}`,
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
          from read.result_months where tenant = ${TENANT_OF_THIS_CONNECTION} and results > 0`,
  },
  latest_results: {
    needs: ["latest_results", "patient_wards"],
    sql: `select l.patient_ref, w.ward, l.std_code, l.std_value, l.reported_at, l.reported_on, l.external_id
          from read.latest_results l
          left join read.patient_wards w on w.tenant = l.tenant and w.patient_ref = l.patient_ref
          where l.tenant = ${TENANT_OF_THIS_CONNECTION}`,
  },
  // Contract F.2: the values the service derived, by each formula's version in force (projections/ingestion/derivedResults.ts);
  // inputs are the externalIds of the reports read, each once, in the formula's order. collected_on after the contract's columns.
  derived_results: {
    needs: ["derived_results", "derived_formulas", "patients"],
    sql: `select d.patient_ref, p.ward, d.std_code, d.value, d.unit, d.collected_at, f.name as formula, d.formula_version,
                 array(select i.external_id from (select e->>'externalId' as external_id, min(o) as o from jsonb_array_elements(d.inputs) with ordinality as t(e, o) group by 1) i order by i.o) as inputs,
                 d.collected_on
          from read.derived_results d
          join read.derived_formulas f on f.std_code = d.std_code and f.version = d.formula_version and f.superseded_at is null
          left join read.patients p on p.tenant = d.tenant and p.patient_ref = d.patient_ref
          where d.tenant = ${TENANT_OF_THIS_CONNECTION}`,
  },
  std_targets: {
    needs: ["std_targets"],
    sql: `select code, low, high, source from read.std_targets`,
  },
};

export const CLINICAL_RELATIONS = Object.keys(CLINICAL_VIEWS);

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
      // A read model changed its columns' types: recreate the view rather than replace it. If the
      // live generation lacks a column still (its rebuild is under way), keep the view as it is:
      // the rebuild's swap calls this again.
      if (!(await tried(db, `drop view if exists clinical.${name}; create view clinical.${name} with (security_barrier = true) as ${sql}`))) continue;
    }
    await db.query(`grant select on clinical.${name} to ${REPORT_RUNNER_ROLE}`);
    created.push(name);
  }
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

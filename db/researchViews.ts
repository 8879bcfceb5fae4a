import type pg from "pg";

export const RESEARCH_RUNNER_ROLE = "dh_research_runner";

/*
 * The `research` data source (contract G.1): the relations of the clinical source without names,
 * id cards, HIS ids or birth dates, each patientRef replaced by a pseudonym, and an `age` (whole
 * years at collection) where a relation has a collection time; so a report moves between the two
 * sources unchanged. The views read the clinical views of the same connection, which keep to its
 * tenant and wards (clinicalViews.ts), with their owner's rights; the research role may read these
 * views and nothing else.
 *
 * The pseudonym is HMAC-SHA256 over "<tenant>:<patientRef>" under a key only the views' owner can
 * read (research_pseudonym_key, written at start from the identifier hash key), computed from its
 * RFC 2104 pads with sha256(): stable within the tenant, and no one holding the research source
 * alone can compute it for a patientRef they guess. No function of it is offered to call, which
 * would let a researcher do just that.
 */
const TENANT =
  "(select s.tenant from public.report_sessions s where s.pid = pg_backend_pid() and s.server_started = pg_postmaster_start_time())";
const pseudonym = (patientRef: string) =>
  `('R-' || left(encode(sha256(k.outer_pad || sha256(k.inner_pad || convert_to(${TENANT} || ':' || ${patientRef}, 'UTF8'))), 'hex'), 24))`;
const KEY = "cross join public.research_pseudonym_key k";
/** The patient's id card, for the age: read beside the clinical view, never shown. */
const identity = (patientRef: string) =>
  `left join read.patients pp on pp.tenant = ${TENANT} and pp.patient_ref = ${patientRef}`;
/** Whole years of the patient (born on the id card's date, GB 11643) at `at`; null without a readable card. */
const ageAt = (at: string) =>
  `(case when pp.id_card ~ '^[0-9]{6}(18|19|20)[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])[0-9]{3}[0-9Xx]$' and ${at} is not null then
      extract(year from ${at})::int - substr(pp.id_card, 7, 4)::int
      - (case when extract(month from ${at})::int * 100 + extract(day from ${at})::int < substr(pp.id_card, 11, 4)::int then 1 else 0 end)
    end)`;

const RESEARCH_VIEWS: Record<string, string> = {
  patients: `select ${pseudonym("p.patient_ref")} as patient_ref, p.ward, p.active from clinical.patients p ${KEY}`,
  lab_reports: `select l.external_id, l.report_no, ${pseudonym("l.patient_ref")} as patient_ref, l.matched, l.panel_name, l.specimen, l.status, l.lab_name,
                        l.collected_at, l.reported_at, l.received_at, l.reported_on, ${ageAt("l.collected_at")} as age
                 from clinical.lab_reports l ${identity("l.patient_ref")} ${KEY}`,
  lab_results: `select r.external_id, ${pseudonym("r.patient_ref")} as patient_ref, r.ward, r.item_code, r.item_name, r.std_code, r.std_name, r.category,
                        r.value_num, r.value_text, r.unit, r.std_value, r.std_unit, r.ref_low, r.ref_high, r.abnormal_flag, r.result_type,
                        r.collected_at, r.reported_at, r.collected_on, r.reported_on, ${ageAt("r.collected_at")} as age
                 from clinical.lab_results r ${identity("r.patient_ref")} ${KEY}`,
  exam_reports: `select e.external_id, ${pseudonym("e.patient_ref")} as patient_ref, e.exam_type, e.exam_name, e.examined_at, e.reported_at, e.findings,
                         e.conclusion, e.reported_on, ${ageAt("e.examined_at")} as age
                  from clinical.exam_reports e ${identity("e.patient_ref")} ${KEY}`,
  std_items: `select * from clinical.std_items`,
  monthly_results: `select * from clinical.monthly_results`,
  latest_results: `select ${pseudonym("l.patient_ref")} as patient_ref, l.ward, l.std_code, l.std_value, l.reported_at, l.reported_on, l.external_id
                   from clinical.latest_results l ${KEY}`,
  derived_results: `select ${pseudonym("d.patient_ref")} as patient_ref, d.ward, d.std_code, d.value, d.unit, d.collected_at, d.formula, d.formula_version,
                           d.inputs, d.collected_on, ${ageAt("d.collected_at")} as age
                    from clinical.derived_results d ${identity("d.patient_ref")} ${KEY}`,
  std_targets: `select * from clinical.std_targets`,
  // No patient in it: the same rows as the clinical source's.
  quality_months: `select * from clinical.quality_months`,
};

export const RESEARCH_RELATIONS = Object.keys(RESEARCH_VIEWS);

/**
 * Creates or refreshes the research views whose clinical views exist (ensureClinicalViews calls it
 * last, in its transaction); `live` maps each read.* view to the live generation's table.
 */
export async function ensureResearchViews(
  db: Pick<pg.ClientBase, "query">,
  live: ReadonlyMap<string, string>,
  clinical: readonly string[],
  tried: (sql: string) => Promise<boolean>,
): Promise<string[]> {
  const created: string[] = [];
  for (const [name, view] of Object.entries(RESEARCH_VIEWS)) {
    if (!clinical.includes(name) || !live.has("patients")) continue;
    const sql = view.replace(/read\.([a-z_]+)/g, (_, table: string) => live.get(table)!);
    if (!(await tried(`create or replace view research.${name} with (security_barrier = true) as ${sql}`))) {
      if (
        !(await tried(
          `drop view if exists research.${name}; create view research.${name} with (security_barrier = true) as ${sql}`,
        ))
      )
        continue;
    }
    await db.query(`grant select on research.${name} to ${RESEARCH_RUNNER_ROLE}`);
    created.push(name);
  }
  return created;
}

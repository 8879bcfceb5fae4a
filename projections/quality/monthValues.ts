import type { Tx } from "../../db/pool.ts";
import { boundedSql } from "../../db/numberBounds.ts";
import { formulaInputs, formulaSql, parseFormula } from "../../db/seed/formulaExpression.ts";
import type { MonthKey } from "./monthItems.ts";

/*
 * Each patient's last value of each indicator item in a month (contract G.2), worked out again for
 * the patients' months an event touched, from the projection's own items (monthItems.ts): the
 * result collected last in the month (then reported last, then the greater report and item), and
 * for a derived item (F.2) the later of the last value the laboratory sent and the last one the
 * formula in force gives for a day of the month, over that day's newest result of each item it
 * reads, where the laboratory did not send the item that day (its value wins), as
 * queries/patients/derivedResults.ts works them out for the chart.
 */

/** A formula in force, as quality_formulas keeps it. */
export interface FormulaInForce {
  std_code: string;
  version: number;
  expression: string;
  decimals: number;
  sent_as: string[];
}

/** A patient's month of an item whose last value came, changed or went. */
export interface ChangedValue extends MonthKey {
  stdCode: string;
  change: "came" | "changed" | "went";
}

/** The order that makes a result the last of its month (or of its day, for a formula's input). */
const NEWEST_FIRST = "at desc, reported_at desc, external_id desc, item_index desc";

const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A measured result: a standard value, or a qualitative result's text (a numeric item's value in an unknown unit is not one). */
const MEASURED = "(i.std_value is not null or (i.value_num is null and nullif(btrim(i.value_text), '') is not null))";

/** The last value a formula gives in each patient's month, over `measured` (the months' measured items). */
function derivedValuesSql(formula: FormulaInForce): string {
  const tree = parseFormula(formula.expression);
  const reads = formulaInputs(tree);
  const column = (code: string, suffix = "") => JSON.stringify(`${code}${suffix}`);
  const newest = (value: string, code: string) =>
    `(array_agg(${value} order by ${NEWEST_FIRST}) filter (where std_code = ${sqlText(code)} and std_value is not null))[1]`;
  const perInput = reads.flatMap((code) => [
    `${newest("std_value", code)} as ${column(code)}`,
    `${newest("at", code)} as ${column(code, "@")}`,
    `${newest("external_id", code)} as ${column(code, "#")}`,
  ]);
  const value = formulaSql(tree, (code) => `d.${column(code)}`);
  const ids = `array[${reads.map((code) => `d.${column(code, "#")}`).join(", ")}]`;
  const codes = [...new Set([...reads, ...formula.sent_as])].map(sqlText).join(", ");
  return `select d.tenant, ${sqlText(formula.std_code)}::text as std_code, d.month, d.patient_ref,
                 round((${boundedSql(value)})::numeric, ${formula.decimals})::double precision as value, null::text as value_text,
                 greatest(${reads.map((code) => `d.${column(code, "@")}`).join(", ")}) as at,
                 array(select e from unnest(${ids}) with ordinality as t(e, o) group by e order by min(o)) as external_ids,
                 ${formula.version} as formula_version, 1 as rank
          from (
            select tenant, patient_ref, month, day, ${perInput.join(", ")},
                   bool_or(std_code in (${formula.sent_as.map(sqlText).join(", ")})) as sent
            from measured where std_code in (${codes})
            group by tenant, patient_ref, month, day
          ) d
          where not d.sent and ${boundedSql(value)} is not null`;
}

/**
 * Works out again the last values of the patients' months `keys` for the items `codes`, by the
 * formulas in force, and returns those that came, changed or went. Written by difference (an
 * upsert where a value changed, a delete where one went), so that a month whose values stay is
 * not rewritten.
 */
export async function recomputeMonths(
  tx: Tx,
  keys: readonly MonthKey[],
  codes: readonly string[],
  formulas: readonly FormulaInForce[],
): Promise<ChangedValue[]> {
  if (keys.length === 0) return [];
  const derived = formulas.filter((formula) => codes.includes(formula.std_code));
  const candidates = [
    `select * from (
       select distinct on (tenant, std_code, month, patient_ref) tenant, std_code, month, patient_ref, std_value as value, value_text, at,
              array[external_id] as external_ids, null::integer as formula_version, 0 as rank
       from measured where std_code = any($4::text[])
       order by tenant, std_code, month, patient_ref, ${NEWEST_FIRST}
     ) sent`,
    ...derived.map(derivedValuesSql),
  ];
  const { rows } = await tx.query<{
    tenant: string;
    patient_ref: string;
    month: string;
    std_code: string;
    change: ChangedValue["change"];
  }>(
    `with keys as (select distinct * from unnest($1::text[], $2::text[], $3::date[]) as k(tenant, patient_ref, month)),
     measured as (
       select k.tenant, k.patient_ref, k.month, i.std_code, i.std_value, i.value_text, i.at, i.day as day, i.reported_at, i.external_id, i.item_index
       from keys k
       join quality_reports r on r.tenant = k.tenant and r.patient_ref = k.patient_ref and r.month = k.month
       join quality_items i on i.tenant = r.tenant and i.external_id = r.external_id
       where i.std_code is not null and ${MEASURED}
     ),
     computed as (
       select distinct on (tenant, std_code, month, patient_ref) tenant, std_code, month, patient_ref, value, value_text, at, external_ids, formula_version
       from (${candidates.join("\n union all\n")}) candidate
       -- The laboratory's value first where a derived one has the same time (on another day: the sent item stops the formula on its own).
       order by tenant, std_code, month, patient_ref, at desc, rank
     ),
     written as (
       insert into quality_values as v select * from computed
       on conflict (tenant, std_code, month, patient_ref) do update set
         value = excluded.value, value_text = excluded.value_text, at = excluded.at, external_ids = excluded.external_ids,
         formula_version = excluded.formula_version
       where (v.value, v.value_text, v.at, v.external_ids, v.formula_version)
         is distinct from (excluded.value, excluded.value_text, excluded.at, excluded.external_ids, excluded.formula_version)
       returning v.tenant, v.patient_ref, v.month, v.std_code, case when xmax = 0 then 'came' else 'changed' end as change
     ),
     -- By set difference, not \`not exists\`: the planner, taking the CTEs for a few rows, runs an
     -- anti-join by nested loop, which a batch of thousands of months already holding values
     -- (a bulk import's, a rebuild's) makes quadratic.
     stale as (
       select v.tenant, v.std_code, v.month, v.patient_ref from quality_values v join keys k using (tenant, patient_ref, month)
       except select tenant, std_code, month, patient_ref from computed
     ),
     gone as (
       delete from quality_values v using stale s
       where v.tenant = s.tenant and v.std_code = s.std_code and v.month = s.month and v.patient_ref = s.patient_ref
       returning v.tenant, v.patient_ref, v.month, v.std_code, 'went' as change
     )
     select tenant, patient_ref, month::text, std_code, change from written
     union all select tenant, patient_ref, month::text, std_code, change from gone`,
    [keys.map((key) => key.tenant), keys.map((key) => key.patientRef), keys.map((key) => key.month), codes],
  );
  return rows.map((row) => ({
    tenant: row.tenant,
    patientRef: row.patient_ref,
    month: row.month,
    stdCode: row.std_code,
    change: row.change,
  }));
}

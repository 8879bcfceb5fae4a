import type { DictionaryReleased } from "../../commands/dictionary/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { formulaInputs, formulaSql, parseFormula } from "../../db/seed/formulaExpression.ts";
import type { RowScope } from "./resultSummaries.ts";

/*
 * Derived results (contract F.2), kept by the lab_results projection beside its summaries: per
 * patient and day of collection (else of report), each formula the dictionary releases have put in
 * force applied to that day's newest result of each item it reads, unless the laboratory sent the
 * item itself that day. A day is derived again whenever a row of an item any formula reads or is
 * sent as arrives, changes or goes, by every version of the formula ever in force: the current
 * version's values are what is shown, the earlier ones' what was shown before the release that
 * replaced them (derived_formulas holds when each was in force). A release with a new version
 * derives every day by it at once; a rebuild derives every day of every version in one pass.
 */

const dictionary = loadDefaultDictionary();

/**
 * The items the service's formulas read or are sent as: only rows of these are read to derive, and
 * a partial index holds just them. A release whose formula reads another item derives nothing by
 * it until the projection's version is bumped (the index and this list are the dictionary's at
 * that rebuild).
 */
export const DERIVATION_CODES: readonly string[] = [
  ...new Set(dictionary.items.flatMap((item) => (item.formula ? [...formulaInputs(parseFormula(item.formula.expression)), ...item.formula.sentAs] : []))),
].sort();

/** Whether days are derived at all (config DERIVED_RESULTS): off only to measure what derivation costs. */
export const derivation = { enabled: true };

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const CODE_LIST = DERIVATION_CODES.map(literal).join(", ");
/** A lab_results row (aliased `a`) a formula may read: matched, numeric, of a derivation item. */
const inputRow = (a: string) => `${a}.std_code in (${CODE_LIST}) and ${a}.std_value is not null and ${a}.patient_ref is not null`;
/** A row's day of collection, else of report: the day its derived values belong to. */
const dayOf = (a: string) => `coalesce(${a}.collected_on, ${a}.reported_on)`;

/** A patient's input rows of a day, found without reading their other results (setup, after the item rows' table). */
export async function createDerivationIndex(tx: Tx): Promise<void> {
  await tx.query(
    `create index lab_results_derivation on lab_results (tenant, patient_ref, (${dayOf("lab_results")}))
       include (std_code, std_value, collected_at, reported_at, external_id, item_index)
       where ${inputRow("lab_results")}`,
  );
}

/** A formula version as derived_formulas holds it. */
interface FormulaVersion {
  std_code: string;
  version: number;
  expression: string;
  decimals: number;
  sent_as: string[];
  unit: string;
}

/**
 * Before rows in scope change or go, and after they are written: their patients' days are derived
 * again before the batch ends (derivePending), their derived values gone until then.
 */
export async function markUnderived(tx: Tx, scope: RowScope): Promise<void> {
  if (!derivation.enabled) return;
  await tx.query(
    `with marked as (
       insert into underived_days
       select distinct r.tenant, r.patient_ref, ${dayOf("r")} from lab_results r where ${scope.where("r")} and ${inputRow("r")}
       on conflict do nothing
       returning tenant, patient_ref, collected_on
     )
     delete from derived_results d using marked m
     where d.tenant = m.tenant and d.patient_ref = m.patient_ref and d.collected_on = m.collected_on`,
    scope.params,
  );
}

/** Derives the days markUnderived marked, by every formula version, and unmarks them. */
export async function derivePending(tx: Tx): Promise<void> {
  if (!derivation.enabled) return;
  const formulas = await formulaVersions(tx);
  if (formulas.length === 0) {
    await tx.query("delete from underived_days");
    return;
  }
  await tx.query(
    deriveSql(
      formulas,
      `with days as (delete from underived_days returning tenant, patient_ref, collected_on),
       inputs as (
         select distinct on (k.tenant, k.patient_ref, k.collected_on, r.std_code)
                k.tenant, k.patient_ref, k.collected_on, r.std_code, r.std_value, coalesce(r.collected_at, r.reported_at) as at, r.external_id, r.item_index
         from days k
         join lab_results r on r.tenant = k.tenant and r.patient_ref = k.patient_ref and ${dayOf("r")} = k.collected_on
         where ${inputRow("r")}
         order by k.tenant, k.patient_ref, k.collected_on, r.std_code, ${NEWEST_FIRST}
       )`,
    ),
  );
}

/** Derives every day by the given versions (all of them when none are given): a rebuild's finish step, and a release. */
export async function deriveEveryDay(tx: Tx, only?: ReadonlyArray<Pick<FormulaVersion, "std_code" | "version">>): Promise<void> {
  if (!derivation.enabled) return;
  const formulas = (await formulaVersions(tx)).filter((formula) => !only || only.some((one) => one.std_code === formula.std_code && one.version === formula.version));
  if (formulas.length === 0) return;
  await tx.query(
    deriveSql(
      formulas,
      `with inputs as (
         select distinct on (r.tenant, r.patient_ref, ${dayOf("r")}, r.std_code)
                r.tenant, r.patient_ref, ${dayOf("r")} as collected_on, r.std_code, r.std_value, coalesce(r.collected_at, r.reported_at) as at, r.external_id, r.item_index
         from lab_results r
         where ${inputRow("r")}
         order by r.tenant, r.patient_ref, ${dayOf("r")}, r.std_code, ${NEWEST_FIRST}
       )`,
    ),
  );
}

/** Of a day's results of an item, the one a formula reads: collected last, then reported last, then the greater report and item. */
const NEWEST_FIRST = "coalesce(r.collected_at, r.reported_at) desc, r.reported_at desc, r.external_id desc, r.item_index desc";

async function formulaVersions(tx: Tx): Promise<FormulaVersion[]> {
  const { rows } = await tx.query<FormulaVersion>("select std_code, version, expression, decimals, sent_as, unit from derived_formulas order by std_code, version");
  return rows.filter((formula) => {
    try {
      return [...formulaInputs(parseFormula(formula.expression)), ...formula.sent_as].every((code) => DERIVATION_CODES.includes(code));
    } catch {
      return false; // a release's formulas are checked when it is made: never met
    }
  });
}

/**
 * The insert of derived values from `inputs` (a CTE of one row per patient, day and item:
 * tenant, patient_ref, collected_on, std_code, std_value, at, external_id, item_index): the day's
 * items side by side, then each formula version over them.
 */
function deriveSql(formulas: readonly FormulaVersion[], inputs: string): string {
  const column = (code: string) => `d.${JSON.stringify(code)}`;
  const at = (code: string) => `d.${JSON.stringify(`${code}@`)}`;
  const perFormula = formulas.map((formula) => {
    const tree = parseFormula(formula.expression);
    const reads = formulaInputs(tree);
    const value = formulaSql(tree, column);
    return `select d.tenant, d.patient_ref, ${literal(formula.std_code)}, d.collected_on, ${formula.version},
                   round((${value})::numeric, ${formula.decimals})::double precision, ${literal(formula.unit)},
                   greatest(${reads.map(at).join(", ")}), jsonb_build_array(${reads.map((code) => `d.sources -> ${literal(code)}`).join(", ")})
            from days_side_by_side d
            where ${[...reads.map((code) => `${column(code)} is not null`), ...formula.sent_as.map((code) => `${column(code)} is null`), `(${value}) is not null`].join(" and ")}`;
  });
  return `${inputs},
     days_side_by_side as (
       select tenant, patient_ref, collected_on,
              ${DERIVATION_CODES.map((code) => `max(std_value) filter (where std_code = ${literal(code)}) as ${JSON.stringify(code)}, max(at) filter (where std_code = ${literal(code)}) as ${JSON.stringify(`${code}@`)}`).join(",\n              ")},
              jsonb_object_agg(std_code, jsonb_build_object('externalId', external_id, 'itemIndex', item_index, 'stdCode', std_code)) as sources
       from inputs
       group by tenant, patient_ref, collected_on
     )
     insert into derived_results (tenant, patient_ref, std_code, collected_on, formula_version, value, unit, collected_at, inputs)
     ${perFormula.join("\n     union all\n     ")}`;
}

/**
 * A dictionary release: each formula it holds in a version not in force yet is put in force from
 * the release's moment, the version it replaces (or a formula the release no longer holds) kept
 * until then. The versions newly in force, to derive every day by.
 */
export async function keepFormulas(tx: Tx, event: Pick<StoredEvent<DictionaryReleased>, "recordedAt" | "data">): Promise<Array<Pick<FormulaVersion, "std_code" | "version">>> {
  const released = event.data.items.flatMap((item) => (item.formula ? [{ code: item.code, unit: item.unit, formula: item.formula }] : []));
  await tx.query(
    `update derived_formulas f set superseded_at = $3
     where f.superseded_at is null and (f.std_code, f.version) not in (select * from unnest($1::text[], $2::integer[]))`,
    [released.map((item) => item.code), released.map((item) => item.formula.version), event.recordedAt],
  );
  const added: Array<Pick<FormulaVersion, "std_code" | "version">> = [];
  for (const { code, unit, formula } of released) {
    const { rowCount } = await tx.query(
      `insert into derived_formulas values ($1, $2, $3, $4, $5, $6, $7, $8, null) on conflict do nothing`,
      [code, formula.version, formula.name, formula.expression, formula.decimals, formula.sentAs, unit, event.recordedAt],
    );
    if (rowCount) added.push({ std_code: code, version: formula.version });
  }
  return added;
}

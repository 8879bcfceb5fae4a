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

/**
 * A patient's input rows of a day (setup, after the item rows' table): some six of a report's
 * twenty rows, keyed narrowly. lab_results_by_patient found them too, but only by reading the
 * patient's rows of each item from that day on: a backfill of history, whose days come in any
 * order, read hundreds a day (a burst of 8,000 reports on 1,000 days: 230 ms per 2,000 reports,
 * against 90 with this index).
 */
export async function createDerivationIndex(tx: Tx): Promise<void> {
  await tx.query(`create index lab_results_by_day on lab_results (tenant, patient_ref, (${dayOf("lab_results")})) where ${inputRow("lab_results")}`);
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
 * Before rows in scope change or go (a correction, a claim, an undone mapping): their patients'
 * days are derived again once the change is written (deriveArrived, else derivePending).
 */
export async function markUnderived(tx: Tx, scope: RowScope): Promise<void> {
  if (!derivation.enabled) return;
  await tx.query(
    `insert into underived_days
     select distinct r.tenant, r.patient_ref, ${dayOf("r")} from lab_results r where ${scope.where("r")} and ${inputRow("r")}
     on conflict do nothing`,
    scope.params,
  );
}

/**
 * After rows in scope are written: derives again their patients' days, and those marked before
 * (which it unmarks). A push's batch makes this one statement: its reports' rows are found by
 * their key, the other rows of their days by lab_results_by_day.
 */
export async function deriveArrived(tx: Tx, scope: RowScope): Promise<void> {
  if (!derivation.enabled) return;
  const formulas = await formulaVersions(tx);
  if (formulas.length === 0) return;
  await tx.query(
    deriveDaysSql(
      formulas,
      `marked as (delete from underived_days returning tenant, patient_ref, collected_on),
       days as (
         -- The rows in scope by their own condition first (offset 0): with the inputs' condition beside
         -- it, the planner read the whole of lab_results_by_day instead of the reports' keys.
         select r.tenant, r.patient_ref, ${dayOf("r")} as collected_on from (select * from lab_results r where ${scope.where("r")} offset 0) r where ${inputRow("r")}
         union
         select * from marked
       )`,
    ),
    scope.params,
  );
}

/** Derives the days still marked (a batch's last step): with none marked, one statement that finds none. */
export async function derivePending(tx: Tx): Promise<void> {
  if (!derivation.enabled) return;
  const { rows } = await tx.query<{ tenant: string; patient_ref: string; collected_on: string }>(
    "delete from underived_days returning tenant, patient_ref, collected_on::text",
  );
  if (rows.length === 0) return;
  const formulas = await formulaVersions(tx);
  if (formulas.length === 0) return;
  await tx.query(deriveDaysSql(formulas, "days as (select * from unnest($1::text[], $2::text[], $3::date[]) as k(tenant, patient_ref, collected_on))"), [
    rows.map((row) => row.tenant),
    rows.map((row) => row.patient_ref),
    rows.map((row) => row.collected_on),
  ]);
}

/** Derives every day by the given versions (all of them when none are given): a rebuild's finish step, and a release. */
export async function deriveEveryDay(tx: Tx, only?: ReadonlyArray<Pick<FormulaVersion, "std_code" | "version">>): Promise<void> {
  if (!derivation.enabled) return;
  const formulas = (await formulaVersions(tx)).filter((formula) => !only || only.some((one) => one.std_code === formula.std_code && one.version === formula.version));
  if (formulas.length === 0) return;
  await tx.query(
    `with inputs as (
       select distinct on (r.tenant, r.patient_ref, ${dayOf("r")}, r.std_code)
              r.tenant, r.patient_ref, ${dayOf("r")} as collected_on, r.std_code, r.std_value, coalesce(r.collected_at, r.reported_at) as at, r.external_id, r.item_index
       from lab_results r
       where ${inputRow("r")} and r.std_code in (${codesRead(formulas).map(literal).join(", ")})
       order by r.tenant, r.patient_ref, ${dayOf("r")}, r.std_code, ${NEWEST_FIRST}
     ),
     ${derivedCtes(formulas)}
     insert into derived_results select * from fresh on conflict do nothing`,
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

/** The items some of `formulas` read or are sent as, each once. */
function codesRead(formulas: readonly FormulaVersion[]): string[] {
  return [...new Set(formulas.flatMap((formula) => [...formulaInputs(parseFormula(formula.expression)), ...formula.sent_as]))].sort();
}

/**
 * The statement deriving again the days of `days` (CTEs ending with one named `days`: tenant,
 * patient_ref, collected_on): each day's input rows found by lab_results_by_day, the derived
 * values upserted, and those a day no longer has (an input gone, a value the laboratory sent
 * since) deleted; the upsert and the delete touch different rows, so one statement does both.
 * Rows are found by a probe a day (lateral): joined as sets, the planner, not knowing how few the
 * days are, read every input row of the table, and every derived row.
 */
function deriveDaysSql(formulas: readonly FormulaVersion[], days: string): string {
  return `with ${days},
     inputs as (
       select k.tenant, k.patient_ref, k.collected_on, r.*
       from days k
       cross join lateral (
         select distinct on (r.std_code) r.std_code, r.std_value, coalesce(r.collected_at, r.reported_at) as at, r.external_id, r.item_index
         from lab_results r
         where r.tenant = k.tenant and r.patient_ref = k.patient_ref and ${dayOf("r")} = k.collected_on
           and ${inputRow("r")} and r.std_code in (${codesRead(formulas).map(literal).join(", ")})
         order by r.std_code, ${NEWEST_FIRST}
       ) r
     ),
     ${derivedCtes(formulas)},
     upserted as (
       insert into derived_results as d select * from fresh
       on conflict (tenant, patient_ref, collected_on, std_code, formula_version) do update set
         value = excluded.value, unit = excluded.unit, collected_at = excluded.collected_at, inputs = excluded.inputs
       where (d.value, d.unit, d.collected_at, d.inputs) is distinct from (excluded.value, excluded.unit, excluded.collected_at, excluded.inputs)
       returning 1
     ),
     removed as (
       delete from derived_results d
       where d.ctid = any(array(
         select o.ctid from days k
         cross join lateral (select ctid, * from derived_results o where o.tenant = k.tenant and o.patient_ref = k.patient_ref and o.collected_on = k.collected_on) o
         where not exists (select 1 from fresh f where f.tenant = o.tenant and f.patient_ref = o.patient_ref and f.std_code = o.std_code
                                                   and f.collected_on = o.collected_on and f.formula_version = o.formula_version)
       ))
       returning 1
     )
     select (select count(*) from upserted) as upserted, (select count(*) from removed) as removed`;
}

/**
 * CTEs over `inputs` (one row per patient, day and item: tenant, patient_ref, collected_on,
 * std_code, std_value, at, external_id, item_index): the day's items side by side, then `fresh`,
 * each formula version over them, in derived_results' columns.
 */
function derivedCtes(formulas: readonly FormulaVersion[]): string {
  const column = (code: string, part = "") => `d.${JSON.stringify(`${code}${part}`)}`;
  const sideBySide = codesRead(formulas).flatMap((code) => {
    const of = `filter (where std_code = ${literal(code)})`;
    return [`max(std_value) ${of} as ${JSON.stringify(code)}`, `max(at) ${of} as ${JSON.stringify(`${code}@`)}`, `max(external_id) ${of} as ${JSON.stringify(`${code}#`)}`, `max(item_index) ${of} as ${JSON.stringify(`${code}.`)}`];
  });
  const perFormula = formulas.map((formula) => {
    const tree = parseFormula(formula.expression);
    const reads = formulaInputs(tree);
    const value = formulaSql(tree, (code) => column(code));
    const inputs = reads.map((code) => `jsonb_build_object('externalId', ${column(code, "#")}, 'itemIndex', ${column(code, ".")}, 'stdCode', ${literal(code)})`);
    return `select d.tenant, d.patient_ref, ${literal(formula.std_code)}, d.collected_on, ${formula.version},
                   round((${value})::numeric, ${formula.decimals})::double precision, ${literal(formula.unit)},
                   greatest(${reads.map((code) => column(code, "@")).join(", ")}), jsonb_build_array(${inputs.join(", ")})
            from days_side_by_side d
            where ${[...reads.map((code) => `${column(code)} is not null`), ...formula.sent_as.map((code) => `${column(code)} is null`), `(${value}) is not null`].join(" and ")}`;
  });
  return `days_side_by_side as (
       select tenant, patient_ref, collected_on, ${sideBySide.join(",\n              ")}
       from inputs
       group by tenant, patient_ref, collected_on
     ),
     fresh (tenant, patient_ref, std_code, collected_on, formula_version, value, unit, collected_at, inputs) as (
       ${perFormula.join("\n       union all\n       ")}
     )`;
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

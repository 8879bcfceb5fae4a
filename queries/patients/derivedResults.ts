import { z } from "zod";
import { formulaCodes } from "../../db/seed/derivedItems.ts";
import { evaluateFormula, formulaInputs, parseFormula, roundDecimal } from "../../db/seed/formulaExpression.ts";
import { isReadableNumber } from "../../db/numberBounds.ts";
import type { TenantReader } from "../../db/tenantScope.ts";

/*
 * Derived values (contract F.2), worked out on reading from a patient's item rows: per day of
 * collection (else of report), each formula in force (now, or at a moment asked for: the values
 * an earlier version gave before the release that replaced it) over that day's newest result of
 * each item it reads, unless the laboratory sent the item itself that day. Nothing is stored, so
 * a value is never behind its results and a formula's new version applies to every value at once;
 * clinical.derived_results works them out by the same rules in SQL (db/clinicalViews.ts).
 */

export const derivedFormulaSchema = z
  .object({
    name: z.string().meta({ description: "The formula's name", example: "Payne" }),
    version: z.int().meta({ description: "Its version: changed only by a dictionary release" }),
    expression: z.string().meta({
      description: "The formula over the standard values of the items it reads",
      example: "CA + 0.02 * (40 - ALB)",
    }),
    inputs: z
      .array(z.string())
      .meta({ description: "The externalIds of the reports whose results it read, each once" }),
  })
  .meta({ description: "How a derived value was computed (contract F.2)" });
export type DerivedFormula = z.infer<typeof derivedFormulaSchema>;

/** A formula's version as the dictionary releases put it in force (read.formula_versions). */
export interface FormulaVersion {
  std_code: string;
  version: number;
  name: string;
  expression: string;
  decimals: number;
  sent_as: string[];
  unit: string;
}

/** One result a derived value read: the report and its item. */
export interface DerivedInput {
  externalId: string;
  itemIndex: number;
  stdCode: string;
}

export interface DerivedValue {
  stdCode: string;
  /** The day of collection it belongs to, yyyy-MM-dd. */
  day: string;
  /** When its newest input was collected (else reported), yyyy-MM-ddTHH:mm:ss. */
  at: string;
  value: number;
  unit: string;
  formula: Omit<DerivedFormula, "inputs">;
  inputs: DerivedInput[];
}

/** The version of each formula in force at `asOf` (the end of the asked second), or now; of `codes` only when given. */
export async function formulasInForce(
  reader: TenantReader,
  asOf: Date | null,
  codes?: readonly string[],
): Promise<FormulaVersion[]> {
  const { rows } = await reader.query<FormulaVersion>(
    `select std_code, version, name, expression, decimals, sent_as, unit from read.formula_versions f
     where ($2::text[] is null or std_code = any($2::text[]))
       and case when $1::timestamptz is null then superseded_at is null else released_at <= $1 and (superseded_at is null or superseded_at > $1) end
     order by std_code`,
    [asOf, codes ?? null],
  );
  return rows;
}

interface InputRow {
  std_code: string;
  std_value: number;
  at: string;
  external_id: string;
  item_index: number;
  day: string;
}

/**
 * A patient's values derived by `formulas` on the days from..to (null: open), by day. The rows are
 * found by lab_results_by_patient: a result is reported on or after the day it was collected.
 */
export async function patientDerivedValues(
  reader: TenantReader,
  patientRef: string,
  formulas: readonly FormulaVersion[],
  fromDay: string | null,
  toDay: string | null,
): Promise<DerivedValue[]> {
  if (formulas.length === 0) return [];
  const codes = [
    ...new Set(
      formulas.flatMap((formula) => formulaCodes({ expression: formula.expression, sentAs: formula.sent_as })),
    ),
  ];
  const { rows } = await reader.query<InputRow>(
    `select std_code, std_value, to_char(coalesce(collected_at, reported_at), 'YYYY-MM-DD"T"HH24:MI:SS') as at, external_id, item_index,
            coalesce(collected_on, reported_on)::text as day
     from read.lab_results
     where patient_ref = $1 and std_code = any($2::text[]) and std_value is not null
       and ($3::date is null or (reported_on >= $3::date and coalesce(collected_on, reported_on) >= $3::date))
       and ($4::date is null or coalesce(collected_on, reported_on) <= $4::date)
     order by day, std_code, ${NEWEST_FIRST}`,
    [patientRef, codes, fromDay, toDay],
  );
  return deriveByDay(rows, formulas);
}

/** Of a day's results of an item, the one a formula reads: collected last, then reported last, then the greater report and item. */
export const NEWEST_FIRST =
  "coalesce(collected_at, reported_at) desc, reported_at desc, external_id desc, item_index desc";

/** The derived values of rows ordered by day, item and NEWEST_FIRST. */
function deriveByDay(rows: readonly InputRow[], formulas: readonly FormulaVersion[]): DerivedValue[] {
  const derived: DerivedValue[] = [];
  // Each formula parsed once, with the items it reads, not again for every day.
  const parsed = new Map(
    formulas.map((formula) => {
      const tree = parseFormula(formula.expression);
      return [formula, { tree, reads: formulaInputs(tree) }];
    }),
  );
  let at = 0;
  while (at < rows.length) {
    const day = rows[at]!.day;
    const newest = new Map<string, InputRow>();
    for (; at < rows.length && rows[at]!.day === day; at++)
      if (!newest.has(rows[at]!.std_code)) newest.set(rows[at]!.std_code, rows[at]!);
    for (const formula of formulas) {
      if (formula.sent_as.some((code) => newest.has(code))) continue;
      const { tree, reads } = parsed.get(formula)!;
      const value = evaluateFormula(tree, (code) => newest.get(code)?.std_value);
      // A result past the bounds of a number (numberBounds.ts) is no value, as a division by zero is not.
      if (value === null || !isReadableNumber(value)) continue;
      const inputs = reads.map((code) => newest.get(code)!);
      derived.push({
        stdCode: formula.std_code,
        day,
        at: inputs.reduce((latest, input) => (input.at > latest ? input.at : latest), inputs[0]!.at),
        value: roundDecimal(value, formula.decimals),
        unit: formula.unit,
        formula: { name: formula.name, version: formula.version, expression: formula.expression },
        inputs: inputs.map((input) => ({
          externalId: input.external_id,
          itemIndex: input.item_index,
          stdCode: input.std_code,
        })),
      });
    }
  }
  return derived;
}

/** What a derived point says of its formula: the reports it read, each once, in the formula's order. */
export function formulaOf(derived: Pick<DerivedValue, "formula" | "inputs">): DerivedFormula {
  return { ...derived.formula, inputs: [...new Set(derived.inputs.map((input) => input.externalId))] };
}

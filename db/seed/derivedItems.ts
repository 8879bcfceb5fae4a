import { loadDefaultDictionary, type DictionaryItem, type Formula } from "./defaultDictionary.ts";
import { formulaInputs, parseFormula } from "./formulaExpression.ts";

/*
 * What every reader of derived values (contract F.2) shares: which item rows a formula may read,
 * and the day they belong to. Derived values are not stored: they are worked out from the item
 * rows on reading (the chart, FHIR, clinical.derived_results), so a push, a bulk import, a
 * re-mapping and a rebuild do none of that work, and a value is never behind its results.
 */

const dictionary = loadDefaultDictionary();

/** The items a formula reads and those which, sent, stand instead of its value. */
export function formulaCodes(formula: Pick<Formula, "expression" | "sentAs">): string[] {
  return [...new Set([...formulaInputs(parseFormula(formula.expression)), ...formula.sentAs])];
}

/** The service's dictionary's derived items, in its order. */
export const DERIVED_ITEMS: ReadonlyArray<DictionaryItem & { formula: Formula }> = dictionary.items.filter(
  (item): item is DictionaryItem & { formula: Formula } => item.formula !== undefined,
);

/**
 * The items the service's formulas read or are sent as. The index of their rows by day
 * (lab_results_by_derivation_day) holds these: a formula a later release brings that reads
 * another item is worked out all the same, without it.
 */
export const DERIVATION_CODES: readonly string[] = [
  ...new Set(DERIVED_ITEMS.flatMap((item) => formulaCodes(item.formula))),
].sort();

/** An SQL string literal. */
export const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A lab_results row (aliased `a`) a formula may read: matched, numeric, of a derivation item (the index's condition, word for word). */
export const derivationInputRow = (a: string) =>
  `${a}.std_code in (${DERIVATION_CODES.map(sqlText).join(", ")}) and ${a}.std_value is not null and ${a}.patient_ref is not null`;

/** A row's day of collection, else of report: the day its derived values belong to. */
export const derivationDay = (a: string) => `coalesce(${a}.collected_on, ${a}.reported_on)`;

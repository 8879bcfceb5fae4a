/**
 * Conditional highlight (issue #22): which tone a value of a table column or a stat gets. Shared by
 * the embed page (browser), the docx export and the xlsx export: no Node-only imports.
 *
 * A value is compared as the query returns it, before the column's format (a `percent:1` column
 * holding 0.653 is compared as 0.653); a value that is not a number (null, text) gets no tone.
 * The first rule that matches wins, so bands are written most severe first:
 * `below 1.2 → danger`, then `below 1.4 → warning`.
 */
import type { HighlightRuleDef, HighlightTone } from "../../../commands/reports/spec/specSchema.ts";
import { numberOf } from "./formatValue.ts";

export type { HighlightRuleDef, HighlightTone };

/** Whether a rule's condition holds for a value: below and above are strict, between includes both ends. */
export function ruleMatches(rule: HighlightRuleDef, value: unknown): boolean {
  const number = numberOf(value);
  if (number === null) return false;
  if (rule.below !== undefined) return number < rule.below;
  if (rule.above !== undefined) return number > rule.above;
  if (rule.between !== undefined) return number >= rule.between[0] && number <= rule.between[1];
  return false;
}

/** The first rule that matches the value, or undefined. */
export function matchingRule(
  rules: readonly HighlightRuleDef[] | undefined,
  value: unknown,
): HighlightRuleDef | undefined {
  if (!rules) return undefined;
  for (const rule of rules) if (ruleMatches(rule, value)) return rule;
  return undefined;
}

/** A table's rules of one column, in their order (empty when none). */
export function rulesOfColumn(rules: readonly HighlightRuleDef[] | undefined, column: string): HighlightRuleDef[] {
  return rules ? rules.filter((rule) => rule.column === column) : [];
}

/**
 * The tones' colours as RGB hex, for the docx and xlsx exports: Excel's own light fills with dark
 * text ("Light red fill with dark red text" …), which print legibly and read in grey too because
 * the text of a marked value is bold as well. The embed page's CSS uses the same values.
 */
export const TONE_COLOURS: Record<HighlightTone, { fill: string; text: string }> = {
  danger: { fill: "FFC7CE", text: "9C0006" },
  warning: { fill: "FFEB9C", text: "9C5700" },
  ok: { fill: "C6EFCE", text: "006100" },
};

/** A rule's condition as a reader reads it: "below 1.2", "above 130", "110 to 130". */
export function conditionText(
  rule: HighlightRuleDef,
  words: { below: string; above: string; to: string } = { below: "below", above: "above", to: "to" },
): string {
  if (rule.below !== undefined) return `${words.below} ${rule.below}`;
  if (rule.above !== undefined) return `${words.above} ${rule.above}`;
  if (rule.between !== undefined) return `${rule.between[0]} ${words.to} ${rule.between[1]}`;
  return "";
}

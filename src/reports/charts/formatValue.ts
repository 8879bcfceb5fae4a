/**
 * How a value of a query result reads as text: in a table cell, as a stat, as a filter value.
 * Shared by the docx export (server) and the embed page (browser): no Node-only imports.
 */
import type { ShownParamDef as ParamDef } from "../../../commands/reports/spec/specSchema.ts";

/** The languages a value is written for (the page's, the export's). */
export type ValueLang = "zh" | "en";

const FIRST_OF_MONTH = /^(\d{4})-(\d{2})-01(?:[T ]00:00(?::00)?)?$/;

/** A month as a reader of `lang` writes it: 2026-03, 2026年3月 (issue #54). Text that is no month stays. */
export function monthText(value: unknown, lang: ValueLang): string {
  const text = cellText(value);
  const month = /^(\d{4})-(\d{2})/.exec(text);
  if (!month) return text;
  return lang === "zh" ? `${month[1]}年${Number(month[2])}月` : `${month[1]}-${month[2]}`;
}

/**
 * Whether a column's dates are months: every value the first of its month (as `date_trunc('month',
 * …)` gives), and at least two of them, so a lone date that happens to be a first is left a date.
 */
export function holdsMonths(values: readonly unknown[]): boolean {
  let months = 0;
  for (const value of values) {
    if (value === null || value === undefined || value === "") continue;
    if (typeof value !== "string" || !FIRST_OF_MONTH.test(value)) return false;
    months++;
  }
  return months >= 2;
}

/** The decimals of a number as the data call wrote it (at most 6: a column of measured values, not of floating-point noise). */
function decimalsOf(value: unknown): number {
  const number = numberOf(value);
  if (number === null || Number.isInteger(number)) return 0;
  const text = typeof value === "string" ? value.trim() : String(number);
  if (/e/i.test(text)) return 6;
  const point = text.indexOf(".");
  return point < 0 ? 0 : Math.min(6, text.length - point - 1);
}

/** The decimals a column's numbers are all written with: as many as its most precise value has. */
export function columnDecimals(values: readonly unknown[]): number {
  let most = 0;
  for (const value of values) most = Math.max(most, decimalsOf(value));
  return most;
}

/** A number with exactly `decimals` decimals, no grouping (a year stays 2026). Not a number: as it comes. */
export function fixedDecimals(value: unknown, decimals: number): string {
  const number = numberOf(value);
  if (number === null) return cellText(value);
  return number.toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
    useGrouping: false,
  });
}

/** A table cell: null is empty, numbers and dates keep the text the data call gives them. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A number, or a numeric string as the data call sends a bigint / numeric that does not fit a double; else null. */
export function numberOf(value: unknown): number | null {
  return typeof value === "number"
    ? value
    : typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))
      ? Number(value)
      : null;
}

/**
 * A stat's value. Without `format`: numbers with thousands separators and at most two decimals.
 * With `format`, a small Excel-like pattern: the run of `#`, `0`, `,` and `.` is the number
 * (`,` groups thousands, the `0`s after `.` give the decimals), a `%` anywhere multiplies by 100,
 * and any other text is kept around the number — `0.0 g/L`, `#,##0`, `0%`, `≥ 0.00`.
 * A value that is not a number is shown as its text.
 */
export function statText(value: unknown, format?: string): string {
  const number = numberOf(value);
  if (number === null) return value === null || value === undefined ? "–" : cellText(value);
  if (!format) return number.toLocaleString("en-US", { maximumFractionDigits: 2 });
  const pattern = /[#0][#0,]*(\.[0#]+)?|\.[0#]+/.exec(format);
  if (!pattern) return `${number.toLocaleString("en-US", { maximumFractionDigits: 2 })}${format}`;
  const spec = pattern[0];
  const decimals = spec.includes(".") ? spec.slice(spec.indexOf(".") + 1).length : 0;
  const minimum = spec.includes(".") ? spec.slice(spec.indexOf(".") + 1).replace(/#/g, "").length : 0;
  const scaled = format.includes("%") ? number * 100 : number;
  const text = scaled.toLocaleString("en-US", {
    useGrouping: spec.includes(","),
    minimumFractionDigits: minimum,
    maximumFractionDigits: decimals,
  });
  return format.slice(0, pattern.index) + text + format.slice(pattern.index + spec.length);
}

/** Option labels of select params: from the static list, or from the option query's `value` / `label` columns. */
export type OptionLabels = Map<string, string>;

export function optionLabels(param: ParamDef, queryResult?: { columns: string[]; rows: unknown[][] }): OptionLabels {
  const labels: OptionLabels = new Map();
  if (param.type !== "select" && param.type !== "multiSelect") return labels;
  if (Array.isArray(param.options)) {
    for (const option of param.options) labels.set(String(option.value), option.label || String(option.value));
  } else if (queryResult) {
    const valueIndex = queryResult.columns.indexOf("value");
    const labelIndex = queryResult.columns.indexOf("label");
    if (valueIndex >= 0 && labelIndex >= 0) {
      for (const row of queryResult.rows) labels.set(String(row[valueIndex]), cellText(row[labelIndex]));
    }
  }
  return labels;
}

/** The words a filter value may be shown with, in the reader's language. */
export interface ValueWords {
  all: string;
  yes: string;
  no: string;
}
const ENGLISH_VALUE_WORDS: ValueWords = { all: "(all)", yes: "yes", no: "no" };

/** A filter value as a person reads it: ranges "from – to", null "(all)", yes / no. */
export function paramText(
  param: Pick<ParamDef, "type">,
  value: unknown,
  labels: OptionLabels = new Map(),
  words: ValueWords = ENGLISH_VALUE_WORDS,
): string {
  if (value === null || value === undefined || (Array.isArray(value) && value.every((v) => v === null)))
    return words.all;
  const one = (v: unknown) => (v === null || v === undefined ? "…" : (labels.get(String(v)) ?? cellText(v)));
  switch (param.type) {
    case "dateRange":
    case "numberRange": {
      const [from, to] = value as [unknown, unknown];
      return `${one(from)} – ${one(to)}`;
    }
    case "multiSelect":
      return Array.isArray(value) ? (value.length === 0 ? words.all : value.map(one).join(", ")) : one(value);
    case "boolean":
      return value === true ? words.yes : value === false ? words.no : one(value);
    default:
      return one(value);
  }
}

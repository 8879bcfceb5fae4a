/**
 * How a value of a query result reads as text: in a table cell, as a stat, as a filter value.
 * Shared by the docx export (server) and the embed page (browser): no Node-only imports.
 */
import type { ParamDef } from "../../../commands/reports/spec/specSchema.ts";

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

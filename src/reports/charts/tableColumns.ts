/**
 * How a table node shows its columns (issue #22): which, under what heading, formatted how, and
 * aligned where. Shared by the embed page (browser) and the docx export (server): no Node-only
 * imports. A column given by name alone shows as it always has: its name, its text, numbers right.
 */
import type { ShownTableColumnDef as TableColumnDef } from "../../../commands/reports/spec/specSchema.ts";
import {
  cellText,
  columnDecimals,
  fixedDecimals,
  holdsMonths,
  monthText,
  numberOf,
  type ValueLang,
} from "./formatValue.ts";

export interface ColumnView {
  column: string;
  /** Its index in the query result. */
  index: number;
  /** The heading: the label (else the column name), with the unit in brackets. */
  heading: string;
  numeric: boolean;
  align: "left" | "center" | "right";
  format?: string;
  /**
   * Issue #54, for a column the node does not format: the decimals every number of a numeric
   * column is written with (its most precise value's, so 1.38, 1.40, 1.41 line up), and whether a
   * date column holds months (each the first of its month), written as months.
   */
  decimals?: number;
  months?: boolean;
}

const NUMERIC = new Set(["integer", "number"]);

/** The node's columns (all the result's when it names none) that the result has, and the names it lacks. */
export function tableColumns(
  columns: ReadonlyArray<string | TableColumnDef> | undefined,
  result: { columns: string[]; columnTypes: string[]; rows?: unknown[][] },
): { shown: ColumnView[]; missing: string[] } {
  const wanted: TableColumnDef[] = (columns ?? result.columns).map((entry) =>
    typeof entry === "string" ? { column: entry } : entry,
  );
  const shown: ColumnView[] = [];
  const missing: string[] = [];
  for (const def of wanted) {
    const index = result.columns.indexOf(def.column);
    if (index < 0) {
      missing.push(def.column);
      continue;
    }
    const type = result.columnTypes[index] ?? "";
    const numeric = NUMERIC.has(type);
    const values = !def.format && result.rows ? result.rows.map((row) => row[index]) : null;
    const decimals = values && type === "number" ? columnDecimals(values) : 0;
    shown.push({
      column: def.column,
      index,
      heading: `${def.label ?? def.column}${def.unit ? ` (${def.unit})` : ""}`,
      numeric,
      align: def.align ?? (numeric ? "right" : "left"),
      ...(def.format ? { format: def.format } : {}),
      ...(decimals > 0 ? { decimals } : {}),
      ...(values && type === "date" && holdsMonths(values) ? { months: true } : {}),
    });
  }
  return { shown, missing };
}

/**
 * A cell as its column's format writes it: `number:<d>` with d decimals and thousands grouped,
 * `percent:<d>` a fraction as per cent (0.653 → 65.3 %), `date` the day, `datetime` to the minute.
 * A value the format does not fit (text in a number column) is shown as it comes.
 */
export function formattedCell(value: unknown, format: string | undefined, lang: ValueLang = "en"): string {
  if (!format || value === null || value === undefined) return cellText(value);
  if (format === "month") return monthText(value, lang);
  const [kind, decimals] = format.split(":");
  if (kind === "number" || kind === "percent") {
    const number = numberOf(value);
    if (number === null) return cellText(value);
    const digits = Number(decimals);
    const text = (kind === "percent" ? number * 100 : number).toLocaleString("en-US", {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    return kind === "percent" ? `${text}%` : text;
  }
  const text = cellText(value);
  const dateTime = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?/.exec(text);
  if (!dateTime) return text;
  return kind === "date" ? dateTime[1]! : `${dateTime[1]}${dateTime[2] ? ` ${dateTime[2]}` : ""}`;
}

const BOOLEAN_WORDS: Record<ValueLang, [string, string]> = { zh: ["是", "否"], en: ["yes", "no"] };

/**
 * A cell as its column shows it to a reader of `lang` (issue #54): its format when the node gives
 * one, else its numbers with the column's decimals and its months as months; else as it comes.
 */
export function columnCell(view: ColumnView, value: unknown, lang: ValueLang): string {
  if (value === null || value === undefined) return "";
  // A yes/no column in the reader's words, not JavaScript's true / false.
  if (typeof value === "boolean") return BOOLEAN_WORDS[lang][value ? 0 : 1];
  if (view.format) return formattedCell(value, view.format, lang);
  if (view.months) return monthText(value, lang);
  if (view.decimals !== undefined) return fixedDecimals(value, view.decimals);
  return cellText(value);
}

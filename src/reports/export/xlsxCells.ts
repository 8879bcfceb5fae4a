import type { ColumnType } from "../../../commands/reports/spec/queryOutcome.ts";
import { valueOf } from "../../../queries/reports/queryResult.ts";

/** What one spreadsheet cell holds: numbers, booleans and Dates are written typed (Dates with their column's date format), strings as text. */
export type CellValue = string | number | boolean | Date | null;

/** Excel's limit for the text of one cell. */
const MAX_CELL_TEXT = 32_767;

/** Text that only holds signs, or a signed decimal number: inert even if a spreadsheet evaluated it. */
const INERT_SIGNED = /^(?:[+-]+|[+-]\d+(?:\.\d+)?)$/;

/**
 * Text as a spreadsheet cell, safe against formula injection (OWASP "CSV injection"): text that
 * begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so that neither
 * Excel on re-editing the cell nor any tool the sheet is saved to CSV for takes it for a formula.
 * (The file itself stores every string as a string cell, never as a formula.) Qualitative results
 * such as `+`, `++`, `-` and signed plain numbers are left alone: they cannot call anything.
 */
export function textCell(text: string): string {
  const first = text.charCodeAt(0);
  // = + - @ \t \r
  const risky =
    (first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13) &&
    !INERT_SIGNED.test(text);
  const safe = risky ? `'${text}` : text;
  return safe.length > MAX_CELL_TEXT ? `${safe.slice(0, MAX_CELL_TEXT - 1)}…` : safe;
}

const digits = (text: string, from: number, to: number): number => {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    value = value * 10 + d;
  }
  return value;
};

/**
 * `yyyy-MM-dd` or `yyyy-MM-dd HH:mm:ss` as the Date whose UTC fields are that wall-clock time:
 * exceljs writes a Date as its UTC serial number, so Excel shows exactly the interface's text.
 * Null when the text is no such time or Excel cannot show it (before 1900, after 9999).
 */
export function wallClockDate(text: string, withTime: boolean): Date | null {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return null;
  if (withTime) {
    // Fractions of a second and a zone offset may follow; an era (" BC") may not.
    const next = text.charCodeAt(19);
    if (
      text.length < 19 ||
      (text.charCodeAt(10) !== 32 && text.charCodeAt(10) !== 84) ||
      !(Number.isNaN(next) || next === 46 || next === 43 || next === 45)
    )
      return null;
  } else if (text.length !== 10) {
    return null;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  let ms: number;
  if (withTime) {
    const hours = digits(text, 11, 13);
    const minutes = digits(text, 14, 16);
    const seconds = digits(text, 17, 19);
    ms = Date.UTC(year, month - 1, day, hours, minutes, seconds);
  } else {
    ms = Date.UTC(year, month - 1, day);
  }
  if (!(year >= 1900) || Number.isNaN(ms) || month < 1 || month > 12 || day < 1 || day > 31) return null;
  return new Date(ms);
}

/** A value as the data call shapes it (contract A.2) as the cell of a column of that type. */
export function cellOf(type: ColumnType, value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "integer":
    case "number":
      // Digits a double cannot hold exactly (and NaN, Infinity) stay text rather than be rounded.
      return typeof value === "number" ? value : textCell(String(value));
    case "date":
    case "datetime":
      return typeof value === "string"
        ? (wallClockDate(value, type === "datetime") ?? textCell(value))
        : textCell(String(value));
    case "boolean":
      return typeof value === "boolean" ? value : textCell(String(value));
    case "json":
      return textCell(JSON.stringify(value));
    default:
      if (typeof value === "string") return textCell(value);
      if (typeof value === "number" || typeof value === "boolean") return value;
      return textCell(JSON.stringify(value));
  }
}

/** Converts PostgreSQL's text of a column (by type OID) to cells, the way the data call would shape it. */
export function textToCell(oid: number, type: ColumnType): (text: string | null) => CellValue {
  switch (type) {
    case "string":
      return (text) => (text === null ? null : textCell(text));
    case "date":
      return (text) => (text === null ? null : (wallClockDate(text, false) ?? textCell(text)));
    case "datetime":
      return (text) => (text === null ? null : (wallClockDate(text, true) ?? textCell(text)));
    case "boolean":
      return (text) => (text === null ? null : text === "t");
    default:
      return (text) => cellOf(type, valueOf(oid, text));
  }
}

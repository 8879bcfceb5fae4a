import type { CellValue } from "./xlsxCells.ts";

/**
 * The `<row>` elements of a worksheet's `<sheetData>`, written straight from cell values.
 *
 * exceljs builds a Row, a Cell per value, a model per cell and an array of string pieces per row
 * before it joins them into XML: for 100,000 rows x 10 columns that was most of an export's CPU
 * time and most of its garbage. This writes the cells the way exceljs 4.4's streaming writer
 * writes them (so anything that reads exceljs's files reads these):
 *
 * - text as `t="str"` with the text in `<v>`, escaped and without the characters XML 1.0 forbids;
 * - numbers as `<v>` with JavaScript's own digits; booleans as `t="b"` 1 or 0;
 * - dates as their serial day number (1900 date system, from the Date's UTC time), with the
 *   column's style so that they show with its date format;
 * - empty cells not at all.
 *
 * Rows leave out exceljs's `spans` and `x14ac:dyDescent` attributes: both are optional hints
 * (the second an Excel 2010 extension the sheet declares ignorable), a tenth of the XML.
 */

/** How one column's cells are written: the letters of its cell references and its style attribute. */
export interface RowsXmlColumn {
  /** `<c r="` and the column's letters: a cell's opening up to its row number. */
  opening: string;
  /** The end of the reference and the style attribute (` s="n"`, none for the default style). */
  styled: string;
}

/** A column's letters: 0 → "A", 25 → "Z", 26 → "AA". */
export function columnLetters(index: number): string {
  let letters = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The formats of a sheet's columns, by style id (0: the workbook's default style). */
export function rowsXmlColumns(styleIds: readonly number[]): RowsXmlColumn[] {
  return styleIds.map((styleId, index) => ({
    opening: `<c r="${columnLetters(index)}`,
    styled: styleId ? `" s="${styleId}"` : '"',
  }));
}

// exceljs escapes the same characters (quotes too), and drops the control characters XML 1.0
// does not allow (and DEL), keeping tab, line feed and carriage return.
const NEEDS_ESCAPING = /[<>&'"\x7F\x00-\x08\x0B\x0C\x0E-\x1F]/;
const ESCAPED = /[<>&'"\x7F\x00-\x08\x0B\x0C\x0E-\x1F]/g;
const ENTITIES: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" };

/** Text as XML character data. */
export function xmlText(text: string): string {
  return NEEDS_ESCAPING.test(text) ? text.replace(ESCAPED, (char) => ENTITIES[char] ?? "") : text;
}

const MS_PER_DAY = 86_400_000;
/** Days from Excel's day 0 (1899-12-30 in the 1900 date system) to 1970-01-01. */
const UNIX_EPOCH_SERIAL = 25_569;

/** One row's XML; `row` holds one value per column (null: an empty cell). */
export function rowXml(row: readonly CellValue[], rowNumber: number, columns: readonly RowsXmlColumn[]): string {
  const r = String(rowNumber);
  let xml = `<row r="${r}">`;
  for (let c = 0; c < columns.length; c++) {
    const value = row[c];
    if (value === null || value === undefined) continue;
    const column = columns[c]!;
    const opening = column.opening + r + column.styled;
    switch (typeof value) {
      case "string":
        xml += `${opening} t="str"><v>${xmlText(value)}</v></c>`;
        break;
      case "number":
        // NaN and Infinity have no spreadsheet number: they stay words, as the data call shows them.
        xml += Number.isFinite(value) ? `${opening}><v>${value}</v></c>` : `${opening} t="str"><v>${value}</v></c>`;
        break;
      case "boolean":
        xml += `${opening} t="b"><v>${value ? 1 : 0}</v></c>`;
        break;
      default: {
        const serial = UNIX_EPOCH_SERIAL + value.getTime() / MS_PER_DAY;
        xml += Number.isFinite(serial)
          ? `${opening}><v>${serial}</v></c>`
          : `${opening} t="str"><v>${xmlText(String(value))}</v></c>`;
      }
    }
  }
  return `${xml}</row>`;
}

/** UTF-8 takes at most 3 bytes for each UTF-16 unit of a JavaScript string. */
const MAX_UTF8_PER_UNIT = 3;

/**
 * Writes rows numbered from `firstRowNumber` as UTF-8 XML into `scratch`, handing each filled part
 * to `sink`, which must be done with it (copy it) before it returns: `scratch` is written over next.
 * Encoding row by row into one buffer spares building (and flattening) a string of a whole batch.
 */
export function writeRowsXml(
  rows: readonly (readonly CellValue[])[],
  firstRowNumber: number,
  columns: readonly RowsXmlColumn[],
  scratch: Buffer,
  sink: (xml: Buffer) => void,
): void {
  let used = 0;
  let rowNumber = firstRowNumber;
  for (const row of rows) {
    const xml = rowXml(row, rowNumber++, columns);
    if (used + xml.length * MAX_UTF8_PER_UNIT > scratch.length) {
      if (used) sink(scratch.subarray(0, used));
      used = 0;
      if (xml.length * MAX_UTF8_PER_UNIT > scratch.length) {
        sink(Buffer.from(xml, "utf8")); // a row of long texts, larger than the scratch buffer
        continue;
      }
    }
    used += scratch.write(xml, used);
  }
  if (used) sink(scratch.subarray(0, used));
}

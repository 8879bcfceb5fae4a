/**
 * The month's export as a workbook (contract G.2): a first sheet about the file (month, ward,
 * state, the close, notes), then the indicator table, the per-patient sheet and the 12 months'
 * trend, each with its header in row 1 and typed cells from row 2 (counts as numbers, rates as
 * numbers shown as percentages). Written with the report exports' streaming writer (no shared
 * strings, a sheet committed row by row), into `out`.
 */
import type { Writable } from "node:stream";
import ExcelJS from "exceljs";
import type { MonthExport } from "../../../queries/quality/monthExport.ts";
import { textCell } from "../../reports/export/xlsxCells.ts";
import { abortWorkbook, workbookWriter } from "../../reports/export/xlsxStreamingWorkbook.ts";
import {
  aboutLines,
  indicatorTable,
  patientTable,
  trendTable,
  type ExportTable,
  type TableCell,
} from "./qualityExportTables.ts";
import { qualityExportWords, type QualityExportLang } from "./qualityExportWords.ts";

const HEADER_STYLE = Object.freeze({ font: Object.freeze({ name: "Calibri", family: 2, size: 11, bold: true }) });
const RATE_FORMAT = "0.00%";

const cellValue = (value: TableCell) => (typeof value === "string" ? textCell(value) : value);

/** A sheet of a table; one without rows says `empty` under its header. */
function writeTable(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  name: string,
  table: ExportTable,
  empty?: string,
): void {
  const sheet = workbook.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = table.headings.map((heading, column) => ({
    width: Math.min(60, Math.max(10, ...[heading, ...table.rows.map((row) => row[column])].map(widthOf))),
  }));
  const header = sheet.addRow(table.headings.map(textCell));
  header.eachCell((cell) => (cell.style = HEADER_STYLE as ExcelJS.Style));
  header.commit();
  for (const values of table.rows) {
    const row = sheet.addRow(values.map(cellValue));
    for (const column of table.rateColumns) row.getCell(column + 1).numFmt = RATE_FORMAT;
    row.commit();
  }
  if (table.rows.length === 0 && empty) sheet.addRow([textCell(empty)]).commit();
  sheet.commit();
}

/** About as many characters as the value shows, a Chinese character counted twice. */
function widthOf(value: TableCell | undefined): number {
  const text = value === null || value === undefined ? "" : String(value);
  return [...text].reduce((width, character) => width + (character.charCodeAt(0) > 0x2e80 ? 2 : 1), 2);
}

/** Writes the workbook into `out`; resolves once it is complete. */
export async function writeQualityXlsx(
  out: Writable,
  exported: MonthExport,
  lang: QualityExportLang,
  exportedAt: string,
): Promise<void> {
  const words = qualityExportWords(lang);
  const workbook = workbookWriter(out);
  try {
    const about = workbook.addWorksheet(words.sheets.about);
    about.columns = [{ width: 16 }, { width: 100 }];
    for (const [label, value] of aboutLines(exported, words, lang, exportedAt)) {
      const row = about.addRow([textCell(label), textCell(value)]);
      row.getCell(1).style = HEADER_STYLE as ExcelJS.Style;
      row.commit();
    }
    about.commit();
    writeTable(workbook, words.sheets.indicators, indicatorTable(exported, words, lang));
    writeTable(workbook, words.sheets.patients, patientTable(exported, words, lang), words.noPatients);
    writeTable(workbook, words.sheets.trend, trendTable(exported, words, lang));
    await workbook.commit();
  } catch (error) {
    abortWorkbook(workbook);
    throw error;
  }
}

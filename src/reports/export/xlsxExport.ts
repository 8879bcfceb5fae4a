import type { Writable } from "node:stream";
import ExcelJS from "exceljs";
import type { ExportEvent } from "../../../queries/reports/exportRows.ts";
import type { ColumnType, QueryOutcome } from "../../../commands/reports/spec/queryOutcome.ts";
import { columnTypeOf } from "../../../queries/reports/queryResult.ts";
import { TONE_COLOURS, type HighlightRuleDef, type HighlightTone } from "../charts/highlight.ts";
import { cellOf, textCell, textToCell, type CellValue } from "./xlsxCells.ts";
import { rowsXmlColumns, writeRowsXml, type RowsXmlColumn } from "./xlsxRowsXml.ts";
import {
  abortWorkbook,
  appendRows,
  awaitCompression,
  moveLastSheetFirst,
  styleIdOf,
  workbookWriter,
} from "./xlsxStreamingWorkbook.ts";
import { exportWords, type ExportLang, type ExportWords } from "./exportWords.ts";

export interface XlsxColumn {
  name: string;
  type: ColumnType;
}

/** One query's sheet as it is written: its columns, rows of cells in batches, then the end or an error. */
export type SheetEvent =
  | { kind: "columns"; columns: XlsxColumn[] }
  | { kind: "rows"; rows: CellValue[][] }
  | { kind: "end"; note?: string }
  /** `reason`: why the query failed, already in the file's words (ExportWords.queryFailure). */
  | { kind: "error"; reason: string };

export interface XlsxSheet {
  /** The query's name; the sheet's name is derived from it. */
  query: string;
  events: AsyncIterable<SheetEvent>;
  /** Excel number formats of some columns, by column name (from the spec's table columns). */
  numberFormats?: ReadonlyMap<string, string>;
  /** Highlight rules of some columns, by column name (from the spec's table nodes), written as conditional formatting. */
  highlights?: ReadonlyMap<string, readonly HighlightRuleDef[]>;
}

/** A table column's `format` (issue #22) as an Excel number format: the cell keeps its value, the format how it reads. */
export function excelNumberFormat(format: string): string {
  const [kind, decimals] = format.split(":");
  const fraction = Number(decimals) > 0 ? `.${"0".repeat(Number(decimals))}` : "";
  if (kind === "number") return `#,##0${fraction}`;
  if (kind === "percent") return `0${fraction}%`;
  if (kind === "month") return "yyyy-mm";
  return kind === "date" ? DATE_FORMAT : "yyyy-mm-dd hh:mm";
}

/** A column's letters: 0 → A, 26 → AA. */
function columnLetters(index: number): string {
  let letters = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** A tone as a conditional format's style: the fill and bold dark text of the embed page and the docx. */
function toneStyle(tone: HighlightTone): Partial<ExcelJS.Style> {
  const { fill, text } = TONE_COLOURS[tone];
  return {
    fill: { type: "pattern", pattern: "solid", bgColor: { argb: `FF${fill}` } },
    font: { bold: true, color: { argb: `FF${text}` } },
  };
}

/**
 * A column's highlight rules as Excel conditional formatting over its data rows (row 2 on), so
 * the marks follow the values when the reader sorts or edits. The rules keep their order as
 * priorities: where two match, Excel applies the format of the first, as the page does. Each
 * formula asks ISNUMBER first, because Excel takes an empty cell for 0 ("below 1.2" would mark it)
 * and the page marks numbers only.
 */
export function highlightFormatting(
  column: number,
  rows: number,
  rules: readonly HighlightRuleDef[],
): ExcelJS.ConditionalFormattingOptions | null {
  if (rows === 0 || rules.length === 0) return null;
  const letters = columnLetters(column);
  const cell = `${letters}2`;
  const condition = (rule: HighlightRuleDef): string =>
    rule.below !== undefined
      ? `${cell}<${rule.below}`
      : rule.above !== undefined
        ? `${cell}>${rule.above}`
        : `${cell}>=${rule.between![0]},${cell}<=${rule.between![1]}`;
  return {
    ref: `${cell}:${letters}${rows + 1}`,
    rules: rules.map(
      (rule) =>
        ({
          type: "expression",
          formulae: [`AND(ISNUMBER(${cell}),${condition(rule)})`],
          style: toneStyle(rule.tone),
        }) as ExcelJS.ConditionalFormattingRule,
    ),
  };
}

/** What the first sheet, "About" (in the file's language), tells (values as the interface shows them; times as yyyy-MM-dd HH:mm:ss). */
export interface XlsxAbout {
  report: string;
  version: string;
  mode: string;
  publishedAt: string;
  exportedAt: string;
  datasource: string;
  filters: Array<{ label: string; value: string }>;
  drill?: { title: string; args: Array<{ name: string; value: string }> };
  /** The language of the workbook's own words (labels, notes); English when left out. */
  lang?: ExportLang;
}

const DATE_FORMAT = "yyyy-mm-dd";
const DATETIME_FORMAT = "yyyy-mm-dd hh:mm:ss";

// Style objects are shared on purpose: exceljs caches a style's id per object, so each cell
// reuses it instead of working the style out again.
const HEADER_STYLE = Object.freeze({ font: Object.freeze({ name: "Calibri", family: 2, size: 11, bold: true }) });
const NOTE_STYLE = Object.freeze({ font: Object.freeze({ name: "Calibri", family: 2, size: 11, italic: true }) });
const COLUMN_STYLES: Record<ColumnType, object> = {
  string: {},
  integer: {},
  number: {},
  boolean: {},
  json: {},
  date: Object.freeze({ numFmt: DATE_FORMAT }),
  datetime: Object.freeze({ numFmt: DATETIME_FORMAT }),
};
const formatStyles = new Map<string, object>();
/** One frozen style object per number format, as for COLUMN_STYLES (exceljs caches a style's id per object). */
function formatStyle(numFmt: string): object {
  let style = formatStyles.get(numFmt);
  if (!style) formatStyles.set(numFmt, (style = Object.freeze({ numFmt })));
  return style;
}
/** The kind of cell a column's style is first worked out for (exceljs picks a number format by it when the style has none). */
const COLUMN_VALUE_TYPES: Record<ColumnType, ExcelJS.ValueType> = {
  string: ExcelJS.ValueType.String,
  integer: ExcelJS.ValueType.Number,
  number: ExcelJS.ValueType.Number,
  boolean: ExcelJS.ValueType.Boolean,
  json: ExcelJS.ValueType.String,
  date: ExcelJS.ValueType.Date,
  datetime: ExcelJS.ValueType.Date,
};

/**
 * Sheet names: without `[ ] : * ? / \`, at most 31 characters, unique ignoring case, never the
 * About sheet's (`about`: its name in the file's language) or Excel's reserved "History".
 */
export function sheetNames(queries: readonly string[], about = "About"): string[] {
  const taken = new Set([about.toLowerCase(), "history"]);
  return queries.map((query) => {
    const base =
      query
        .replace(/[[\]:*?/\\]/g, "_")
        .replace(/^'+|'+$/g, "")
        .trim() || "Sheet";
    let name = base.slice(0, 31);
    for (let n = 2; taken.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      name = `${base.slice(0, 31 - suffix.length)}${suffix}`;
    }
    taken.add(name.toLowerCase());
    return name;
  });
}

function columnWidth(column: XlsxColumn): number {
  const minimum = column.type === "datetime" ? 20 : column.type === "date" ? 12 : 10;
  return Math.min(50, Math.max(minimum, column.name.length + 2));
}

export interface SheetSummary {
  sheet: string;
  query: string;
  rows: number;
  note: string;
}

/**
 * Between batches: lets the event loop turn (compression, the socket, other requests), then waits
 * while the reader of `out` is behind, so a slow client never makes the export pile up in memory.
 */
async function keepPace(out: Writable, signal: AbortSignal): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (!out.writableNeedDrain || signal.aborted) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    out.on("drain", done);
    out.on("close", done);
    signal.addEventListener("abort", done);
  });
}

class Aborted extends Error {}

/**
 * Writes a workbook into `out` as its sheets' rows arrive: each batch of rows is committed as it
 * arrives, each sheet when its query is done, so the workbook is never held whole in memory. The
 * "About" sheet comes first in the workbook but is written last (then moved to the front), so
 * that it can tell how many rows each sheet holds and which were cut or failed. Resolves when the
 * file is complete; rejects (and stops reading the sheets' sources) when `signal` aborts or
 * writing fails.
 */
export async function writeXlsx(
  out: Writable,
  about: XlsxAbout,
  sheets: readonly XlsxSheet[],
  signal: AbortSignal,
): Promise<SheetSummary[]> {
  const workbook = workbookWriter(out);
  const words = exportWords(about.lang);
  const names = sheetNames(
    sheets.map((sheet) => sheet.query),
    words.aboutSheet,
  );
  const summaries: SheetSummary[] = [];
  try {
    for (const [index, sheet] of sheets.entries()) {
      summaries.push(await writeSheet(workbook, names[index]!, sheet, out, signal, words));
    }
    if (signal.aborted) throw new Aborted();
    const aboutSheet = workbook.addWorksheet(words.aboutSheet);
    writeAbout(aboutSheet, about, summaries);
    aboutSheet.commit();
    moveLastSheetFirst(workbook);
    await workbook.commit();
    return summaries;
  } catch (error) {
    abortWorkbook(workbook);
    throw signal.aborted ? new Aborted("The export was stopped: its reader went away.") : error;
  }
}

async function writeSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  name: string,
  sheet: XlsxSheet,
  out: Writable,
  signal: AbortSignal,
  words: ExportWords,
): Promise<SheetSummary> {
  const worksheet = workbook.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
  let rows = 0;
  let note = "";
  let columns: RowsXmlColumn[] = [];
  let scratch: Buffer | null = null;
  let started = false;
  let names: string[] = [];
  const noteRow = (text: string) => {
    worksheet.addRow([]).commit();
    const row = worksheet.addRow([textCell(text)]);
    row.getCell(1).style = NOTE_STYLE as ExcelJS.Style;
    row.commit();
  };
  for await (const event of sheet.events) {
    if (signal.aborted) throw new Aborted();
    switch (event.kind) {
      case "columns": {
        worksheet.columns = event.columns.map((column) => ({ width: columnWidth(column) }));
        names = event.columns.map((column) => column.name);
        columns = rowsXmlColumns(
          event.columns.map((column) => {
            const numFmt = sheet.numberFormats?.get(column.name);
            return styleIdOf(
              workbook,
              numFmt ? formatStyle(numFmt) : COLUMN_STYLES[column.type],
              COLUMN_VALUE_TYPES[column.type],
            );
          }),
        );
        const header = worksheet.addRow(event.columns.map((column) => textCell(column.name)));
        for (let c = 1; c <= event.columns.length; c++) header.getCell(c).style = HEADER_STYLE as ExcelJS.Style;
        header.commit();
        started = true;
        break;
      }
      case "rows":
        writeRows(worksheet, event.rows, columns, (scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES)));
        rows += event.rows.length;
        await keepPace(out, signal);
        await awaitCompression(worksheet, signal);
        break;
      case "end":
        if (event.note) {
          note = event.note;
          noteRow(note);
        }
        break;
      case "error":
        note = rows ? words.queryFailedAfter(rows, event.reason) : event.reason;
        if (!started) worksheet.columns = [{ width: 100 }];
        noteRow(note);
        break;
    }
  }
  // Written with the sheet's end (where the XML keeps them), once the number of data rows is known.
  names.forEach((column, index) => {
    const formatting = highlightFormatting(index, rows, sheet.highlights?.get(column) ?? []);
    if (formatting) worksheet.addConditionalFormatting(formatting);
  });
  worksheet.commit();
  return { sheet: name, query: sheet.query, rows, note };
}

/** Where a batch of rows is encoded before the sheet's stream copies it (about one batch of rows). */
const SCRATCH_BYTES = 1024 * 1024;

/**
 * Writes rows of cells after the sheet's committed rows, as XML of our own (see xlsxRowsXml.ts:
 * exceljs's Row and Cell objects cost most of an export's time), already committed.
 */
function writeRows(
  worksheet: ExcelJS.Worksheet,
  rows: readonly CellValue[][],
  columns: readonly RowsXmlColumn[],
  scratch: Buffer,
): void {
  appendRows(worksheet, rows.length, (firstRowNumber, sink) =>
    writeRowsXml(rows, firstRowNumber, columns, scratch, sink),
  );
}

/** The shared style of each column type, for the benchmark's ceiling (exceljs writing the same rows its own way). */
export function columnStyles(columns: readonly XlsxColumn[]): object[] {
  return columns.map((column) => COLUMN_STYLES[column.type]);
}

function writeAbout(worksheet: ExcelJS.Worksheet, about: XlsxAbout, summaries: readonly SheetSummary[]): void {
  worksheet.columns = [{ width: 24 }, { width: 60 }, { width: 12 }, { width: 80 }];
  const line = (values: CellValue[], style?: object) => {
    const row = worksheet.addRow(values.map((value) => (typeof value === "string" ? textCell(value) : value)));
    if (style) row.eachCell((cell) => (cell.style = style as ExcelJS.Style));
    row.commit();
  };
  const words = exportWords(about.lang);
  line([words.report, about.report]);
  line([words.version, about.version]);
  line([words.mode, about.mode]);
  line([words.publishedAt, about.publishedAt]);
  line([words.exportedAt, about.exportedAt]);
  line([words.datasource, about.datasource]);
  if (about.drill) {
    line([]);
    line([words.drill, about.drill.title], HEADER_STYLE);
    for (const arg of about.drill.args) line([arg.name, arg.value]);
  }
  line([]);
  line([words.filters], HEADER_STYLE);
  if (!about.filters.length) line([words.none]);
  for (const filter of about.filters) line([filter.label, filter.value]);
  line([]);
  line([...words.sheetHeadings], HEADER_STYLE);
  for (const summary of summaries) line([summary.sheet, summary.query, summary.rows, summary.note || null]);
}

/** A live query's rows (PostgreSQL text) as sheet events; a cut result gets the note. */
export async function* liveSheetEvents(
  events: AsyncIterable<ExportEvent>,
  limit: number,
  words: ExportWords = exportWords(),
): AsyncGenerator<SheetEvent, void, undefined> {
  let convert: Array<(text: string | null) => CellValue> = [];
  for await (const event of events) {
    switch (event.kind) {
      case "fields": {
        const columns = event.fields.map((field) => ({ name: field.name, type: columnTypeOf(field.oid) }));
        convert = event.fields.map((field, i) => textToCell(field.oid, columns[i]!.type));
        yield { kind: "columns", columns };
        break;
      }
      case "rows": {
        const width = convert.length;
        const rows = event.rows as unknown as CellValue[][];
        // The raw rows are the reader's own arrays: converted in place.
        for (const row of event.rows)
          for (let c = 0; c < width; c++) (row as CellValue[])[c] = convert[c]!(row[c] as string | null);
        yield { kind: "rows", rows };
        break;
      }
      case "end":
        yield event.truncated ? { kind: "end", note: words.cut(limit) } : { kind: "end" };
        break;
      case "error":
        yield { kind: "error", reason: words.queryFailure(event) };
        break;
    }
  }
}

const FROZEN_BATCH = 2000;

/** A snapshot's frozen result (already shaped as the data call answers) as sheet events. */
export async function* frozenSheetEvents(
  outcome: QueryOutcome | undefined,
  frozenLimit: number,
  words: ExportWords = exportWords(),
): AsyncGenerator<SheetEvent, void, undefined> {
  if (!outcome) {
    yield { kind: "error", reason: words.notFrozen };
    return;
  }
  if ("error" in outcome) {
    yield { kind: "error", reason: words.queryFailure(outcome) };
    return;
  }
  const columns = outcome.columns.map((name, i) => ({ name, type: outcome.columnTypes[i] ?? "string" }));
  yield { kind: "columns", columns };
  for (let start = 0; start < outcome.rows.length; start += FROZEN_BATCH) {
    yield {
      kind: "rows",
      rows: outcome.rows
        .slice(start, start + FROZEN_BATCH)
        .map((row) => columns.map((column, c) => cellOf(column.type, row[c]))),
    };
  }
  yield outcome.truncated ? { kind: "end", note: words.frozenCut(frozenLimit) } : { kind: "end" };
}

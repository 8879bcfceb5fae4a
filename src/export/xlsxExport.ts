import type { Writable } from "node:stream";
import ExcelJS from "exceljs";
import type { ExportEvent } from "../../queries/reports/exportRows.ts";
import { columnTypeOf, type ColumnType, type QueryOutcome } from "../../queries/reports/queryResult.ts";
import { cellOf, textCell, textToCell, type CellValue } from "./xlsxCells.ts";

export const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/**
 * How every export workbook is written (and the benchmark's in-memory ceiling with it): exceljs's
 * streaming writer, styles on (for the date formats), no shared strings (they would keep every
 * distinct string in memory until the end).
 */
export function workbookWriter(stream: Writable): ExcelJS.stream.xlsx.WorkbookWriter {
  // Deflate level 1: a sheet's XML compresses to nearly the same size as at the default level 6
  // (about 6 MB instead of 5 MB for 100,000 rows x 10 columns) for a fraction of the CPU time.
  // Deflate runs on libuv's thread pool, but each piece handed to it, and each output buffer it
  // fills, needs a turn of the main thread before the next: with exceljs's 64 KB pieces and zlib's
  // 16 KB output buffer, compression only advanced while the writer paused between batches. With
  // 1 MB pieces (about one batch of rows) a batch compresses while the writer builds the next.
  const zip = { zlib: { level: 1, chunkSize: LARGE_PIECE } };
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false, zip });
  // exceljs 4.4 (pinned) opens each sheet's StreamBuf with 64 KB buffers; the size is a plain field.
  const internal = workbook as unknown as { _openStream?: (path: string) => { bufSize?: number } };
  const open = internal._openStream?.bind(workbook);
  if (open) {
    internal._openStream = (path) => {
      const sheetStream = open(path);
      sheetStream.bufSize = LARGE_PIECE;
      return sheetStream;
    };
  }
  return workbook;
}

const LARGE_PIECE = 1024 * 1024;

/** Sheet XML written but not yet compressed above which the writer waits for the compressor. */
const MAX_PENDING_XML = 4 * 1024 * 1024;

/**
 * Bytes of a sheet's XML waiting for compression. exceljs hands its XML to the zip without
 * backpressure (its StreamBuf ignores what `write` answers), so a writer faster than deflate
 * would pile up the whole sheet's XML in memory; the export waits on this instead. It reads
 * exceljs 4.4's internals (the sheet's StreamBuf pipes into a readable-stream PassThrough of
 * archiver's, whose queues hold the XML) and answers 0 if they are not there.
 */
export function pendingXml(worksheet: ExcelJS.Worksheet): number {
  type Queue = { _readableState?: { length?: number }; _writableState?: { length?: number } };
  const stream = (worksheet as unknown as { stream?: { pipes?: Queue[] } }).stream;
  return stream?.pipes?.reduce((sum, pipe) => sum + (pipe._readableState?.length ?? 0) + (pipe._writableState?.length ?? 0), 0) ?? 0;
}

/** Waits until the compressor has caught up with a sheet's XML (see `pendingXml`); never for good if it stops moving. */
export async function awaitCompression(worksheet: ExcelJS.Worksheet, signal?: AbortSignal): Promise<void> {
  let pending = pendingXml(worksheet);
  let lastMove = Date.now();
  while (pending > MAX_PENDING_XML && !signal?.aborted && Date.now() - lastMove < STALL_MS) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    const now = pendingXml(worksheet);
    if (now !== pending) lastMove = Date.now();
    pending = now;
  }
}

const STALL_MS = 10_000;

export interface XlsxColumn {
  name: string;
  type: ColumnType;
}

/** One query's sheet as it is written: its columns, rows of cells in batches, then the end or an error. */
export type SheetEvent =
  | { kind: "columns"; columns: XlsxColumn[] }
  | { kind: "rows"; rows: CellValue[][] }
  | { kind: "end"; note?: string }
  | { kind: "error"; error: string };

export interface XlsxSheet {
  /** The query's name; the sheet's name is derived from it. */
  query: string;
  events: AsyncIterable<SheetEvent>;
}

/** What the first sheet, "About", tells (values as the interface shows them). */
export interface XlsxAbout {
  report: string;
  version: string;
  mode: string;
  publishedAt: string;
  exportedAt: string;
  datasource: string;
  filters: Array<{ label: string; value: string }>;
  drill?: { title: string; args: Array<{ name: string; value: string }> };
}

export const cutNote = (limit: number) => `Only the first ${limit} rows are exported; narrow the filters to see the rest.`;
export const frozenCutNote = (limit: number) => `Only the first ${limit} rows were frozen when this snapshot was published.`;

const DATE_FORMAT = "yyyy-mm-dd";
const DATETIME_FORMAT = "yyyy-mm-dd hh:mm:ss";

// Style objects are shared on purpose: exceljs caches a style's id per object, so each cell
// reuses it instead of working the style out again.
/** For rows and empty cells: no style at all. */
const PLAIN_STYLE = Object.freeze({});
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

/** Sheet names: without `[ ] : * ? / \`, at most 31 characters, unique ignoring case, never "About" or Excel's reserved "History". */
export function sheetNames(queries: readonly string[]): string[] {
  const taken = new Set(["about", "history"]);
  return queries.map((query) => {
    const base = query.replace(/[[\]:*?/\\]/g, "_").replace(/^'+|'+$/g, "").trim() || "Sheet";
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
 * Writes a workbook into `out` as its sheets' rows arrive: each row is committed as it is added,
 * each sheet when its query is done, so the workbook is never held whole in memory. The "About"
 * sheet comes first in the workbook but is written last, so that it can tell how many rows each
 * sheet holds and which were cut or failed. Resolves when the file is complete; rejects (and
 * stops reading the sheets' sources) when `signal` aborts or writing fails.
 */
export async function writeXlsx(out: Writable, about: XlsxAbout, sheets: readonly XlsxSheet[], signal: AbortSignal): Promise<SheetSummary[]> {
  const workbook = workbookWriter(out);
  const names = sheetNames(sheets.map((sheet) => sheet.query));
  const summaries: SheetSummary[] = [];
  try {
    for (const [index, sheet] of sheets.entries()) {
      summaries.push(await writeSheet(workbook, names[index]!, sheet, out, signal));
    }
    if (signal.aborted) throw new Aborted();
    const aboutSheet = workbook.addWorksheet("About");
    writeAbout(aboutSheet, about, summaries);
    aboutSheet.commit();
    moveLastSheetFirst(workbook);
    await workbook.commit();
    return summaries;
  } catch (error) {
    (workbook as unknown as { zip?: { abort?: () => void } }).zip?.abort?.();
    throw signal.aborted ? new Aborted("The export was stopped: its reader went away.") : error;
  }
}

/**
 * exceljs lists sheets in the order they were added; "About" is added last (it summarises the
 * others) and moved to the front here. Worksheet ids and part names stay as they were: only the
 * order of the workbook's sheet list changes. (Relies on exceljs 4.4's WorkbookWriter, pinned.)
 */
function moveLastSheetFirst(workbook: ExcelJS.stream.xlsx.WorkbookWriter): void {
  const internal = workbook as unknown as { _worksheets: unknown[] };
  const present = internal._worksheets.filter(Boolean);
  // Index 0 stays a hole (exceljs starts at 1 and skips holes).
  const reordered: unknown[] = [];
  [present[present.length - 1], ...present.slice(0, -1)].forEach((worksheet, i) => (reordered[i + 1] = worksheet));
  internal._worksheets = reordered;
}

async function writeSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, sheet: XlsxSheet, out: Writable, signal: AbortSignal): Promise<SheetSummary> {
  const worksheet = workbook.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
  let rows = 0;
  let note = "";
  let styles: object[] = [];
  let started = false;
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
        styles = event.columns.map((column) => COLUMN_STYLES[column.type]);
        const header = worksheet.addRow(event.columns.map((column) => textCell(column.name)));
        for (let c = 1; c <= event.columns.length; c++) header.getCell(c).style = HEADER_STYLE as ExcelJS.Style;
        header.commit();
        started = true;
        break;
      }
      case "rows":
        writeRows(worksheet, event.rows, styles);
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
        note = rows ? `The query failed after ${rows} rows: ${event.error}` : `The query failed: ${event.error}`;
        if (!started) worksheet.columns = [{ width: 100 }];
        noteRow(note);
        break;
    }
  }
  worksheet.commit();
  return { sheet: name, query: sheet.query, rows, note };
}

/** Adds and commits rows of cells; `styles` holds each column's shared style. */
export function writeRows(worksheet: ExcelJS.Worksheet, rows: readonly CellValue[][], styles: readonly object[]): void {
  const width = styles.length;
  for (const values of rows) {
    const row = worksheet.addRow(values as unknown[]);
    (row as unknown as { style: object }).style = PLAIN_STYLE; // a row's own style, else worked out anew for every row
    for (let c = 0; c < width; c++) row.getCell(c + 1).style = (values[c] === null ? PLAIN_STYLE : styles[c]) as ExcelJS.Style;
    row.commit();
  }
}

/** The shared style of each column type (for writers of data sheets outside `writeXlsx`, e.g. the benchmark's ceiling). */
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
  line(["Report", about.report]);
  line(["Version", about.version]);
  line(["Mode", about.mode]);
  line(["Published at", about.publishedAt]);
  line(["Exported at", about.exportedAt]);
  line(["Data source", about.datasource]);
  if (about.drill) {
    line([]);
    line(["Drill-through", about.drill.title], HEADER_STYLE);
    for (const arg of about.drill.args) line([arg.name, arg.value]);
  }
  line([]);
  line(["Filters"], HEADER_STYLE);
  if (!about.filters.length) line(["(none)"]);
  for (const filter of about.filters) line([filter.label, filter.value]);
  line([]);
  line(["Sheet", "Query", "Rows", "Note"], HEADER_STYLE);
  for (const summary of summaries) line([summary.sheet, summary.query, summary.rows, summary.note || null]);
}

/** A live query's rows (PostgreSQL text) as sheet events; a cut result gets the note. */
export async function* liveSheetEvents(events: AsyncIterable<ExportEvent>, limit: number): AsyncGenerator<SheetEvent, void, undefined> {
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
        for (const row of event.rows) for (let c = 0; c < width; c++) (row as CellValue[])[c] = convert[c]!(row[c] as string | null);
        yield { kind: "rows", rows };
        break;
      }
      case "end":
        yield event.truncated ? { kind: "end", note: cutNote(limit) } : { kind: "end" };
        break;
      case "error":
        yield event;
        break;
    }
  }
}

const FROZEN_BATCH = 2000;

/** A snapshot's frozen result (already shaped as the data call answers) as sheet events. */
export async function* frozenSheetEvents(outcome: QueryOutcome | undefined, frozenLimit: number): AsyncGenerator<SheetEvent, void, undefined> {
  if (!outcome) {
    yield { kind: "error", error: "This query was not frozen with the snapshot; publish the report again to include it." };
    return;
  }
  if ("error" in outcome) {
    yield { kind: "error", error: outcome.error };
    return;
  }
  const columns = outcome.columns.map((name, i) => ({ name, type: outcome.columnTypes[i] ?? "string" }));
  yield { kind: "columns", columns };
  for (let start = 0; start < outcome.rows.length; start += FROZEN_BATCH) {
    yield { kind: "rows", rows: outcome.rows.slice(start, start + FROZEN_BATCH).map((row) => columns.map((column, c) => cellOf(column.type, row[c]))) };
  }
  yield outcome.truncated ? { kind: "end", note: frozenCutNote(frozenLimit) } : { kind: "end" };
}

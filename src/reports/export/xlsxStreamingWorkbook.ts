import type { Writable } from "node:stream";
import ExcelJS from "exceljs";

/**
 * exceljs 4.4's streaming WorkbookWriter as the export uses it, and every place the export
 * reaches into its internals. exceljs is pinned (package.json) because of them; an upgrade starts
 * here, and the xlsx export tests read the files back to tell whether they still hold.
 */

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
  // 1 MB pieces (a few batches of rows) a piece compresses while the writer builds the next.
  const zip = { zlib: { level: 1, chunkSize: LARGE_PIECE } };
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false, zip });
  // exceljs opens each sheet's StreamBuf with 64 KB buffers; the size is a plain field.
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

/**
 * Sheet XML written but not yet compressed above which the writer waits for the compressor: one
 * piece. More lets the writer run ahead for no gain in time, and raises the service's peak memory
 * (docs/decisions/0058-xlsx-export-memory.md).
 */
const MAX_PENDING_XML = LARGE_PIECE;

/**
 * Bytes of a sheet's XML waiting for compression. exceljs hands its XML to the zip without
 * backpressure (its StreamBuf ignores what `write` answers), so a writer faster than deflate
 * would pile up the whole sheet's XML in memory; the export waits on this instead. It reads
 * the sheet's StreamBuf, which pipes into a readable-stream PassThrough of archiver's whose
 * queues hold the XML, and answers 0 if they are not there.
 */
export function pendingXml(worksheet: ExcelJS.Worksheet): number {
  type Queue = { _readableState?: { length?: number }; _writableState?: { length?: number } };
  const stream = (worksheet as unknown as { stream?: { pipes?: Queue[] } }).stream;
  return (
    stream?.pipes?.reduce(
      (sum, pipe) => sum + (pipe._readableState?.length ?? 0) + (pipe._writableState?.length ?? 0),
      0,
    ) ?? 0
  );
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

/**
 * The id (`s="n"`) exceljs gives a style when a cell of that type uses it: the same id its own
 * rows would carry, since exceljs remembers the id of each style object it has seen.
 */
export function styleIdOf(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  style: object,
  valueType: ExcelJS.ValueType,
): number {
  const styles = (
    workbook as unknown as { styles: { addStyleModel(style: object, valueType: ExcelJS.ValueType): number } }
  ).styles;
  return styles.addStyleModel(style, valueType);
}

interface WorksheetInternals {
  /** The number of the next row exceljs will write (rows below it are committed). */
  _rowZero: number;
  /** Rows added but not committed yet. */
  _rows: unknown[] | null;
  /** Whether `<cols>` and `<sheetData>` have been opened. */
  startedData: boolean;
  /** The sheet's StreamBuf; in batch mode it copies what it is given into its own buffers at once. */
  stream: { write(data: Buffer): unknown; batch?: boolean };
}

/**
 * Appends `count` rows that `write` writes as `<row>` XML, numbered from the number it is given,
 * to a sheet whose rows so far are all committed; then moves exceljs's row count past them, so
 * that rows exceljs adds later (a note) follow them. What `write` hands its sink is copied before
 * the sink returns, so it may reuse its buffer.
 */
export function appendRows(
  worksheet: ExcelJS.Worksheet,
  count: number,
  write: (firstRowNumber: number, sink: (xml: Buffer) => void) => void,
): void {
  const internal = worksheet as unknown as WorksheetInternals;
  if (!internal.startedData || internal._rows === null || internal._rows.length) {
    throw new Error("Rows written as XML must follow committed rows of an open sheet (commit its header first).");
  }
  const stream = internal.stream;
  write(internal._rowZero, stream.batch ? (xml) => stream.write(xml) : (xml) => stream.write(Buffer.from(xml)));
  internal._rowZero += count;
}

/**
 * exceljs lists sheets in the order they were added; the sheet added last is moved to the front
 * here. Worksheet ids and part names stay as they were: only the order of the workbook's sheet
 * list changes.
 */
export function moveLastSheetFirst(workbook: ExcelJS.stream.xlsx.WorkbookWriter): void {
  const internal = workbook as unknown as { _worksheets: unknown[] };
  const present = internal._worksheets.filter(Boolean);
  // Index 0 stays a hole (exceljs starts at 1 and skips holes).
  const reordered: unknown[] = [];
  [present[present.length - 1], ...present.slice(0, -1)].forEach((worksheet, i) => (reordered[i + 1] = worksheet));
  internal._worksheets = reordered;
}

/** Stops the workbook's zip (its output is cut short). */
export function abortWorkbook(workbook: ExcelJS.stream.xlsx.WorkbookWriter): void {
  (workbook as unknown as { zip?: { abort?: () => void } }).zip?.abort?.();
}

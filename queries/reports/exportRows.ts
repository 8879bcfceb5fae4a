import PgCursor from "pg-cursor";
import type pg from "pg";
import type { DataSource } from "./dataSources.ts";
import type { Wards } from "../../db/wardScope.ts";
import type { ReportQuery } from "./runReportQuery.ts";
import { meterBytes, stopAndDrop, stopOnAbort } from "./cancelStatement.ts";
import { authorFailure, authorMessage, END_REPORT_TRANSACTION, unreachable } from "./runReportQuery.ts";
import type { QueryFailureCode } from "../../commands/reports/spec/queryOutcome.ts";

/** The most rows one export writes per query (contract A.3); the page cap of the data call does not apply. */
export const EXPORT_ROW_LIMIT = 100_000;
/** An export reads its whole result, so its statement may run longer than a page's: this many report timeouts. */
export const EXPORT_TIMEOUT_FACTOR = 6;
/**
 * Rows read per round trip. Two batches are alive at once (one written, the next on its way), each
 * row an array of strings; larger batches raise the service's peak memory for no gain in time
 * (docs/decisions/0058-xlsx-export-memory.md).
 */
const BATCH_ROWS = 500;
/**
 * The characters a batch should come to, besides its BATCH_ROWS: rows of large values are read
 * fewer at a time (issue #52, finding 6: 500 rows of half a megabyte each were 250 MB in one
 * batch, and an export of them took the process to 650 MB). The first batch is small, until the
 * rows' size is known.
 */
const BATCH_CHARS = 2 * 1024 * 1024;
const FIRST_BATCH_ROWS = 16;
/** How much larger than the last one a batch may be: the rows' size is known from the batches so far. */
const BATCH_GROWTH = 4;

export interface ExportField {
  name: string;
  /** PostgreSQL type OID: the values arrive as PostgreSQL's text (the report pools parse nothing). */
  oid: number;
}

/** What an export reads from one query, in order: its fields, its rows in batches, then the end (or an error at any point). */
export type ExportEvent =
  | { kind: "fields"; fields: ExportField[] }
  | { kind: "rows"; rows: (string | null)[][] }
  | { kind: "end"; truncated: boolean }
  | { kind: "error"; error: string; code: QueryFailureCode };

export interface ExportRowsOptions {
  tenant: string;
  /** The caller's wards (null: every ward), captured when the export began (contract G.1). */
  wards: Wards;
  /** The export's statement timeout (EXPORT_TIMEOUT_FACTOR × the report timeout). */
  timeoutMs: number;
  timeZone: string;
  limit?: number;
  batchRows?: number;
  /** Aborts when the export's reader has gone. */
  signal?: AbortSignal;
  /**
   * The most bytes one batch of rows may bring (REPORT_RESULT_MAX_BYTES, counted on the socket as
   * they arrive): past it the statement is stopped and the rows end with an error saying why, so a
   * row of huge values is never held whole, nor a batch that turned out larger than its rows foretold.
   */
  maxBatchBytes?: number;
}

type RawRow = (string | null)[];

/**
 * Reads one report query for an export: a READ ONLY transaction with the statement timeout, a
 * cursor read in batches, and the next batch already requested while the caller writes the current
 * one, so PostgreSQL and the writer overlap. At most `limit` rows come out; one more is read to
 * know whether the result was cut. Failures end the sequence with an `error` event holding the
 * author's sentence (never SQL).
 *
 * Stopping the iteration early (`return()`, e.g. when the client went away) closes the cursor and
 * ends the transaction; when a batch is still on its way the connection is dropped instead, which
 * also stops the statement, so no connection is ever left in a transaction.
 */
export async function* streamQueryRows(
  source: DataSource,
  query: ReportQuery,
  options: ExportRowsOptions,
): AsyncGenerator<ExportEvent, void, undefined> {
  const limit = options.limit ?? EXPORT_ROW_LIMIT;
  const batchRows = Math.max(1, options.batchRows ?? BATCH_ROWS);
  let client: pg.PoolClient;
  try {
    client = await source.pool.connect();
  } catch (error) {
    yield { kind: "error", ...unreachable(source, error) };
    return;
  }
  let cursor: PgCursor | null = null;
  /** The read under way: true when it succeeded, false when it failed. */
  let inFlight: Promise<boolean> | null = null;
  let finished = false;
  let broken = false;
  // The caller gone (E.5): the statement is stopped at once, even while its read is awaited.
  const caller = stopOnAbort(client, options.signal);
  let tooLarge = false;
  const meter =
    options.maxBatchBytes === undefined
      ? null
      : meterBytes(client, options.maxBatchBytes, () => {
          tooLarge = true;
          caller.stop();
        });
  const read = (count: number): Promise<{ rows: RawRow[]; fields: pg.FieldDef[] }> => {
    const open = cursor!;
    const promise = new Promise<{ rows: RawRow[]; fields: pg.FieldDef[] }>((resolve, reject) => {
      // A cursor that has already ended answers [] without a result.
      open.read(count, (error, rows, result) =>
        error ? reject(error) : resolve({ rows: rows as unknown as RawRow[], fields: result?.fields ?? [] }),
      );
    });
    const settled: Promise<boolean> = promise.then(
      () => true,
      () => false,
    );
    inFlight = settled;
    void settled.then(() => {
      if (inFlight === settled) inFlight = null;
    });
    return promise;
  };
  try {
    let failure: { error: string; code: QueryFailureCode } | null = null;
    let truncated = false;
    try {
      await source.bind(client, { tenant: options.tenant, wards: options.wards });
      await client.query(source.begin(options.timeoutMs, options.timeZone).join("; "));
      cursor = client.query(new PgCursor(query.text, query.values, { rowMode: "array" }));
      let wanted = limit + 1; // rows still to read, the one that tells "cut" included
      let asked = Math.min(FIRST_BATCH_ROWS, batchRows, wanted);
      let next = read(asked);
      let first = true;
      let largestRow = 0;
      for (;;) {
        const { rows, fields } = await next;
        // The bytes on the socket from here on are the next batch's.
        meter?.reset();
        if (first) {
          first = false;
          yield { kind: "fields", fields: fields.map((field) => ({ name: field.name, oid: field.dataTypeID })) };
        }
        wanted -= rows.length;
        // A short batch means the statement is done.
        const more = rows.length === asked && wanted > 0;
        largestRow = Math.max(largestRow, largestRowChars(rows));
        const fitting = Math.max(1, Math.floor(BATCH_CHARS / Math.max(1, largestRow)));
        // Ask for the next batch before handing this one over: it travels while this one is written.
        if (more) next = read((asked = Math.min(batchRows, asked * BATCH_GROWTH, fitting, wanted)));
        if (wanted <= 0) {
          truncated = true;
          rows.length -= 1;
        }
        if (rows.length) yield { kind: "rows", rows };
        if (!more) break;
      }
      await closeCursor(cursor);
      cursor = null;
      await client.query(END_REPORT_TRANSACTION);
      finished = true;
    } catch (error) {
      // A failed cursor has already asked for the end of its statement: only the transaction is left to end.
      cursor = null;
      failure = tooLarge
        ? { error: tooLargeSentence(options.maxBatchBytes!), code: "query-rows-too-large" }
        : { error: authorMessage(error, options.timeoutMs), code: authorFailure(error, options.timeoutMs).code };
    }
    if (failure !== null) yield { kind: "error", ...failure };
    else yield { kind: "end", truncated };
  } finally {
    meter?.stop();
    caller.dispose();
    if (!finished) broken = caller.stopped || (await abandon(client, cursor, inFlight));
    client.release(broken || caller.stopped);
  }
}

/** The characters of the largest row of a batch: what the next batch's size is worked out from. */
function largestRowChars(rows: readonly RawRow[]): number {
  let largest = 0;
  for (const row of rows) {
    let chars = 0;
    for (const value of row) chars += value === null ? 0 : value.length;
    if (chars > largest) largest = chars;
  }
  return largest;
}

/** Why an export's rows stopped when a batch brought more than it may. */
function tooLargeSentence(maxBytes: number): string {
  return (
    `The query's rows are too large to export: more than ${Math.round(maxBytes / 1024 / 1024)} MB arrived for ` +
    "one batch of rows (REPORT_RESULT_MAX_BYTES); leave out or shorten its large values (a spreadsheet cell " +
    "holds at most 32,767 characters)."
  );
}

function closeCursor(cursor: PgCursor): Promise<void> {
  return new Promise((resolve, reject) => cursor.close((error) => (error ? reject(error) : resolve())));
}

/** Ends an unfinished read; true when the connection must be dropped rather than reused. */
async function abandon(
  client: pg.PoolClient,
  cursor: PgCursor | null,
  inFlight: Promise<boolean> | null,
): Promise<boolean> {
  // A statement still working on the batch read ahead is stopped at once (the caller is gone, E.5).
  if (inFlight) {
    stopAndDrop(client);
    return true;
  }
  try {
    if (cursor) await closeCursor(cursor);
    await client.query(END_REPORT_TRANSACTION);
    return false;
  } catch {
    return true;
  }
}

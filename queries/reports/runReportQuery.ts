import type pg from "pg";
import { CLINICAL_RELATIONS } from "../../db/clinicalViews.ts";
import { CappedRead, type CappedRows } from "./cappedRead.ts";
import { meterBytes, stopOnAbort } from "./cancelStatement.ts";
import type { DataSource } from "./dataSources.ts";
import type { Wards } from "../../db/wardScope.ts";
import type { QueryFailure, QueryFailureCode, QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import { columnTypeOf, PAGE_ROW_LIMIT, valueOf } from "./queryResult.ts";

export interface ReportQuery {
  text: string;
  values: unknown[];
}

export interface RunOptions {
  tenant: string;
  /** The caller's wards (null: every ward): the clinical views keep to them (contract G.1). */
  wards: Wards;
  timeoutMs: number;
  timeZone: string;
  /** Rows to return at most; one more is fetched to know whether the result was cut. */
  limit?: number;
  /** Aborts when the caller has gone: the running statement is cancelled at once (E.5). */
  signal?: AbortSignal;
  /** The most bytes of result to read (REPORT_RESULT_MAX_BYTES); past it the rows so far, truncated. */
  maxBytes?: number;
}

/**
 * How every report transaction ends, read or failed. READ ONLY does not stop everything: a
 * function can still create a large object (lo_from_bytea), change a setting for the rest of the
 * session (set_config(…, false)), listen or notify, take a session advisory lock, prepare a
 * statement — and the connection next serves another tenant. Rolling back undoes the first ones;
 * locks and prepared statements, which outlive a transaction, are dropped here too. (Such calls
 * are also refused when a draft is saved: commands/reports/spec/sqlSafety.ts.)
 */
export const END_REPORT_TRANSACTION_STATEMENTS = [
  "rollback",
  "select pg_advisory_unlock_all()",
  "deallocate all",
] as const;
/** The same as one simple query. */
export const END_REPORT_TRANSACTION = END_REPORT_TRANSACTION_STATEMENTS.join("; ");

/**
 * Runs one report query in a READ ONLY transaction with a statement timeout, fetching at most
 * limit + 1 rows through a portal (cappedRead.ts), so a huge result is never materialised to be
 * cut. A failure becomes a sentence for the report author, without the SQL.
 */
export async function runReportQuery(
  source: DataSource,
  query: ReportQuery,
  options: RunOptions,
): Promise<QueryOutcome> {
  const limit = options.limit ?? PAGE_ROW_LIMIT;
  const started = performance.now();
  let client: pg.PoolClient;
  try {
    client = await source.pool.connect();
  } catch (error) {
    return unreachable(source, error);
  }
  let read: CappedRows;
  let overBytes = false;
  let caller: ReturnType<typeof stopOnAbort> | null = null;
  const capped = new CappedRead(
    source.begin(options.timeoutMs, options.timeZone),
    query,
    limit + 1,
    END_REPORT_TRANSACTION_STATEMENTS,
  );
  let meter: { stop(): void } | null = null;
  try {
    await source.bind(client, { tenant: options.tenant, wards: options.wards });
    if (options.signal?.aborted) throw new CallerLeft();
    const stopping = (caller = stopOnAbort(client, options.signal));
    if (options.maxBytes !== undefined) {
      meter = meterBytes(client, options.maxBytes, () => {
        overBytes = true;
        stopping.stop();
      });
    }
    // On success the transaction has already ended with the read (cappedRead.ts); on failure it has not.
    read = await client.query(capped).done;
  } catch (error) {
    const cut = caller?.stopped ?? false;
    let broken = cut;
    if (!cut) await client.query(END_REPORT_TRANSACTION).catch(() => (broken = true));
    client.release(broken);
    if (!overBytes)
      return error instanceof CallerLeft || options.signal?.aborted
        ? { error: CALLER_LEFT, code: "caller-left" }
        : { error: authorMessage(error, options.timeoutMs), code: authorFailure(error, options.timeoutMs).code };
    read = capped.partial();
  } finally {
    caller?.dispose();
    meter?.stop();
  }
  if (!overBytes) client.release(caller?.stopped ?? false);
  const oids = read.fields.map((field) => field.dataTypeID);
  return {
    columns: read.fields.map((field) => field.name),
    columnTypes: oids.map(columnTypeOf),
    rows: read.rows.slice(0, limit).map((row) => row.map((value, i) => valueOf(oids[i]!, value))),
    truncated: overBytes || read.rows.length > limit,
    elapsedMs: Math.round((performance.now() - started) * 10) / 10,
  };
}

/**
 * Why no connection of the data source could be had: all in use for the pool's whole wait (pg-pool
 * says "timeout exceeded when trying to connect"), or the server not answering.
 */
export function unreachableSentence(source: Pick<DataSource, "name">, error: unknown): string {
  return unreachable(source, error).error;
}

export function unreachable(
  source: Pick<DataSource, "name">,
  error: unknown,
): QueryFailure & { code: QueryFailureCode } {
  const busy = error instanceof Error && /timeout exceeded when trying to connect/.test(error.message);
  return busy
    ? {
        error: `Every report connection of the data source ${source.name} stayed in use; try again shortly.`,
        code: "source-busy",
      }
    : {
        error: `The data source ${source.name} cannot be reached right now; try again shortly.`,
        code: "source-unreachable",
      };
}

class CallerLeft extends Error {}
/** The outcome of a query whose caller went away (nobody reads it; counted in the metrics as an error). */
const CALLER_LEFT = "The caller went away before the query ended; it was cancelled.";

const QUERY_CANCELED = "57014";
const INSUFFICIENT_PRIVILEGE = "42501";
const READ_ONLY_VIOLATION = "25006";

/** The failures a page names apart, by SQLSTATE (PostgreSQL's appendix A); the rest by class. */
const FAILURE_BY_STATE: Record<string, QueryFailureCode> = {
  [QUERY_CANCELED]: "query-timeout",
  [INSUFFICIENT_PRIVILEGE]: "query-outside-source",
  [READ_ONLY_VIOLATION]: "query-writes",
  "42703": "query-unknown-column",
  "42P01": "query-unknown-table",
  "42883": "query-unknown-function",
  "42804": "query-type-mismatch",
  "42P18": "query-type-mismatch",
  "42601": "query-syntax",
  "22012": "query-division-by-zero",
  "53400": "query-temp-limit",
};

/** The code of a failed statement: by its SQLSTATE, else its class (42 the query, 22 a value), else failed. */
export function failureCode(sqlState: string | undefined): QueryFailureCode {
  if (!sqlState) return "query-failed";
  return (
    FAILURE_BY_STATE[sqlState] ??
    (sqlState.startsWith("42") ? "query-invalid" : sqlState.startsWith("22") ? "query-bad-value" : "query-failed")
  );
}

/** The database's own sentence, with any quoted SQL fragment replaced by where it stood. */
export function authorMessage(error: unknown, timeoutMs: number): string {
  const { message, position } = authorFailure(error, timeoutMs);
  return position === null ? message : `${message.slice(0, -1)} (at character ${position}).`;
}

/**
 * A failed report statement as a sentence for its author (no SQL text, ending with a full stop)
 * and the character of the statement the database points at (1-based, as PostgreSQL counts), if any.
 */
export function authorFailure(
  error: unknown,
  timeoutMs: number,
): { message: string; position: number | null; code: QueryFailureCode } {
  const pgError = error as { code?: string; message?: string; position?: string };
  const code = failureCode(typeof pgError.code === "string" ? pgError.code : undefined);
  if (pgError.code === QUERY_CANCELED) {
    return {
      message: `The query ran longer than ${Math.round(timeoutMs / 1000)} s and was stopped; narrow the filters or aggregate more in SQL.`,
      position: null,
      code,
    };
  }
  if (pgError.code === INSUFFICIENT_PRIVILEGE) {
    return {
      message:
        "The query reads something outside its data source; the clinical data source offers " +
        `${CLINICAL_RELATIONS.slice(0, -1).join(", ")} and ${CLINICAL_RELATIONS.at(-1)}.`,
      position: null,
      code,
    };
  }
  if (pgError.code === READ_ONLY_VIOLATION)
    return { message: "Report queries may only read; remove the statement that writes.", position: null, code };
  if (typeof pgError.message !== "string" || !pgError.code)
    return { message: "The query failed; check it against the data source.", position: null, code };
  const position = pgError.position ? Number(pgError.position) : NaN;
  return {
    message: `${pgError.message
      .replace(/ at or near "(?:[^"]|"")*"/g, "")
      .replace(/\s+/g, " ")
      .trim()}.`,
    position: Number.isInteger(position) && position > 0 ? position : null,
    code,
  };
}

import type Cursor from "pg-cursor";
import PgCursor from "pg-cursor";
import type pg from "pg";
import type { DataSource } from "./dataSources.ts";
import { columnTypeOf, PAGE_ROW_LIMIT, valueOf, type QueryOutcome } from "./queryResult.ts";

export interface ReportQuery {
  text: string;
  values: unknown[];
}

export interface RunOptions {
  tenant: string;
  timeoutMs: number;
  timeZone: string;
  /** Rows to return at most; one more is fetched to know whether the result was cut. */
  limit?: number;
}

/**
 * How every report transaction ends, read or failed. READ ONLY does not stop everything: a
 * function can still create a large object (lo_from_bytea), change a setting for the rest of the
 * session (set_config(…, false)), listen or notify, take a session advisory lock, prepare a
 * statement — and the connection next serves another tenant. Rolling back undoes the first ones;
 * locks and prepared statements, which outlive a transaction, are dropped here too. (Such calls
 * are also refused when a draft is saved: commands/reports/sqlSafety.ts.)
 */
export const END_REPORT_TRANSACTION = "rollback; select pg_advisory_unlock_all(); deallocate all";

/**
 * Runs one report query in a READ ONLY transaction with a statement timeout, fetching at most
 * limit + 1 rows through a cursor, so a huge result is never materialised to be cut. A failure
 * becomes a sentence for the report author, without the SQL.
 */
export async function runReportQuery(source: DataSource, query: ReportQuery, options: RunOptions): Promise<QueryOutcome> {
  const limit = options.limit ?? PAGE_ROW_LIMIT;
  const started = performance.now();
  let client: pg.PoolClient;
  try {
    client = await source.pool.connect();
  } catch {
    return { error: `The data source ${source.name} cannot be reached right now; try again shortly.` };
  }
  try {
    await source.bind(client, options.tenant);
    await client.query(source.begin(options.timeoutMs, options.timeZone));
    const { rows, fields, closed } = await readRows(client, query, limit + 1);
    const oids = fields.map((field) => field.dataTypeID);
    const outcome: QueryOutcome = {
      columns: fields.map((field) => field.name),
      columnTypes: oids.map(columnTypeOf),
      rows: rows.slice(0, limit).map((row) => row.map((value, i) => valueOf(oids[i]!, value))),
      truncated: rows.length > limit,
      elapsedMs: Math.round((performance.now() - started) * 10) / 10,
    };
    // The answer does not wait for the cursor's close and the end of the transaction (two round
    // trips); the connection goes back to the pool only once both are done.
    closed.then(() => client.query(END_REPORT_TRANSACTION)).then(
      () => client.release(),
      () => client.release(true),
    );
    return outcome;
  } catch (error) {
    let broken = false;
    await client.query(END_REPORT_TRANSACTION).catch(() => (broken = true));
    client.release(broken);
    return { error: authorMessage(error, options.timeoutMs) };
  }
}

function readRows(
  client: pg.PoolClient,
  query: ReportQuery,
  count: number,
): Promise<{ rows: (string | null)[][]; fields: pg.FieldDef[]; closed: Promise<void> }> {
  const cursor: Cursor = client.query(new PgCursor(query.text, query.values, { rowMode: "array" }));
  return new Promise((resolve, reject) => {
    cursor.read(count, (error, rows, result) => {
      if (error) return reject(error);
      const closed = new Promise<void>((done, fail) => cursor.close((closeError) => (closeError ? fail(closeError) : done())));
      resolve({ rows: rows as unknown as (string | null)[][], fields: result.fields, closed });
    });
  });
}

const QUERY_CANCELED = "57014";
const INSUFFICIENT_PRIVILEGE = "42501";
const READ_ONLY_VIOLATION = "25006";

/** The database's own sentence, with any quoted SQL fragment replaced by where it stood. */
export function authorMessage(error: unknown, timeoutMs: number): string {
  const pgError = error as { code?: string; message?: string; position?: string };
  if (pgError.code === QUERY_CANCELED) {
    return `The query ran longer than ${Math.round(timeoutMs / 1000)} s and was stopped; narrow the filters or aggregate more in SQL.`;
  }
  if (pgError.code === INSUFFICIENT_PRIVILEGE) {
    return "The query reads something outside its data source; the clinical data source offers patients, lab_reports, lab_results, exam_reports and std_items.";
  }
  if (pgError.code === READ_ONLY_VIOLATION) return "Report queries may only read; remove the statement that writes.";
  if (typeof pgError.message !== "string" || !pgError.code) return "The query failed; check it against the data source.";
  const at = pgError.position ? ` (at character ${pgError.position})` : "";
  return `${pgError.message.replace(/ at or near "(?:[^"]|"")*"/g, "").replace(/\s+/g, " ").trim()}${at}.`;
}

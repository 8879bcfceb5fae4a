import type pg from "pg";
import { currentWards, type Wards } from "../../db/wardScope.ts";
import type { QueryToTry, QueryTrial } from "../../commands/reports/spec/queryTrial.ts";
import type { QueryFailureCode } from "../../commands/reports/spec/queryOutcome.ts";
import {
  compileTemplateDetailed,
  lineColumnOf,
  TemplateError,
  utf16Index,
  type CompiledTemplateDetail,
} from "../../commands/reports/spec/sqlTemplate.ts";
import { CappedRead } from "./cappedRead.ts";
import type { DataSource } from "./dataSources.ts";
import {
  authorFailure,
  END_REPORT_TRANSACTION,
  END_REPORT_TRANSACTION_STATEMENTS,
  unreachableSentence,
} from "./runReportQuery.ts";
import type { ReportRuntime } from "./runSpecQueries.ts";
import { tenantBusySentence } from "./tenantGate.ts";

/*
 * A draft's queries tried when it is saved (issue #34, item 3). Each is planned, not run: EXPLAIN
 * of the compiled statement with the values bound, in the report transaction (READ ONLY, the
 * statement timeout, the data source's role and the tenant's binding), after a turn at the
 * tenant's gate (contract E.5). Planning takes the statement through the parser, the analyser
 * (every relation, column, function and operator resolved, types checked), the planner and the
 * executor's start (the relations' access rights), so it finds what makes a query fail on every
 * run — `column "ktvv" does not exist` — in milliseconds, whatever the query would read; what
 * only the data can make fail (a division by zero, a text that does not convert) shows when the
 * draft is previewed. A save thus waits at most the gate's wait and the statement timeout.
 */

const EXPLAIN = "explain ";

/** How planning one statement went: planned, failed (the database's sentence, where it points), or not tried. */
type Planned =
  | { planned: true }
  | { failed: { message: string; position: number | null; code: QueryFailureCode } }
  | { untried: string };

/**
 * A failure that says nothing of the query: the connection, the server's resources or an
 * operator stopped it (SQLSTATE classes 08, 53, 57P, 58, XX), or no database answer at all.
 */
function saysNothingOfTheQuery(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== "string" || /^(08|53|57P|58|XX)/.test(code);
}

async function planReportQuery(
  source: DataSource,
  text: string,
  values: unknown[],
  options: { tenant: string; wards: Wards; timeoutMs: number; timeZone: string },
): Promise<Planned> {
  let client: pg.PoolClient;
  try {
    client = await source.pool.connect();
  } catch (error) {
    return { untried: unreachableSentence(source, error) };
  }
  // One row of the plan is read (its text is not wanted), then the transaction is ended as every report transaction is.
  const read = new CappedRead(
    source.begin(options.timeoutMs, options.timeZone),
    { text: EXPLAIN + text, values },
    1,
    END_REPORT_TRANSACTION_STATEMENTS,
  );
  try {
    await source.bind(client, { tenant: options.tenant, wards: options.wards });
    await client.query(read).done;
    client.release();
    return { planned: true };
  } catch (error) {
    let broken = false;
    await client.query(END_REPORT_TRANSACTION).catch(() => (broken = true));
    client.release(broken);
    if (saysNothingOfTheQuery(error)) return { untried: error instanceof Error ? error.message : String(error) };
    const { message, position, code } = authorFailure(error, options.timeoutMs);
    return { failed: { message, position: position === null ? null : position - EXPLAIN.length, code } };
  }
}

/** A bound parameter named in the database's sentence is shown as the placeholder the author wrote. */
const withPlaceholders = (message: string, compiled: CompiledTemplateDetail) =>
  message.replace(/\$(\d+)/g, (all, n: string) => compiled.params[Number(n) - 1]?.placeholder ?? all);

/** Where in the template (as the author wrote it) a character of the compiled text stands. */
function placeInTemplate(
  sql: string,
  compiled: CompiledTemplateDetail,
  position: number | null,
): { line: number | null; column: number | null } {
  if (position === null || position < 1) return { line: null, column: null };
  return lineColumnOf(sql, compiled.sourceOffset(utf16Index(compiled.text, position - 1)));
}

async function tryQuery(
  runtime: ReportRuntime,
  source: DataSource,
  tenant: string,
  wards: Wards,
  query: QueryToTry,
): Promise<QueryTrial> {
  let compiled: CompiledTemplateDetail;
  try {
    compiled = compileTemplateDetailed(query.sql, query.defs, query.values);
  } catch (error) {
    // The save's own checks refuse a template that does not compile; a default that does not bind fails here.
    if (error instanceof TemplateError)
      return {
        query: query.query,
        outcome: "failed",
        message: error.message,
        line: null,
        column: null,
        code: "query-refused",
      };
    throw error;
  }
  const leave = await runtime.gate.enter(tenant);
  if (!leave) return { query: query.query, outcome: "untried", reason: tenantBusySentence(runtime.gate) };
  try {
    const planned = await planReportQuery(source, compiled.text, compiled.values, {
      tenant,
      wards,
      timeoutMs: runtime.timeoutMs,
      timeZone: runtime.timeZone,
    });
    if ("planned" in planned) return { query: query.query, outcome: "ok" };
    if ("untried" in planned) return { query: query.query, outcome: "untried", reason: planned.untried };
    const { message, position, code } = planned.failed;
    return {
      query: query.query,
      outcome: "failed",
      message: withPlaceholders(message, compiled),
      ...placeInTemplate(query.sql, compiled, position),
      code,
    };
  } finally {
    leave();
  }
}

/** Tries each query on the data source (the draft save's TryQueries, commands/reports/manageReports.ts), as many at once as the tenant's gate lets in. */
export async function tryDraftQueries(
  runtime: ReportRuntime,
  datasource: string,
  tenant: string,
  queries: readonly QueryToTry[],
): Promise<QueryTrial[]> {
  const source = runtime.sources.get(datasource);
  if (!source)
    return queries.map((query) => ({
      query: query.query,
      outcome: "untried",
      reason: `the data source ${datasource} is not configured on this server`,
    }));
  // The author's own wards (db/wardScope.ts), taken now: only a plan is made, but under the scope the draft will run in.
  const wards = currentWards();
  return Promise.all(queries.map((query) => tryQuery(runtime, source, tenant, wards, query)));
}

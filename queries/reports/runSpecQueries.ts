import { runTimeProblem } from "../../commands/reports/spec/sqlSafety.ts";
import {
  compileTemplate,
  TemplateError,
  type CompiledTemplate,
  type TemplateDef,
} from "../../commands/reports/spec/sqlTemplate.ts";
import { relationsOf } from "../../db/clinicalViews.ts";
import { currentWards } from "../../db/wardScope.ts";
import type { DataSource, DataSources } from "./dataSources.ts";
import type { QueryFailure, QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import { runReportQuery } from "./runReportQuery.ts";
import { tenantBusySentence, type TenantGate } from "./tenantGate.ts";

export interface ReportRuntime {
  sources: DataSources;
  timeoutMs: number;
  timeZone: string;
  /** How many report queries of one tenant may run at once (E.5). */
  gate: TenantGate;
  /** The most bytes one query's result may bring back (REPORT_RESULT_MAX_BYTES); past it, truncated. */
  maxResultBytes?: number;
  /** How long a whole export may take, however slowly its reader reads (REPORT_EXPORT_MAX_MS). */
  exportMaxMs: number;
  /** Told how each query that reached its data source went (the service's metrics). */
  onQuery?: (datasource: string, outcome: "ok" | "error", seconds: number) => void;
}

/**
 * A query's template compiled for its data source, or the sentence saying why it cannot run (the
 * query's own outcome, never the call's): a version saved before a rule of report SQL (E.5) fails here.
 */
export async function preparedQuery(
  runtime: ReportRuntime,
  datasource: string,
  sql: string,
  defs: readonly TemplateDef[],
  values: Record<string, unknown>,
): Promise<{ source: DataSource; compiled: CompiledTemplate } | QueryFailure> {
  const source = runtime.sources.get(datasource);
  if (!source)
    return {
      error: `The data source ${datasource} is not configured on this server; set DATASOURCE_${datasource.toUpperCase()}_URL.`,
      code: "source-not-configured",
    };
  let compiled: CompiledTemplate;
  try {
    compiled = compileTemplate(sql, defs, values);
  } catch (error) {
    if (error instanceof TemplateError) return { error: error.message, code: "query-refused" };
    throw error;
  }
  const problem = await runTimeProblem(compiled.text, relationsOf(datasource));
  return problem ? { error: problem, code: "query-refused" } : { source, compiled };
}

/**
 * Runs the named queries of one layer (the report's, or a drill target's) with the given values.
 * They run concurrently, as many at once as the tenant's gate lets in (the rest wait their turn).
 * Each succeeds or fails on its own. They run with the wards of the request's caller
 * (db/wardScope.ts, set where the caller was identified), taken before the first wait.
 */
export async function runSpecQueries(
  runtime: ReportRuntime,
  datasource: string,
  tenant: string,
  queries: Record<string, { sql?: string }>,
  defs: readonly TemplateDef[],
  values: Record<string, unknown>,
  limits: { limit?: number; signal?: AbortSignal } = {},
): Promise<Record<string, QueryOutcome>> {
  const wards = currentWards();
  const entries = await Promise.all(
    Object.entries(queries).map(async ([name, query]): Promise<[string, QueryOutcome]> => {
      const prepared = await preparedQuery(runtime, datasource, query.sql ?? "", defs, values);
      if ("error" in prepared) return [name, prepared];
      const { source, compiled } = prepared;
      const leave = await runtime.gate.enter(tenant, limits.signal);
      if (!leave) return [name, { error: tenantBusySentence(runtime.gate), code: "tenant-busy" }];
      try {
        const started = performance.now();
        const outcome = await runReportQuery(source, compiled, {
          tenant,
          wards,
          timeoutMs: runtime.timeoutMs,
          timeZone: runtime.timeZone,
          limit: limits.limit,
          signal: limits.signal,
          maxBytes: runtime.maxResultBytes,
        });
        runtime.onQuery?.(datasource, "error" in outcome ? "error" : "ok", (performance.now() - started) / 1000);
        return [name, outcome];
      } finally {
        leave();
      }
    }),
  );
  return Object.fromEntries(entries);
}

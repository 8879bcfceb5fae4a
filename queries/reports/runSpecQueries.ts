import { compileTemplate, TemplateError, type TemplateDef } from "../../commands/reports/spec/sqlTemplate.ts";
import type { DataSources } from "./dataSources.ts";
import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import { runReportQuery } from "./runReportQuery.ts";

export interface ReportRuntime {
  sources: DataSources;
  timeoutMs: number;
  timeZone: string;
  /** Told how each query that reached its data source went (the service's metrics). */
  onQuery?: (datasource: string, outcome: "ok" | "error", seconds: number) => void;
}

/**
 * Runs the named queries of one layer (the report's, or a drill target's) with the given values.
 * They run concurrently; the data source's pool bounds how many at once. Each succeeds or fails on
 * its own.
 */
export async function runSpecQueries(
  runtime: ReportRuntime,
  datasource: string,
  tenant: string,
  queries: Record<string, { sql?: string }>,
  defs: readonly TemplateDef[],
  values: Record<string, unknown>,
  limit?: number,
): Promise<Record<string, QueryOutcome>> {
  const source = runtime.sources.get(datasource);
  const entries = await Promise.all(
    Object.entries(queries).map(async ([name, query]): Promise<[string, QueryOutcome]> => {
      if (!source) return [name, { error: `The data source ${datasource} is not configured on this server; set DATASOURCE_${datasource.toUpperCase()}_URL.` }];
      let compiled;
      try {
        compiled = compileTemplate(query.sql ?? "", defs, values);
      } catch (error) {
        if (error instanceof TemplateError) return [name, { error: error.message }];
        throw error;
      }
      const started = performance.now();
      const outcome = await runReportQuery(source, compiled, { tenant, timeoutMs: runtime.timeoutMs, timeZone: runtime.timeZone, limit });
      runtime.onQuery?.(datasource, "error" in outcome ? "error" : "ok", (performance.now() - started) / 1000);
      return [name, outcome];
    }),
  );
  return Object.fromEntries(entries);
}

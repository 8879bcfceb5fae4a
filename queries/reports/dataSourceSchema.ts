import { z } from "zod";
import { currentWards } from "../../db/wardScope.ts";
import type { ReportRuntime } from "./runSpecQueries.ts";
import { runReportQuery } from "./runReportQuery.ts";
import { tenantBusySentence } from "./tenantGate.ts";

/** What report SQL of a data source can read (issue #54): its relations and their columns, for the editor's schema browser. */
export const dataSourceSchemaSchema = z.object({
  datasource: z.string().meta({ example: "clinical" }),
  relations: z.array(
    z.object({
      name: z.string().meta({ example: "lab_results" }),
      kind: z.enum(["table", "view"]),
      columns: z.array(
        z.object({
          name: z.string().meta({ example: "std_value" }),
          type: z.string().meta({ description: "The column's type as PostgreSQL names it", example: "numeric" }),
        }),
      ),
    }),
  ),
});
export type DataSourceSchema = z.infer<typeof dataSourceSchemaSchema>;

/*
 * Read in the report transaction of the source (READ ONLY, the statement timeout, its role and the
 * tenant's binding), from information_schema, which lists only what that role may read: for
 * `clinical` the views of contract C.5, for `research` its pseudonymous views, for a configured
 * source what its user is granted, in the schemas report SQL names without a prefix.
 */
const SCHEMA_SQL = `select c.table_name::text as relation, t.table_type::text as kind, c.column_name::text as column_name, c.data_type::text as data_type
  from information_schema.columns c
  join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
 where c.table_schema = any (current_schemas(false))
 order by c.table_name, c.ordinal_position`;

/** The relations and columns of `datasource` as its report SQL sees them; a sentence when they cannot be read. */
export async function dataSourceSchema(
  runtime: ReportRuntime,
  datasource: string,
  tenant: string,
): Promise<DataSourceSchema | { error: string }> {
  const source = runtime.sources.get(datasource)!;
  const leave = await runtime.gate.enter(tenant);
  if (!leave) return { error: tenantBusySentence(runtime.gate) };
  let outcome;
  try {
    outcome = await runReportQuery(
      source,
      { text: SCHEMA_SQL, values: [] },
      { tenant, wards: currentWards(), timeoutMs: runtime.timeoutMs, timeZone: runtime.timeZone },
    );
  } finally {
    leave();
  }
  if ("error" in outcome) return outcome;
  const relations = new Map<string, DataSourceSchema["relations"][number]>();
  for (const [relation, kind, column, type] of outcome.rows as string[][]) {
    let entry = relations.get(relation!);
    if (!entry) {
      entry = { name: relation!, kind: kind === "VIEW" ? "view" : "table", columns: [] };
      relations.set(relation!, entry);
    }
    entry.columns.push({ name: column!, type: type! });
  }
  return { datasource, relations: [...relations.values()] };
}

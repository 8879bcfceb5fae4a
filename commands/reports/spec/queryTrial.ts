import { z } from "zod";
import type { TemplateDef } from "./sqlTemplate.ts";
import { QUERY_FAILURE_CODES } from "./queryOutcome.ts";

/**
 * How each query of a draft went when it was tried at save (issue #34, item 3): planned by the
 * database with the filters' defaults, so a query that cannot run (an unknown column, a function
 * of the wrong types) is known before anyone publishes it. Part of the report format because the
 * draft's event records the outcome for good: a replay reads it, never tries the query again.
 */

/** A query of a draft to try: its place in the spec (`queries.monthly`), its SQL, what it may name and the values to bind. */
export interface QueryToTry {
  query: string;
  sql: string;
  defs: readonly TemplateDef[];
  values: Record<string, unknown>;
}

/** A query that failed when tried: where it is, the database's sentence, and where in its SQL. */
export const queryProblemSchema = z.object({
  query: z.string().meta({
    description:
      "The query's place in the spec, as the audit names it: queries.<name> or drills.<drill>.queries.<name>",
    example: "queries.monthly",
  }),
  message: z
    .string()
    .meta({ description: "The database's sentence, without SQL text", example: 'column "ktvv" does not exist.' }),
  line: z.int().nullable().meta({
    description:
      "The line of the query's SQL (as written, placeholders included) the database points at, from 1; null when it points nowhere",
  }),
  column: z.int().nullable().meta({ description: "The column on that line, from 1; null when it points nowhere" }),
  code: z.enum(QUERY_FAILURE_CODES).optional().meta({
    description: "Why it failed, as the data call's query errors name it (issue #54); absent on drafts saved before",
  }),
});
export type QueryProblem = z.infer<typeof queryProblemSchema>;

export type QueryTrial =
  | { query: string; outcome: "ok" }
  | ({ outcome: "failed" } & QueryProblem)
  /** Not tried, for a reason that is not the query's (the tenant's report queries all busy, the data source unreachable). */
  | { query: string; outcome: "untried"; reason: string };

export const failedTrials = (trials: readonly QueryTrial[]): QueryProblem[] =>
  trials.flatMap((trial) =>
    trial.outcome === "failed"
      ? [
          {
            query: trial.query,
            message: trial.message,
            line: trial.line,
            column: trial.column,
            ...(trial.code ? { code: trial.code } : {}),
          },
        ]
      : [],
  );

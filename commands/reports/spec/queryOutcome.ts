import { z } from "zod";

/**
 * The result of one report query as the interface returns it (contract A.2). Part of the report
 * format because a snapshot version stores its results in this shape, in its event, for good.
 */
export const COLUMN_TYPE_NAMES = ["string", "integer", "number", "boolean", "date", "datetime", "json"] as const;
export type ColumnType = (typeof COLUMN_TYPE_NAMES)[number];

export const querySuccessSchema = z.object({
  columns: z.array(z.string()),
  columnTypes: z.array(z.enum(COLUMN_TYPE_NAMES)).meta({ description: "One per column, in the order of columns" }),
  rows: z.array(z.array(z.unknown())).meta({
    description:
      "Arrays in columns order; dates yyyy-MM-dd, date-times yyyy-MM-dd HH:mm:ss; a number that does not fit a double exactly is a string",
  }),
  truncated: z.boolean().meta({ description: "True when the query returned more than 5000 rows and was cut to 5000" }),
  elapsedMs: z.number(),
});
export type QuerySuccess = z.infer<typeof querySuccessSchema>;

/**
 * Why a query failed, as a stable code beside its sentence (issue #54): pages say it in their
 * language and never show the database's own text to a reader. Codes are only ever added; a
 * result stored before they existed (a snapshot's) has none.
 */
export const QUERY_FAILURE_CODES = [
  "query-timeout",
  "query-unknown-column",
  "query-unknown-table",
  "query-unknown-function",
  "query-type-mismatch",
  "query-syntax",
  "query-invalid",
  "query-division-by-zero",
  "query-bad-value",
  "query-outside-source",
  "query-writes",
  "query-temp-limit",
  "query-refused",
  "query-failed",
  "tenant-busy",
  "source-busy",
  "source-unreachable",
  "source-not-configured",
  "caller-left",
  "snapshot-other-wards",
  "query-rows-too-large",
] as const;
export type QueryFailureCode = (typeof QUERY_FAILURE_CODES)[number];

export const queryFailureSchema = z.object({
  error: z.string().meta({ description: "A sentence for the report author (the database's, without SQL text)" }),
  code: z
    .enum(QUERY_FAILURE_CODES)
    .optional()
    .meta({ description: "Why it failed, for pages to say in their language (absent on results stored before)" }),
});
export type QueryFailure = z.infer<typeof queryFailureSchema>;

/** One failing query never fails the call: it carries `error`, a sentence for the report author, and its `code`. */
export const queryOutcomeSchema = z.union([querySuccessSchema, queryFailureSchema]);
export type QueryOutcome = z.infer<typeof queryOutcomeSchema>;

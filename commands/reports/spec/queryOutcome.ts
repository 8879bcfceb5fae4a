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

/** One failing query never fails the call: it carries `error`, a sentence for the report author. */
export const queryOutcomeSchema = z.union([querySuccessSchema, z.object({ error: z.string() })]);
export type QueryOutcome = z.infer<typeof queryOutcomeSchema>;

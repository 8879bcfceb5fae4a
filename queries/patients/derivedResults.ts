import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";

/*
 * Derived results as the chart, FHIR and counts read them (contract F.2): each formula's version in
 * force now, or at a moment asked for (the values derived by an earlier version before the release
 * that replaced it), from read.derived_results (projections/ingestion/derivedResults.ts).
 */

export const derivedFormulaSchema = z
  .object({
    name: z.string().meta({ description: "The formula's name", example: "Payne" }),
    version: z.int().meta({ description: "Its version: changed only by a dictionary release" }),
    expression: z.string().meta({ description: "The formula over the standard values of the items it reads", example: "CA + 0.02 * (40 - ALB)" }),
    inputs: z.array(z.string()).meta({ description: "The externalIds of the reports whose results it read, each once" }),
  })
  .meta({ description: "How a derived value was computed (contract F.2)" });
export type DerivedFormula = z.infer<typeof derivedFormulaSchema>;

/** One input result of a derived value: the report and the item of it. */
export interface DerivedInput {
  externalId: string;
  itemIndex: number;
  stdCode: string;
}

/** The version of each formula in force at `asOf` ($n, a timestamptz; null for now), as a condition on derived_formulas aliased `f`. */
export const formulaInForce = (asOf: string) => `(case when ${asOf}::timestamptz is null then f.superseded_at is null
        else f.released_at <= ${asOf}::timestamptz and (f.superseded_at is null or f.superseded_at > ${asOf}::timestamptz) end)`;

/**
 * The derived results joined to their formula in force, for a select over `d` (derived_results)
 * and `f` (derived_formulas): FROM clause text; the condition names the moment as `asOf`.
 */
export const derivedInForce = (asOf: string) =>
  `read.derived_results d join read.derived_formulas f on f.std_code = d.std_code and f.version = d.formula_version and ${formulaInForce(asOf)}`;

export interface DerivedPointRow {
  std_code: string;
  at: string;
  value: number;
  name: string;
  version: number;
  expression: string;
  inputs: DerivedInput[];
}

/** A patient's derived values of `codes` collected on the days from..to, oldest first. */
export async function derivedPoints(reader: TenantReader, patientRef: string, codes: readonly string[], fromDay: string, toDay: string, asOf: Date | null): Promise<DerivedPointRow[]> {
  const { rows } = await reader.query<DerivedPointRow>(
    `select d.std_code, to_char(d.collected_at, 'YYYY-MM-DD"T"HH24:MI:SS') as at, d.value, f.name, f.version, f.expression, d.inputs
     from ${derivedInForce("$5")}
     where d.patient_ref = $1 and d.std_code = any($2::text[]) and d.collected_on >= $3::date and d.collected_on <= $4::date
     order by d.std_code, d.collected_at`,
    [patientRef, codes, fromDay, toDay, asOf],
  );
  return rows;
}

/** What a derived point says of its formula: the reports it read, each once, in the formula's order. */
export function formulaOf(row: Pick<DerivedPointRow, "name" | "version" | "expression" | "inputs">): DerivedFormula {
  return { name: row.name, version: row.version, expression: row.expression, inputs: [...new Set(row.inputs.map((input) => input.externalId))] };
}

import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTimeText } from "../../db/localDateTime.ts";
import { indicatorKinds } from "../../db/seed/qualityIndicators.ts";
import { patientVisible } from "../patients/patients.ts";
import { indicatorsInForce } from "./indicators.ts";
import { readMonthFacts } from "./monthFacts.ts";
import { placeOf, placeSchema, targetValue, type MonthValue } from "./monthFigures.ts";

/** Contract G.2: `GET /api/patients/{patientRef}/months/{yyyy-MM}`. */
export const patientMonthSchema = z.object({
  patientRef: z.string().meta({ example: "P001" }),
  month: z.string().meta({ description: "yyyy-MM", example: "2026-10" }),
  underCare: z.boolean().meta({ description: "Whether a result of the patient was collected in the month" }),
  values: z
    .array(
      z.object({
        code: z.string().meta({ description: "The standard item", example: "HGB" }),
        value: z
          .number()
          .nullable()
          .meta({ description: "In the item's standard unit; null for a qualitative result" }),
        valueText: z.string().nullable().meta({ description: "A qualitative result as sent", example: "阴性" }),
        unit: z.string(),
        at: localIsoDateTimeText.meta({ description: "When it was collected (else reported)" }),
        externalIds: z.array(z.string()).meta({
          description: "The report it was read from; a derived value's: those of its inputs, each once",
        }),
        derived: z
          .boolean()
          .meta({ description: "Worked out by a formula (contract F.2) where the laboratory sent none" }),
        formulaVersion: z.int().nullable().meta({ description: "A derived value's formula version" }),
      }),
    )
    .meta({ description: "The patient's last value of the month of each indicator item measured in it, by code" }),
  indicators: z.array(
    z.object({
      code: z.string().meta({ example: "CA_TARGET" }),
      version: z.int(),
      kind: z.enum(indicatorKinds),
      place: placeSchema.nullable().meta({
        description:
          "met, notMet (measured, outside the band) or untested; null when the patient is not under care in the month, or the indicator counts alerts",
      }),
      met: z.boolean().nullable().meta({ description: "place is met; null where place is null" }),
      item: z.string().nullable().meta({
        description: "A target: the item whose value was counted (CA where corrected calcium could not be derived)",
        example: "CA_CORR",
      }),
      value: z.number().nullable().meta({ description: "A target: the value counted" }),
    }),
  ),
});
export type PatientMonth = z.infer<typeof patientMonthSchema>;

/**
 * A patient's month as the figures count it: their last value of each indicator item (derived
 * values included) and their place in each indicator. Null when the patient does not exist or is
 * of a ward outside the caller's (read.patients under the caller's ward scope).
 */
export async function patientMonth(
  reader: TenantReader,
  patientRef: string,
  month: string,
): Promise<PatientMonth | null> {
  if (!(await patientVisible(reader, patientRef))) return null;
  const indicators = await indicatorsInForce(reader);
  const codes = [...new Set(indicators.flatMap((indicator) => indicator.items))];
  const windowMonths = Math.max(1, ...indicators.map((indicator) => indicator.windowMonths));
  const facts = await readMonthFacts(reader, { month, ward: null, patientRef }, codes, windowMonths);
  const underCare = facts.underCare.includes(patientRef);
  const valueOf = (code: string, inMonth: string) =>
    facts.values.find((value) => value.stdCode === code && value.month === inMonth);
  const ofMonth = facts.values
    .filter((value) => value.month === month)
    .sort((a, b) => (a.stdCode < b.stdCode ? -1 : 1));
  const units = await unitsOf(
    reader,
    ofMonth.map((value) => value.stdCode),
  );
  return {
    patientRef,
    month,
    underCare,
    values: ofMonth.map((value) => valueAnswer(value, units.get(value.stdCode) ?? "")),
    indicators: indicators.map((indicator) => {
      const place = underCare && indicator.kind !== "timeliness" ? placeOf(indicator, valueOf, month) : null;
      const counted = indicator.kind === "target" ? targetValue(indicator, (code) => valueOf(code, month)) : undefined;
      return {
        code: indicator.code,
        version: indicator.version,
        kind: indicator.kind,
        place,
        met: place === null ? null : place === "met",
        item: counted?.stdCode ?? null,
        value: counted?.value ?? null,
      };
    }),
  };
}

function valueAnswer(value: MonthValue, unit: string): PatientMonth["values"][number] {
  return {
    code: value.stdCode,
    value: value.value,
    valueText: value.valueText,
    unit,
    at: value.at,
    externalIds: value.externalIds,
    derived: value.formulaVersion !== null,
    formulaVersion: value.formulaVersion,
  };
}

/** The standard units of items, as the dictionary in force writes them. */
async function unitsOf(reader: TenantReader, codes: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await reader.query<{ code: string; unit: string }>(
    "select code, unit from read.std_items where code = any($1::text[])",
    [codes],
  );
  return new Map(rows.map((row) => [row.code, row.unit]));
}

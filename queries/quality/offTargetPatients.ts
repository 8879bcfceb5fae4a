import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTimeText } from "../../db/localDateTime.ts";
import type { IndicatorInForce } from "./indicators.ts";
import { placeSchema, targetValue, type IndicatorFigures, type MonthValue } from "./monthFigures.ts";
import type { LiveMonth } from "./months.ts";

/** `GET /api/quality/months/{yyyy-MM}/patients?code=`: the patients not at target of one indicator. */
export const offTargetAnswerSchema = z.object({
  month: z.string().meta({ example: "2026-10" }),
  ward: z.string().nullable(),
  code: z.string().meta({ example: "HGB_TARGET" }),
  state: z.enum(["open", "closed"]),
  patients: z.array(
    z.object({
      patientRef: z.string().meta({ example: "P002" }),
      name: z.string().nullable().meta({ description: "null when the patient is no longer seen (another ward now)" }),
      place: placeSchema.meta({
        description: "notMet (a target measured outside its band) or untested (a tested indicator not measured)",
      }),
      now: placeSchema.nullable().meta({
        description: "The patient's place counted now (a closed month's may have moved since); null: not counted now",
      }),
      item: z.string().nullable().meta({ description: "A target: the item counted", example: "HGB" }),
      value: z.number().nullable().meta({ description: "A target: the last value of the month known now" }),
      unit: z.string().nullable(),
      at: localIsoDateTimeText.nullable().meta({ description: "When that value was collected" }),
      externalIds: z
        .array(z.string())
        .meta({ description: "The report it was read from (a derived value's: its inputs')" }),
    }),
  ),
});
export type OffTargetAnswer = z.infer<typeof offTargetAnswerSchema>;

/**
 * The patients of one indicator not at target in a month (contract G.2, for the staff page's list):
 * a target's `notMet`, a tested indicator's `untested`, as the month answers them (a closed month's
 * as frozen), each with their name and the last value of the month known now.
 */
export async function offTargetPatients(
  reader: TenantReader,
  live: LiveMonth,
  indicator: IndicatorInForce,
  figures: Pick<IndicatorFigures, "patients">,
): Promise<OffTargetAnswer["patients"]> {
  const place = indicator.kind === "target" ? "notMet" : "untested";
  const refs = figures.patients[place];
  if (refs.length === 0) return [];
  const { rows } = await reader.query<{ patient_ref: string; name: string }>(
    "select patient_ref, name from read.patients where patient_ref = any($1::text[])",
    [refs],
  );
  const names = new Map(rows.map((row) => [row.patient_ref, row.name]));
  const units = await reader.query<{ code: string; unit: string }>(
    "select code, unit from read.std_items where code = any($1::text[])",
    [indicator.items],
  );
  const unitOf = new Map(units.rows.map((row) => [row.code, row.unit]));
  const now = live.figures.find((entry) => entry.code === indicator.code);
  const placeNow = (patientRef: string) =>
    placeSchema.options.find((option) => now?.patients[option].includes(patientRef)) ?? null;
  const valueOf = (patientRef: string, code: string): MonthValue | undefined =>
    live.facts.values.find(
      (value) => value.patientRef === patientRef && value.stdCode === code && value.month === live.facts.month,
    );
  return refs.map((patientRef) => {
    const counted =
      indicator.kind === "target" ? targetValue(indicator, (code) => valueOf(patientRef, code)) : undefined;
    return {
      patientRef,
      name: names.get(patientRef) ?? null,
      place,
      now: placeNow(patientRef),
      item: counted?.stdCode ?? null,
      value: counted?.value ?? null,
      unit: counted ? (unitOf.get(counted.stdCode) ?? "") : null,
      at: counted?.at ?? null,
      externalIds: counted?.externalIds ?? [],
    };
  });
}

import { z } from "zod";
import type { QualityIndicator } from "../../db/seed/qualityIndicators.ts";

/*
 * Contract G.2's counting rules, as pure functions of what a month holds (monthFacts.ts): the
 * patients under care, and their last value of each item in the months an indicator looks at. The
 * month's answer, its close, its restatement and the patient's month all count with these, and so
 * can the exports and the FHIR MeasureReport.
 */

/** Where a patient stands in an indicator: met, measured but not met, under care without the item; null: not under care. */
export const placeSchema = z.enum(["met", "notMet", "untested"]);
export type Place = z.infer<typeof placeSchema>;

export const indicatorFiguresSchema = z.object({
  code: z.string().meta({ example: "HGB_TARGET" }),
  version: z.int().meta({ description: "The indicator's version the figures were counted by", example: 1 }),
  numerator: z.int(),
  denominator: z.int(),
  rate: z.number().nullable().meta({
    description: "numerator / denominator, 0–1, rounded to 4 decimals; null when the denominator is 0",
    example: 0.8125,
  }),
  patients: z
    .object({
      met: z.array(z.string()),
      notMet: z.array(z.string()),
      untested: z.array(z.string()),
    })
    .meta({
      description:
        "patientRefs: met (the numerator), notMet (measured, outside the band: the rest of a target's denominator), untested (under care without the item in the window); each sorted",
    }),
});
export type IndicatorFigures = z.infer<typeof indicatorFiguresSchema>;

/** A patient's last value of an item in a month. */
export interface MonthValue {
  stdCode: string;
  /** yyyy-MM */
  month: string;
  patientRef: string;
  value: number | null;
  valueText: string | null;
  /** Collected (else reported), local yyyy-MM-ddTHH:mm:ss. */
  at: string;
  externalIds: string[];
  formulaVersion: number | null;
}

/** What a month holds for the figures: who was under care, and the values of the months the indicators look at. */
export interface MonthFacts {
  /** yyyy-MM */
  month: string;
  underCare: readonly string[];
  values: readonly MonthValue[];
}

export type CountedIndicator = Pick<QualityIndicator, "code" | "version" | "kind" | "items" | "band" | "windowMonths">;

/** `yyyy-MM` `months` before `month` (0: the month itself). */
export function monthBefore(month: string, months: number): string {
  const [year, number] = month.split("-").map(Number) as [number, number];
  const index = year * 12 + (number - 1) - months;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${String((index % 12) + 1).padStart(2, "0")}`;
}

/** The value of a target the patient is counted by: the latest of its items' last values in the month, the earlier item on a tie. */
export function targetValue(
  indicator: Pick<CountedIndicator, "items">,
  valuesOf: (stdCode: string) => MonthValue | undefined,
): MonthValue | undefined {
  let chosen: MonthValue | undefined;
  for (const code of indicator.items) {
    const value = valuesOf(code);
    if (value?.value != null && (!chosen || value.at > chosen.at)) chosen = value;
  }
  return chosen;
}

/** Whether a value lies inside a band, edges included. */
export function inBand(value: number, band: CountedIndicator["band"]): boolean {
  return (band?.low == null || value >= band.low) && (band?.high == null || value <= band.high);
}

/** Each patient's place in each indicator, and the figures they make. */
export function countIndicators(indicators: readonly CountedIndicator[], facts: MonthFacts): IndicatorFigures[] {
  const values = new Map<string, MonthValue>();
  for (const value of facts.values) values.set(`${value.patientRef}\u0000${value.stdCode}\u0000${value.month}`, value);
  const valueOf = (patientRef: string, stdCode: string, month: string) =>
    values.get(`${patientRef}\u0000${stdCode}\u0000${month}`);
  return indicators.map((indicator) => {
    const places = new Map<string, Place>();
    for (const patientRef of facts.underCare)
      places.set(
        patientRef,
        placeOf(indicator, (code, month) => valueOf(patientRef, code, month), facts.month),
      );
    return figuresOf(indicator, places);
  });
}

/** One patient's place in an indicator, from their values (by item and month). */
export function placeOf(
  indicator: CountedIndicator,
  valueOf: (stdCode: string, month: string) => MonthValue | undefined,
  month: string,
): Place {
  if (indicator.kind === "target") {
    const value = targetValue(indicator, (code) => valueOf(code, month));
    if (!value) return "untested";
    return inBand(value.value!, indicator.band) ? "met" : "notMet";
  }
  if (indicator.kind === "tested") {
    const window = Array.from({ length: indicator.windowMonths }, (_, back) => monthBefore(month, back));
    const measured = indicator.items.every((code) => window.some((inWindow) => valueOf(code, inWindow) !== undefined));
    return measured ? "met" : "untested";
  }
  // Timeliness counts critical alerts, not patients' values: until contract G.3 it counts none.
  return "untested";
}

/** The figures of one indicator from each patient's place. */
export function figuresOf(
  indicator: Pick<CountedIndicator, "code" | "version" | "kind">,
  places: ReadonlyMap<string, Place>,
) {
  const patients = { met: [] as string[], notMet: [] as string[], untested: [] as string[] };
  if (indicator.kind !== "timeliness") for (const [patientRef, place] of places) patients[place].push(patientRef);
  for (const list of Object.values(patients)) list.sort();
  const numerator = patients.met.length;
  const denominator =
    indicator.kind === "target" ? numerator + patients.notMet.length : indicator.kind === "tested" ? places.size : 0;
  return {
    code: indicator.code,
    version: indicator.version,
    numerator,
    denominator,
    rate: denominator === 0 ? null : Math.round((numerator / denominator) * 10_000) / 10_000,
    patients,
  } satisfies IndicatorFigures;
}

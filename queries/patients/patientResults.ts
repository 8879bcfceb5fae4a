import { z } from "zod";
import { deltaBeyondLimit } from "../../commands/alerts/events.ts";
import type { Dictionary, DictionaryItem } from "../../db/seed/defaultDictionary.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTimeText } from "../../db/localDateTime.ts";
import { itemNamesShape } from "../dictionary/itemNames.ts";
import { patientByRef, patientListEntrySchema } from "./patients.ts";
import { derivedFormulaSchema, formulaOf, formulasInForce, patientDerivedValues } from "./derivedResults.ts";

/*
 * One patient's results over time (contract D.7), what the patient chart draws: for each asked
 * item, its points in the standard unit, oldest first. Read from lab_results_by_patient, whose
 * included columns hold everything a point needs: a patient's few hundred rows of an item are read
 * from the index alone, however many reports the store holds.
 */

const bandSchema = z.object({
  low: z.number().nullable(),
  high: z.number().nullable(),
  source: z.string().meta({ description: "The guideline the band comes from" }),
  sourceZh: z.string().optional().meta({ description: "The same citation in Chinese, where the dictionary gives it" }),
});

export const resultPointSchema = z.object({
  at: localIsoDateTimeText.meta({ description: "When the sample was collected, else when the result was reported" }),
  value: z.number().meta({ description: "The value in the item's standard unit" }),
  flag: z.string().nullable().meta({ description: "The laboratory's abnormal flag (L, H, LL, HH, N, A …), as sent" }),
  externalId: z
    .string()
    .meta({ description: "The report the result belongs to (of a derived value: the first report it read)" }),
  derived: z
    .literal(true)
    .optional()
    .meta({ description: "Present on a value the service derived (contract F.2), not one a laboratory sent" }),
  formula: derivedFormulaSchema.optional(),
  delta: z
    .object({
      previous: z.number().meta({
        description:
          "The patient's previous result of the item (collected most recently before this one, as known now), standard unit",
      }),
      previousAt: localIsoDateTimeText,
      change: z.number().meta({ description: "value − previous, signed, standard unit" }),
      previousExternalId: z.string(),
    })
    .optional()
    .meta({
      description:
        "Contract F.3: present only when the result moved from the previous one beyond the dictionary's delta limit",
    }),
});

type ResultPoint = z.infer<typeof resultPointSchema>;

export const resultSeriesSchema = z.object({
  code: z.string(),
  ...itemNamesShape,
  unit: z.string().meta({ description: 'The item\'s standard unit; "" when it has none' }),
  decimals: z
    .int()
    .nullable()
    .meta({ description: "How many decimals the dictionary shows the item's values with (null: as stored)" }),
  refLow: z
    .number()
    .nullable()
    .meta({ description: "The reference range of the patient's newest result of the item that has one" }),
  refHigh: z.number().nullable(),
  target: bandSchema
    .optional()
    .meta({ description: "The clinical target (KDIGO / KDOQI) where the dictionary holds one" }),
  critical: bandSchema.optional().meta({ description: "Beyond these limits a result raises a critical-result alert" }),
  points: z.array(resultPointSchema),
});

export const patientResultsSchema = z.object({ patient: patientListEntrySchema, series: z.array(resultSeriesSchema) });
export type PatientResults = z.infer<typeof patientResultsSchema>;

export interface PatientResultsRequest {
  patientRef: string;
  /** Dictionary items, in the order their series are answered. */
  items: readonly DictionaryItem[];
  /** Inclusive days, yyyy-MM-dd. */
  fromDay: string;
  toDay: string;
  /** Derived values by the formula versions in force at this moment (contract F.2); now when absent. */
  asOf?: Date;
}

/** The items a chart shows when none are asked for: the dictionary's core numeric items. */
export function defaultChartItems(dictionary: Dictionary): DictionaryItem[] {
  return dictionary.items.filter((item) => item.core && item.valueType === "numeric");
}

export const resultItemSchema = z.object({
  code: z.string().meta({
    description: "The standard item code, as GET /api/patients/{patientRef}/results?codes= takes it",
    example: "K",
  }),
  ...itemNamesShape,
  unit: z.string().meta({ description: 'The item\'s standard unit; "" when it has none' }),
  category: z.string(),
  core: z.boolean().meta({ description: "One of the items the chart shows when none are asked for" }),
  results: z.int().meta({ description: "How many results of the item the patient has, in any period" }),
  lastAt: localIsoDateTimeText
    .nullable()
    .meta({ description: "When the newest was collected (else reported); null when there is none" }),
});
export type ResultItem = z.infer<typeof resultItemSchema>;

/**
 * The items a chart can draw for the patient (contract D.7, so that staff can pick any item the
 * patient has): every core numeric item, with or without results, then every other numeric item
 * the patient has results of, each in the dictionary's order. Undefined when the tenant has no
 * such patient. Counted from lab_results_by_patient alone, like the series.
 */
export async function patientResultItems(
  reader: TenantReader,
  dictionary: Dictionary,
  patientRef: string,
): Promise<ResultItem[] | undefined> {
  if (!(await patientByRef(reader, patientRef))) return undefined;
  const [{ rows }, derived] = await Promise.all([
    reader.query<{ std_code: string; results: number; last_at: string }>(
      `select std_code, count(*)::int as results, to_char(max(coalesce(collected_at, reported_at)), 'YYYY-MM-DD"T"HH24:MI:SS') as last_at
       from read.lab_results
       where patient_ref = $1 and std_code is not null and std_value is not null
       group by std_code`,
      [patientRef],
    ),
    formulasInForce(reader, null).then((formulas) => patientDerivedValues(reader, patientRef, formulas, null, null)),
  ]);
  const held = new Map(rows.map((row) => [row.std_code, row]));
  // Derived values count as results of their item (contract F.2).
  for (const value of derived) {
    const counted = held.get(value.stdCode) ?? { std_code: value.stdCode, results: 0, last_at: value.at };
    held.set(value.stdCode, {
      ...counted,
      results: counted.results + 1,
      last_at: value.at > counted.last_at ? value.at : counted.last_at,
    });
  }
  const numeric = dictionary.items.filter((item) => item.valueType === "numeric");
  return [...numeric.filter((item) => item.core), ...numeric.filter((item) => !item.core && held.has(item.code))].map(
    (item) => ({
      code: item.code,
      name: item.name,
      nameEn: item.nameEn,
      label: item.label,
      unit: item.unit,
      category: item.category,
      core: item.core,
      results: held.get(item.code)?.results ?? 0,
      lastAt: held.get(item.code)?.last_at ?? null,
    }),
  );
}

interface PointRow {
  std_code: string;
  at: string;
  value: number;
  flag: string | null;
  external_id: string;
  previous: number | null;
  previous_at: string | null;
  previous_external_id: string | null;
}

/*
 * The points of the period, each with the result before it (contract F.3), as known now: a
 * late-arriving older result is in the series where it falls. The window starts $5 days (the
 * longest delta limit's) before the period, so that the period's first point has its previous one
 * from before it; a previous result further back is too old to be compared anyway.
 */
const POINTS_WITH_PREVIOUS = `
  select std_code, to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS') as at, value, flag, external_id, previous,
    to_char(previous_t, 'YYYY-MM-DD"T"HH24:MI:SS') as previous_at, previous_external_id
  from (
    select std_code, coalesce(collected_at, reported_at) as t, std_value as value, abnormal_flag as flag, external_id,
           lag(std_value) over series as previous, lag(coalesce(collected_at, reported_at)) over series as previous_t,
             lag(external_id) over series as previous_external_id
    from read.lab_results
    where patient_ref = $1 and std_code = any($2::text[]) and std_value is not null and coalesce(collected_at, reported_at) >= $3::date - $5::integer
    window series as (partition by std_code order by coalesce(collected_at, reported_at), external_id)
  ) s
  where t >= $3::date and t < $4::date + 1
  order by std_code, t, external_id`;

/** A point's `delta`, when the item has a delta limit and the result moved beyond it from the previous one. */
function deltaFlag(
  item: DictionaryItem,
  row: PointRow,
): { delta: NonNullable<ResultPoint["delta"]> } | Record<string, never> {
  if (!item.delta || row.previous === null || row.previous_at === null) return {};
  const beyond = deltaBeyondLimit(
    { value: row.value, at: row.at },
    { value: row.previous, at: row.previous_at },
    item.delta,
  );
  return beyond
    ? {
        delta: {
          previous: row.previous,
          previousAt: row.previous_at,
          change: beyond.change,
          previousExternalId: row.previous_external_id!,
        },
      }
    : {};
}

/** The patient's series, or undefined when the tenant has no such patient. */
export async function patientResults(
  reader: TenantReader,
  request: PatientResultsRequest,
): Promise<PatientResults | undefined> {
  const patient = await patientByRef(reader, request.patientRef);
  if (!patient) return undefined;
  const codes = request.items.map((item) => item.code);
  // One after the other: the reader is one connection, which runs one statement at a time anyway
  // (pg queues a second one sent meanwhile, a use it deprecates).
  const points = await reader.query<PointRow>(POINTS_WITH_PREVIOUS, [
    request.patientRef,
    codes,
    request.fromDay,
    request.toDay,
    Math.max(0, ...request.items.map((item) => item.delta?.days ?? 0)),
  ]);
  // One probe per item, newest first until a row with a range: a handful of rows, not the series.
  const ranges = await reader.query<{ code: string; ref_low: number | null; ref_high: number | null }>(
    `select c.code, r.ref_low, r.ref_high
     from unnest($2::text[]) as c(code)
     cross join lateral (
       select ref_low, ref_high from read.lab_results
       where patient_ref = $1 and std_code = c.code and reported_on <= $3::date and (ref_low is not null or ref_high is not null)
       order by reported_on desc limit 1
     ) r`,
    [request.patientRef, codes, request.toDay],
  );
  const derived = await patientDerivedValues(
    reader,
    request.patientRef,
    await formulasInForce(reader, request.asOf ?? null, codes),
    request.fromDay,
    request.toDay,
  );
  const pointsOf = new Map<string, PatientResults["series"][number]["points"]>(codes.map((code) => [code, []]));
  const itemOf = new Map(request.items.map((item) => [item.code, item]));
  for (const row of points.rows)
    pointsOf.get(row.std_code)!.push({
      at: row.at,
      value: row.value,
      flag: row.flag,
      externalId: row.external_id,
      ...deltaFlag(itemOf.get(row.std_code)!, row),
    });
  // Beside the sent values of their item, in time order (a day with a sent value has no derived one).
  for (const value of derived)
    pointsOf.get(value.stdCode)!.push({
      at: value.at,
      value: value.value,
      flag: null,
      externalId: value.inputs[0]!.externalId,
      derived: true,
      formula: formulaOf(value),
    });
  for (const series of pointsOf.values()) series.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const rangeOf = new Map(ranges.rows.map((row) => [row.code, row]));
  return {
    patient,
    series: request.items.map((item) => ({
      code: item.code,
      name: item.name,
      nameEn: item.nameEn,
      label: item.label,
      unit: item.unit,
      decimals: item.decimals ?? null,
      refLow: rangeOf.get(item.code)?.ref_low ?? null,
      refHigh: rangeOf.get(item.code)?.ref_high ?? null,
      ...(item.target ? { target: item.target } : {}),
      ...(item.critical ? { critical: item.critical } : {}),
      points: pointsOf.get(item.code)!,
    })),
  };
}

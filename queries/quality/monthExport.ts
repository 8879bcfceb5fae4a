import type { Queryable } from "../../db/eventStore.ts";
import type { QualityIndicator } from "../../db/seed/qualityIndicators.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { closedAnswer, closeOf, type MonthClose } from "./closedMonths.ts";
import type { MonthScope } from "./monthFacts.ts";
import { monthBefore, targetValue, type IndicatorFigures, type MonthValue, type Place } from "./monthFigures.ts";
import { liveMonth, type LiveMonth, type MonthAnswer } from "./months.ts";

/*
 * What the month's export (contract G.2) holds, read once: the figures exactly as
 * `GET /api/quality/months/{yyyy-MM}` answers them (a closed month's frozen, an open month's
 * counted now), each indicator's definition in the version it was counted by, each patient's
 * place and last value, and the 12 months up to it as rates. The files are written from this
 * (src/quality/export) and never count anything themselves.
 */

/** An indicator's definition in one version, as the dictionary release that put it in force wrote it. */
export type IndicatorDefinition = Pick<
  QualityIndicator,
  "name" | "nameEn" | "kind" | "items" | "band" | "windowMonths" | "source"
> & { unit: string; sourceZh: string | null };

export interface ExportedIndicator {
  figures: IndicatorFigures;
  /** Null only when no release the service replayed holds that version (never in practice). */
  definition: IndicatorDefinition | null;
}

/** A patient's cell of one indicator: where they stand, and the value it was judged by. */
export interface PatientCell {
  place: Place | null;
  /** The last value (a tested indicator of several items: each item's, in the items' order); null when none. */
  value: number | string | Array<number | string | null> | null;
  /** A closed month: the patient's place counted now differs from the frozen one, so today's value does not show why. */
  changedSinceClose: boolean;
}

export interface ExportedPatient {
  patientRef: string;
  /** As the patient list names them; null when the caller's wards no longer hold the patient. */
  name: string | null;
  /** One a patient-counting indicator, in `MonthExport.patientIndicators`' order. */
  cells: PatientCell[];
}

export interface TrendMonth {
  /** yyyy-MM */
  month: string;
  state: MonthAnswer["state"];
  /** One an exported indicator, in `MonthExport.indicators`' order (0–1, null: no denominator or not counted then). */
  rates: Array<number | null>;
}

export interface MonthExport {
  answer: MonthAnswer;
  indicators: ExportedIndicator[];
  /** The indexes (in `indicators`) of the indicators that place patients: all but timeliness. */
  patientIndicators: number[];
  patients: ExportedPatient[];
  /** The 12 months up to and including the month, oldest first. */
  trend: TrendMonth[];
}

/** The months of the trend: this one and the 11 before it. */
export const TREND_MONTHS = 12;

/**
 * The export of a month of `scope`'s ward (or of the whole tenant). `close` is the month's close
 * when it was closed (the figures are then its own); `db` reads the closes of the trend's months.
 */
export async function monthExport(
  reader: TenantReader,
  db: Queryable,
  tenant: string,
  scope: MonthScope,
  close: MonthClose | undefined,
): Promise<MonthExport> {
  const live = await liveMonth(reader, scope);
  const answer: MonthAnswer = close
    ? closedAnswer(close)
    : { month: scope.month, ward: scope.ward, state: "open", indicators: live.figures };
  const definitions = await definitionsOf(
    reader,
    answer.indicators.map(({ code, version }) => ({ code, version })),
  );
  const indicators = answer.indicators.map((figures) => ({
    figures,
    definition: definitions.get(`${figures.code}\u0000${figures.version}`) ?? null,
  }));
  const patientIndicators = indicators.flatMap((indicator, index) =>
    indicator.definition?.kind === "timeliness" ? [] : [index],
  );
  return {
    answer,
    indicators,
    patientIndicators,
    patients: await patientsOf(reader, indicators, patientIndicators, live, answer.state === "closed"),
    trend: await trendOf(reader, db, tenant, scope, answer),
  };
}

async function definitionsOf(
  reader: TenantReader,
  versions: ReadonlyArray<{ code: string; version: number }>,
): Promise<Map<string, IndicatorDefinition>> {
  const { rows } = await reader.query<
    IndicatorDefinition & { code: string; version: number; band: IndicatorDefinition["band"] }
  >(
    `select code, version, name, name_en as "nameEn", kind, items, band, window_months as "windowMonths", unit, source,
            source_zh as "sourceZh"
     from read.quality_indicators
     where (code, version) in (select * from unnest($1::text[], $2::integer[]))`,
    [versions.map(({ code }) => code), versions.map(({ version }) => version)],
  );
  return new Map(rows.map(({ code, version, ...definition }) => [`${code}\u0000${version}`, definition]));
}

/** Each patient the figures place, by patientRef, with their place and last value in each patient-counting indicator. */
async function patientsOf(
  reader: TenantReader,
  indicators: readonly ExportedIndicator[],
  patientIndicators: readonly number[],
  live: LiveMonth,
  closed: boolean,
): Promise<ExportedPatient[]> {
  const placed = indicators.map(({ figures }) => placesOf(figures));
  const now = closed ? live.figures.map(placesOf) : placed;
  const refs = [...new Set(placed.flatMap((places) => [...places.keys()]))].sort();
  const values = new Map<string, MonthValue[]>();
  for (const value of live.facts.values) values.set(value.patientRef, [...(values.get(value.patientRef) ?? []), value]);
  const names = await namesOf(reader, refs);
  return refs.map((patientRef) => ({
    patientRef,
    name: names.get(patientRef) ?? null,
    cells: patientIndicators.map((index) => {
      const { figures, definition } = indicators[index]!;
      const place = placed[index]!.get(patientRef) ?? null;
      const nowIndex = live.figures.findIndex((counted) => counted.code === figures.code);
      const placeNow = closed ? (nowIndex < 0 ? null : (now[nowIndex]!.get(patientRef) ?? null)) : place;
      const changedSinceClose = closed && placeNow !== place;
      const value =
        place === null || place === "untested" || changedSinceClose || !definition
          ? null
          : lastValue(definition, values.get(patientRef) ?? [], live.facts.month);
      return { place, value, changedSinceClose };
    }),
  }));
}

function placesOf(figures: Pick<IndicatorFigures, "patients">): Map<string, Place> {
  const places = new Map<string, Place>();
  for (const place of ["met", "notMet", "untested"] as const)
    for (const patientRef of figures.patients[place]) places.set(patientRef, place);
  return places;
}

/**
 * The value a patient's place was judged by: a target's counted value (the month's last of its
 * item, or of the item standing in for it); a tested indicator's last value of each item in its
 * window (one item: that value alone).
 */
function lastValue(
  definition: IndicatorDefinition,
  values: readonly MonthValue[],
  month: string,
): PatientCell["value"] {
  const shown = (value: MonthValue | undefined) => value?.value ?? value?.valueText ?? null;
  if (definition.kind === "target")
    return shown(
      targetValue(definition, (code) => values.find((value) => value.stdCode === code && value.month === month)),
    );
  const window = new Set(Array.from({ length: definition.windowMonths }, (_, back) => monthBefore(month, back)));
  const latest = definition.items.map((code) =>
    shown(
      values
        .filter((value) => value.stdCode === code && window.has(value.month))
        .reduce<MonthValue | undefined>((last, value) => (last && last.at >= value.at ? last : value), undefined),
    ),
  );
  return latest.length === 1 ? latest[0]! : latest;
}

async function namesOf(reader: TenantReader, patientRefs: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await reader.query<{ patient_ref: string; name: string }>(
    "select patient_ref, name from read.patients where patient_ref = any($1::text[])",
    [patientRefs],
  );
  return new Map(rows.map((row) => [row.patient_ref, row.name]));
}

/**
 * The rates of the 12 months up to the month, of its indicators: a closed month's from its frozen
 * figures, an open one's counted now, as the month's answer would give each. Read a month at a
 * time, keeping only its rates.
 */
async function trendOf(
  reader: TenantReader,
  db: Queryable,
  tenant: string,
  scope: MonthScope,
  answer: MonthAnswer,
): Promise<TrendMonth[]> {
  const codes = answer.indicators.map(({ code }) => code);
  const ratesOf = (figures: ReadonlyArray<Pick<IndicatorFigures, "code" | "rate">>) =>
    codes.map((code) => figures.find((counted) => counted.code === code)?.rate ?? null);
  const trend: TrendMonth[] = [];
  for (let back = TREND_MONTHS - 1; back >= 0; back--) {
    const month = monthBefore(scope.month, back);
    if (back === 0) {
      trend.push({ month, state: answer.state, rates: ratesOf(answer.indicators) });
      continue;
    }
    const close = await closeOf(db, tenant, month, scope.ward);
    trend.push(
      close
        ? { month, state: "closed", rates: ratesOf(close.data.indicators) }
        : { month, state: "open", rates: ratesOf((await liveMonth(reader, { month, ward: scope.ward })).figures) },
    );
  }
  return trend;
}

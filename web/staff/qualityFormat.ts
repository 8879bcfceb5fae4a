import type { IndicatorAnswer } from "../../queries/quality/indicators.ts";
import type { IndicatorFigures } from "../../queries/quality/monthFigures.ts";
import type { Lang } from "../types.ts";
import type { StaffTexts } from "./texts.ts";

/*
 * How the quality page writes its numbers: months as the service counts them (yyyy-MM), rates as
 * percentages, changes in percentage points, bands in the indicator's unit.
 */

const pad = (n: number) => String(n).padStart(2, "0");

/** The month `months` before `month` (negative: after), yyyy-MM. */
export function monthBefore(month: string, months: number): string {
  const [year, number] = month.split("-").map(Number) as [number, number];
  const index = year * 12 + (number - 1) - months;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${pad((index % 12) + 1)}`;
}

/** This month in the browser's time (the service counts in its own TZ; a unit's browsers are in it). */
export function thisMonth(now = new Date()): string {
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}`;
}

/** A rate (0–1) as a percentage with one decimal: 0.8642 → 86.4%. */
export function percent(rate: number, lang: Lang): string {
  return `${(rate * 100).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB", { minimumFractionDigits: 1, maximumFractionDigits: 1 })}%`;
}

/** A rate and its counts ("86.4% (127/147)"), or that nothing was counted. */
export function rateText(texts: StaffTexts, lang: Lang, figures: IndicatorFigures | undefined): string {
  if (!figures || figures.rate === null) return texts.noneCounted;
  return texts.rateOf(percent(figures.rate, lang), figures.numerator, figures.denominator);
}

/** The change from `before` to `now` in percentage points, signed ("+3.2", "−1.0"); null when either has no rate. */
export function pointsChange(now: IndicatorFigures | undefined, before: IndicatorFigures | undefined): string | null {
  if (now?.rate == null || before?.rate == null) return null;
  const points = Math.round((now.rate - before.rate) * 1000) / 10;
  return `${points > 0 ? "+" : points < 0 ? "−" : "±"}${Math.abs(points).toFixed(1)}`;
}

/** An indicator's band in its unit: "≥ 1.2", "110–130 g/L", "measured within 3 months", "acknowledged within 30 min". */
export function bandText(texts: StaffTexts, indicator: IndicatorAnswer): string {
  const { low, high } = indicator.band;
  if (indicator.kind === "tested") return texts.bandTested(indicator.windowMonths);
  if (indicator.kind === "timeliness") return texts.bandMinutes(String(high ?? ""));
  const unit = indicator.unit;
  if (low !== undefined && high !== undefined) return texts.bandBetween(String(low), String(high), unit);
  if (low !== undefined) return texts.bandAtLeast(String(low), unit);
  return texts.bandAtMost(String(high ?? ""), unit);
}

/** An indicator's name in the page's language. */
export const indicatorName = (indicator: Pick<IndicatorAnswer, "name" | "nameEn">, lang: Lang): string =>
  lang === "en" ? indicator.nameEn : indicator.name;

/** The item a chart opens on for an indicator: its own, else the first it reads; null for one that reads none. */
export const chartItemOf = (indicator: Pick<IndicatorAnswer, "item" | "items">): string | null =>
  indicator.item ?? indicator.items[0] ?? null;

/** Runs `work` on each of `items`, at most `limit` at once, answering in their order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

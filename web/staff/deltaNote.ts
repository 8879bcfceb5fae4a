import { el, localTime } from "./dom.ts";
import type { PageContext } from "./page.ts";
import type { Series, SeriesPoint } from "./seriesChart.ts";
import { valueInUnit } from "./valueText.ts";

/** Contract F.3: under a result that moved beyond its delta limit, how far, from what and when; nothing for another. */
export function deltaNote(ctx: PageContext, series: Series, point: SeriesPoint): HTMLElement | null {
  if (!point.delta) return null;
  const inUnit = (value: number) => valueInUnit(series, value);
  const change = `${point.delta.change > 0 ? "+" : ""}${inUnit(point.delta.change)}`;
  return el(
    "span",
    { class: "sub delta-note" },
    ctx.texts.pointDelta(change, inUnit(point.delta.previous), localTime(point.delta.previousAt)),
  );
}

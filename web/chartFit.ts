/**
 * A report chart's layout for the width it is drawn at (issue #54, the embed page on a phone). The
 * option builder (src/reports/charts/chartOptions.ts) lays a chart out for a page or a Word
 * document; on a narrow box two things went wrong, and are changed here for the screen only:
 *
 * - The legend and the y axes' names share the top: on a phone the centred legend ran over both
 *   names ("spKt/V", "URR (%)"). When they would meet, the plot starts one line lower, so the
 *   names sit under the legend.
 * - A reference line is named outside the plot, right of it, in room the plot leaves for the
 *   name (refLineLabels.ts): some 100 px, which on a phone was half the plot (with a second y
 *   axis, whose labels move out by as much, more than half). On a narrow box the lines are not
 *   named in the drawing; the names go under it, in the page's text (`refLineNames`), and the plot
 *   takes the width.
 */
import type { EChartsOption } from "echarts";

/** Narrower than this (CSS pixels), a chart names its reference lines under the drawing. */
export const NARROW_CHART_WIDTH = 480;

/** About how wide `text` is at 12 px: a CJK character a square, other letters a little over half one. */
function textWidth(text: string): number {
  let width = 0;
  for (const character of text)
    width += /[\u2e80-\ua4cf\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u.test(character) ? 12 : 7;
  return width;
}

type Axis = { name?: string; axisLabel?: Record<string, unknown> } & Record<string, unknown>;
type MarkLine = { label?: Record<string, unknown>; data?: Array<{ name?: string; yAxis?: number }> };
type Series = { name?: string; markLine?: MarkLine } & Record<string, unknown>;
type Grid = { top?: number; right?: number } & Record<string, unknown>;

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** The names of the reference lines `option` draws (the first series' markLine), in order. */
export function refLineNames(option: EChartsOption): string[] {
  const first = asArray(option.series as Series | Series[] | undefined)[0];
  return (first?.markLine?.data ?? []).flatMap((line) => (line.name ? [line.name] : []));
}

/** Whether the legend, centred at the top, would run over a y axis' name at this width. */
function legendMeetsAxisNames(option: EChartsOption, width: number): boolean {
  if (!option.legend) return false;
  const names = asArray(option.yAxis as Axis | Axis[] | undefined).flatMap((axis) => (axis.name ? [axis.name] : []));
  if (names.length === 0) return false;
  // A legend item: its sign (25 px), its name, and the gap to the next (10 px).
  const legend = asArray(option.series as Series | Series[] | undefined).reduce(
    (sum, series) => sum + 35 + textWidth(series.name ?? ""),
    0,
  );
  // Centred, it leaves half of the rest on each side. A name reaches in from its edge past the
  // grid's margin and the axis' labels (some 56 px, as drawn at 390 px) by its own width.
  const widest = Math.max(...names.map(textWidth)) + 56;
  return legend + 2 * widest > width;
}

export interface ChartLayout {
  option: EChartsOption;
  /** The same for every width the chart is laid out alike at: a change of it is a change of layout. */
  key: string;
  /** The reference lines are named under the drawing, not in it. */
  namesBelow: boolean;
}

/**
 * `option` as drawn `width` pixels wide: unchanged when nothing meets, else a copy with the plot
 * lowered under the legend and, on a narrow box, its reference lines unnamed in the drawing and
 * the room their names took given back to the plot.
 */
export function chartLayout(option: EChartsOption, width: number): ChartLayout {
  const lower = legendMeetsAxisNames(option, width);
  const namesBelow = width < NARROW_CHART_WIDTH && refLineNames(option).length > 0;
  const key = `${lower}:${namesBelow}`;
  if (!lower && !namesBelow) return { option, key, namesBelow };
  const grid = { ...(option.grid as Grid) };
  if (lower) grid.top = (grid.top ?? 60) + 22;
  let series = option.series as Series | Series[];
  let yAxis = option.yAxis as Axis | Axis[];
  if (namesBelow) {
    const [first, ...rest] = asArray(series);
    const markLine = { ...first!.markLine, label: { ...first!.markLine!.label, show: false } };
    series = [{ ...first!, markLine }, ...rest];
    // The room the names took: back to the bars' margin, or half the last category's label for a line.
    const categories = ((option.xAxis as { data?: unknown[] } | undefined)?.data ?? []) as unknown[];
    const last = String(categories.at(-1) ?? "");
    const bars = asArray(option.series as Series | Series[]).some((one) => one.type === "bar");
    grid.right = bars ? 24 : Math.max(24, Math.ceil((last.length * 7) / 2) + 8);
    // A second axis' labels moved out by the names' room: back beside the plot.
    const axes = asArray(yAxis).map((axis, i) =>
      i === 1 && axis.axisLabel ? { ...axis, axisLabel: { ...axis.axisLabel, margin: 8 } } : axis,
    );
    yAxis = Array.isArray(option.yAxis) ? axes : axes[0]!;
  }
  return { option: { ...option, grid, series, yAxis } as EChartsOption, key, namesBelow };
}

/**
 * The reference lines' names in the page's text, under a narrow chart (shown while `namesBelow`):
 * each after a dashed sign like the line's, which the drawing keeps.
 */
export function refLineNamesBelow(option: EChartsOption): HTMLElement | null {
  const names = refLineNames(option);
  if (names.length === 0) return null;
  const list = document.createElement("ul");
  list.className = "ref-line-names";
  for (const name of names) {
    const item = document.createElement("li");
    item.textContent = name;
    list.append(item);
  }
  return list;
}

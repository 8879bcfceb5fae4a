/**
 * One item's results over time for the patient chart: ECharts drawn on a canvas (the staff pages'
 * CSP allows no inline style, which the SVG renderer's text would need), tooltips drawn on the
 * canvas too. Bands: the clinical target (green), the reference range over it (light grey, dashed
 * grey edges); dashed red lines: the critical limits; a red diamond: the marked result (the one an
 * alert opened the chart on). A click opens the report of the point nearest in time. Every number
 * the chart shows is also in the table view, where each report opens from a button, for screen
 * readers and keyboards: the chart is named, reached with Tab, and described by its bands and a
 * word on the table view.
 */
import { LineChart } from "echarts/charts";
import { GridComponent, MarkAreaComponent, MarkLineComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import { localTime } from "./dom.ts";
import type { PatientResults } from "./types.ts";
import { valueInUnit } from "./valueText.ts";

echarts.use([LineChart, GridComponent, MarkAreaComponent, MarkLineComponent, TooltipComponent, CanvasRenderer]);

export type Series = PatientResults["series"][number];
export type SeriesPoint = Series["points"][number];

export interface SeriesChartOptions {
  /** The item as the page names it (its label and name in the page's language). */
  title: string;
  /** The chart's text alternative. */
  label: string;
  /** Ids of what describes the chart beyond its name (its bands, where its values are listed). */
  describedBy?: string;
  /** The report whose point is marked, if any. */
  marked?: string | null;
  /** Called with the point nearest in time to a click. */
  onPoint?: (point: SeriesPoint) => void;
  /** A line the tooltip adds under a point's value (a derived value's formula), or null. */
  pointNote?: (point: SeriesPoint) => string | null;
}

export interface SeriesChart {
  element: HTMLElement;
  dispose(): void;
}

/*
 * The reference range is drawn over the target, as a light grey with a dashed grey edge (issue
 * #54: drawn first, under the green target, it vanished where the two overlap, as albumin's
 * 40–55 inside its target of 35 and above): its edges read through the green, the green through it.
 */
const BAND_REFERENCE = {
  color: "rgba(110, 110, 110, 0.10)",
  borderColor: "#5f6368",
  borderWidth: 1.5,
  borderType: "dashed",
};
const BAND_TARGET = { color: "rgba(46, 160, 67, 0.22)" };
const CRITICAL = "#c62828";
const LINE = "#1f5fa8";
/** A value the service derived (contract F.2): a hollow symbol of its own colour, apart from the laboratories' values. */
const DERIVED = "#7b3fa0";

/** The y range that shows the points and the bands, a little wider; open sides of a band reach the edge. */
function yRange(series: Series): [number, number] {
  const values = [
    ...series.points.map((point) => point.value),
    ...[series.refLow, series.refHigh, series.target?.low, series.target?.high].filter(
      (v): v is number => typeof v === "number",
    ),
  ];
  if (values.length === 0) return [0, 1];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const pad = (high - low || Math.abs(high) || 1) * 0.12;
  return [Number((low - pad).toPrecision(3)), Number((high + pad).toPrecision(3))];
}

/** The tooltip of the axis' points: when, the value with its unit, and the point's note (a derived value's formula). */
function tooltipText(series: Series, params: unknown, pointNote: SeriesChartOptions["pointNote"]): string {
  const first = (Array.isArray(params) ? params : [params])[0] as { dataIndex?: number } | undefined;
  const point = first?.dataIndex === undefined ? undefined : series.points[first.dataIndex];
  if (!point) return "";
  const note = pointNote?.(point);
  return [localTime(point.at), valueInUnit(series, point.value), ...(note ? [note] : [])].join("\n");
}

/** The point nearest in time to `at` (epoch ms). */
function nearest(points: readonly SeriesPoint[], at: number): SeriesPoint | undefined {
  let best: SeriesPoint | undefined;
  let distance = Infinity;
  for (const point of points) {
    const d = Math.abs(new Date(point.at).getTime() - at);
    if (d < distance) [best, distance] = [point, d];
  }
  return best;
}

export function seriesChart(
  series: Series,
  { title, label, describedBy, marked = null, onPoint, pointNote }: SeriesChartOptions,
): SeriesChart {
  const element = document.createElement("div");
  element.className = "series-chart";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", label);
  // Reached with Tab like the rest of the card (issue #54), so a keyboard user meets each chart by its name.
  element.tabIndex = 0;
  if (describedBy) element.setAttribute("aria-describedby", describedBy);
  if (marked) element.dataset.marked = marked;
  let chart: echarts.ECharts | null = null;
  const [min, max] = yRange(series);
  const band = (low: number | null | undefined, high: number | null | undefined, itemStyle: object) =>
    (low === null || low === undefined) && (high === null || high === undefined)
      ? []
      : [[{ yAxis: low ?? min, itemStyle }, { yAxis: high ?? max }]];
  const limits = [series.critical?.low, series.critical?.high].filter(
    (v): v is number => typeof v === "number" && v >= min && v <= max,
  );
  const option = {
    animation: false,
    grid: { left: 44, right: 12, top: 10, bottom: 24 },
    tooltip: {
      trigger: "axis",
      renderMode: "richText",
      formatter: (params: unknown) => tooltipText(series, params, pointNote),
    },
    xAxis: { type: "time", axisLabel: { hideOverlap: true, fontSize: 10 }, splitLine: { show: false } },
    // The padded ends are not values anyone reads: only the ticks between them are labelled.
    yAxis: {
      type: "value",
      min,
      max,
      axisLabel: { fontSize: 10, showMinLabel: false, showMaxLabel: false },
      splitLine: { lineStyle: { opacity: 0.4 } },
    },
    series: [
      {
        type: "line",
        name: title,
        data: series.points.map((point) =>
          point.externalId === marked && !point.derived
            ? {
                value: [point.at, point.value],
                symbol: "diamond",
                symbolSize: 14,
                itemStyle: { color: CRITICAL, borderColor: "#fff", borderWidth: 1 },
              }
            : point.derived
              ? {
                  value: [point.at, point.value],
                  symbol: "emptyCircle",
                  symbolSize: 8,
                  itemStyle: { color: DERIVED, borderColor: DERIVED, borderWidth: 2 },
                }
              : [point.at, point.value],
        ),
        cursor: onPoint ? "pointer" : "default",
        showSymbol: true,
        symbolSize: 5,
        lineStyle: { color: LINE, width: 1.5 },
        itemStyle: { color: LINE },
        markArea: {
          silent: true,
          // Drawn in this order: the target beneath, the reference range over it.
          data: [
            ...(series.target ? band(series.target.low, series.target.high, BAND_TARGET) : []),
            ...band(series.refLow, series.refHigh, BAND_REFERENCE),
          ],
        },
        markLine: limits.length
          ? {
              silent: true,
              symbol: "none",
              label: { show: false },
              lineStyle: { color: CRITICAL, type: "dashed" },
              data: limits.map((yAxis) => ({ yAxis })),
            }
          : undefined,
      },
    ],
  };
  // Drawn once the element has a size (it is built before it joins the page).
  const observer = new ResizeObserver(() => {
    if (element.clientWidth === 0) return;
    if (!chart) {
      const drawn = echarts.init(element, undefined, { renderer: "canvas" });
      drawn.setOption(option as echarts.EChartsCoreOption);
      // Anywhere on the chart, not only on a 5 px symbol (a finger on a phone): the tooltip shows the same nearest point.
      if (onPoint) {
        drawn.getZr().on("click", (event) => {
          const [at] = drawn.convertFromPixel({ seriesIndex: 0 }, [event.offsetX, event.offsetY]) as number[];
          const point = at === undefined || Number.isNaN(at) ? undefined : nearest(series.points, at);
          if (point) onPoint(point);
        });
      }
      chart = drawn;
    } else chart.resize();
  });
  observer.observe(element);
  return {
    element,
    dispose() {
      observer.disconnect();
      chart?.dispose();
    },
  };
}

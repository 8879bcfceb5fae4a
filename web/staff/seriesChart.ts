/**
 * One item's results over time for the patient chart: ECharts drawn on a canvas (the staff pages'
 * CSP allows no inline style, which the SVG renderer's text would need), tooltips drawn on the
 * canvas too. Bands: the reference range (grey), the clinical target (green); dashed red lines: the
 * critical limits. Every number the chart shows is also in the table view, for screen readers.
 */
import { LineChart } from "echarts/charts";
import { GridComponent, MarkAreaComponent, MarkLineComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import type { PatientResults } from "./types.ts";

echarts.use([LineChart, GridComponent, MarkAreaComponent, MarkLineComponent, TooltipComponent, CanvasRenderer]);

export type Series = PatientResults["series"][number];

export interface SeriesChart {
  element: HTMLElement;
  dispose(): void;
}

const BAND_REFERENCE = "rgba(120, 120, 120, 0.16)";
const BAND_TARGET = "rgba(46, 160, 67, 0.22)";
const CRITICAL = "#c62828";
const LINE = "#1f5fa8";

/** The y range that shows the points and the bands, a little wider; open sides of a band reach the edge. */
function yRange(series: Series): [number, number] {
  const values = [
    ...series.points.map((point) => point.value),
    ...[series.refLow, series.refHigh, series.target?.low, series.target?.high].filter((v): v is number => typeof v === "number"),
  ];
  if (values.length === 0) return [0, 1];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const pad = (high - low || Math.abs(high) || 1) * 0.12;
  return [Number((low - pad).toPrecision(3)), Number((high + pad).toPrecision(3))];
}

export function seriesChart(series: Series, label: string): SeriesChart {
  const element = document.createElement("div");
  element.className = "series-chart";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", label);
  let chart: echarts.ECharts | null = null;
  const [min, max] = yRange(series);
  const band = (low: number | null | undefined, high: number | null | undefined, color: string) =>
    (low === null || low === undefined) && (high === null || high === undefined) ? [] : [[{ yAxis: low ?? min, itemStyle: { color } }, { yAxis: high ?? max }]];
  const limits = [series.critical?.low, series.critical?.high].filter((v): v is number => typeof v === "number" && v >= min && v <= max);
  const option = {
    animation: false,
    grid: { left: 44, right: 12, top: 10, bottom: 24 },
    tooltip: { trigger: "axis", renderMode: "richText", valueFormatter: (value: unknown) => `${value}${series.unit ? ` ${series.unit}` : ""}` },
    xAxis: { type: "time", axisLabel: { hideOverlap: true, fontSize: 10 }, splitLine: { show: false } },
    // The padded ends are not values anyone reads: only the ticks between them are labelled.
    yAxis: { type: "value", min, max, axisLabel: { fontSize: 10, showMinLabel: false, showMaxLabel: false }, splitLine: { lineStyle: { opacity: 0.4 } } },
    series: [
      {
        type: "line",
        name: series.name,
        data: series.points.map((point) => [point.at, point.value]),
        showSymbol: true,
        symbolSize: 5,
        lineStyle: { color: LINE, width: 1.5 },
        itemStyle: { color: LINE },
        markArea: {
          silent: true,
          data: [...band(series.refLow, series.refHigh, BAND_REFERENCE), ...(series.target ? band(series.target.low, series.target.high, BAND_TARGET) : [])],
        },
        markLine: limits.length ? { silent: true, symbol: "none", label: { show: false }, lineStyle: { color: CRITICAL, type: "dashed" }, data: limits.map((yAxis) => ({ yAxis })) } : undefined,
      },
    ],
  };
  // Drawn once the element has a size (it is built before it joins the page).
  const observer = new ResizeObserver(() => {
    if (element.clientWidth === 0) return;
    if (!chart) {
      chart = echarts.init(element, undefined, { renderer: "canvas" });
      chart.setOption(option as echarts.EChartsCoreOption);
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

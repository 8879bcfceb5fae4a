/**
 * Charts of the page: the option comes from the same builder as the docx export
 * (src/reports/charts/chartOptions.ts); ECharts is tree-shaken to the chart types and components that
 * builder uses, drawn as SVG (crisp when printed).
 */
import { BarChart, LineChart, PieChart, ScatterChart } from "echarts/charts";
import {
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
} from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";
import { brokenOut, chartNumber, chartOption, type ChartNode } from "../src/reports/charts/chartOptions.ts";
import type { QuerySuccess } from "./types.ts";
import { chartLayout, refLineNamesBelow } from "./chartFit.ts";

echarts.use([
  LineChart,
  BarChart,
  PieChart,
  ScatterChart,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
  SVGRenderer,
]);

export interface ChartHandle {
  element: HTMLElement;
  dispose(): void;
}

const live = new Set<{ chart: echarts.ECharts; element: HTMLElement }>();
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const printing = window.matchMedia("print");

/** A4 less 12 mm margins on both sides, in CSS pixels (96 per inch). */
const PRINT_CONTENT_WIDTH = Math.floor(((210 - 24) / 25.4) * 96);
const PRINT_CHART_HEIGHT = 250;

function resizeAll(forPrint: boolean): void {
  for (const { chart, element } of live) {
    if (forPrint) {
      // beforeprint comes before the print layout: size the chart for the page by its grid span.
      const span = Number(/\bw-(\d+)\b/.exec(element.closest(".node")?.className ?? "")?.[1] ?? 12);
      const width = Math.max(160, Math.floor((PRINT_CONTENT_WIDTH * span) / 12) - 24);
      chart.resize({ width, height: PRINT_CHART_HEIGHT, animation: { duration: 0 } });
    } else {
      chart.resize({ width: "auto", height: "auto", animation: { duration: 0 } });
    }
  }
}

window.addEventListener("beforeprint", () => resizeAll(true));
window.addEventListener("afterprint", () => resizeAll(false));
// Print media (also the emulated one) has applied its layout by now: take the containers' sizes.
printing.addEventListener("change", () => resizeAll(false));

/**
 * Row indexes of the points of each series, for pie and scatter (the builder leaves out points
 * without a value, so a point's index is not its row's index).
 */
function pointRows(node: ChartNode, result: QuerySuccess): number[][] {
  const xIndex = result.columns.indexOf(node.x);
  const yIndexes = node.y.map((column) => result.columns.indexOf(column));
  if (node.chart === "pie") {
    return [result.rows.flatMap((row, i) => (chartNumber(row[yIndexes[0]!]) === null ? [] : [i]))];
  }
  const xType = result.columnTypes[xIndex];
  const timeAxis = xType === "date" || xType === "datetime";
  return yIndexes.map((yIndex) =>
    result.rows.flatMap((row, i) => {
      const x = timeAxis ? row[xIndex] : chartNumber(row[xIndex]);
      return x === null || x === undefined || chartNumber(row[yIndex]) === null ? [] : [i];
    }),
  );
}

/**
 * Draws a chart node into `element`. `onPick(rowIndex)` is called when a point is clicked — for
 * line, bar and area charts anywhere in the plot (the month under the pointer, as the tooltip
 * shows it), for pie and scatter on a slice or point. Throws ChartColumnError for a wrong column.
 */
export function mountChart(
  element: HTMLElement,
  node: ChartNode,
  result: QuerySuccess,
  onPick?: (rowIndex: number) => void,
  lang: "zh" | "en" = "zh",
): ChartHandle {
  const option = chartOption(node, result, { title: false, animation: !reducedMotion(), lang });
  const chart = echarts.init(element, null, { renderer: "svg" });
  // Laid out for the width it has (chartFit.ts), again when that changes the layout.
  let layout = chartLayout(option, element.clientWidth);
  chart.setOption(layout.option);
  const namesBelow = refLineNamesBelow(option);
  if (namesBelow) {
    namesBelow.hidden = !layout.namesBelow;
    element.after(namesBelow);
  }
  const relayout = () => {
    const next = chartLayout(option, element.clientWidth);
    if (next.key === layout.key) return;
    layout = next;
    chart.setOption(layout.option, { notMerge: true });
    if (namesBelow) namesBelow.hidden = !layout.namesBelow;
  };
  const entry = { chart, element };
  live.add(entry);

  // For tests and tools: what the chart plots, as a short signature (points and their sum).
  const series = (Array.isArray(option.series) ? option.series : [option.series]) as Array<{ data?: unknown[] }>;
  let points = 0;
  let sum = 0;
  for (const s of series) {
    for (const datum of s?.data ?? []) {
      const value = Array.isArray(datum)
        ? datum[1]
        : typeof datum === "object" && datum !== null
          ? (datum as { value: unknown }).value
          : datum;
      if (typeof value === "number") {
        points++;
        sum += value;
      }
    }
  }
  element.dataset.points = String(points);
  element.dataset.signature = `${points}:${sum.toFixed(4)}`;
  const broken = brokenOut(node, result);
  element.dataset.categories = String(broken ? broken.categories.length : result.rows.length);
  if (broken) element.dataset.series = broken.groups.join("|");

  if (onPick && result.rows.length > 0) {
    element.classList.add("drillable");
    if (broken && node.chart !== "scatter") {
      // A breakout's point is a value of the series column at an x: the row that holds both.
      chart.on("click", (params) => {
        const row = broken.rowAt[(params.seriesIndex ?? 0) % broken.groups.length]?.[params.dataIndex];
        if (row !== undefined && row !== null) onPick(row);
      });
    } else if (node.chart === "line" || node.chart === "bar" || node.chart === "area") {
      const zr = chart.getZr();
      const rowAt = (x: number, y: number): number | null => {
        if (!chart.containPixel({ gridIndex: 0 }, [x, y])) return null;
        const value = chart.convertFromPixel({ gridIndex: 0 }, [x, y]) as number[] | number;
        const index = Math.round(Array.isArray(value) ? value[0]! : value);
        return Number.isFinite(index) ? Math.min(result.rows.length - 1, Math.max(0, index)) : null;
      };
      zr.on("mousemove", (event) =>
        zr.setCursorStyle(rowAt(event.offsetX, event.offsetY) === null ? "default" : "pointer"),
      );
      zr.on("click", (event) => {
        const row = rowAt(event.offsetX, event.offsetY);
        if (row !== null) onPick(row);
      });
    } else {
      const rows = pointRows(node, result);
      chart.on("click", (params) => {
        const row = rows[params.seriesIndex ?? 0]?.[params.dataIndex];
        if (row !== undefined) onPick(row);
      });
    }
  }

  const observer = new ResizeObserver(() => {
    relayout();
    chart.resize({ animation: { duration: 0 } });
  });
  observer.observe(element);
  return {
    element,
    dispose() {
      namesBelow?.remove();
      observer.disconnect();
      live.delete(entry);
      chart.dispose();
    },
  };
}

/**
 * The one builder of Apache ECharts options for a chart node (contract A.4): the docx export
 * renders its result on the server (src/reports/charts/renderChart.ts), and the embed page renders it in
 * the browser. So this module imports types only — no Node built-ins, no run-time packages — and
 * bundles as it is with esbuild.
 *
 * - line / bar / area (area = line with an area fill): a category x axis from column `x` (dates
 *   and date-times as their text, in row order), one series per `y` column.
 * - pie: `x` names the slices, the first `y` column is the value.
 * - scatter: value axes on both sides (a time axis when `x` is a date or date-time column), one
 *   series per `y` column of `[x, y]` points.
 * - Issue #22: `y2` columns on a second y axis on the right, `xLabel` / `yLabel` / `y2Label` axis
 *   names (units included), `stacked` bars and areas (each axis its own stack), `refLines` as
 *   dashed horizontal lines on the first y axis, named just right of the plot (refLineLabels.ts).
 * - Issue #34 item 11: `labels` names a y / y2 column for the reader (legend, tooltip, an axis
 *   named after its one series); a column without a label keeps its column name.
 * - Issue #54: `series` names a column whose values split the rows into series (a breakout: a
 *   month × ward query is one bar or line per ward over the months, with a legend), each y column
 *   once per value; the x axis holds each x value once, in the order of its first row.
 * - A column that the result does not hold is an error (`ChartColumnError`), not an empty chart:
 *   the author sees which name is wrong and which columns there are.
 * - Values: numbers stay numbers; exact decimals that PostgreSQL sent as digits become numbers
 *   (a chart needs no more precision); anything else that is not a number is a gap (null).
 */
import type { EChartsOption } from "echarts";
import type { ShownNodeDef } from "../../../commands/reports/spec/specSchema.ts";
import type { QuerySuccess } from "../../../commands/reports/spec/queryOutcome.ts";
import { refLineMarks } from "./refLineLabels.ts";
import { holdsMonths, monthText } from "./formatValue.ts";

/** A chart node as its reader is shown it: every name in their language (localizedText.ts). */
export type ChartNode = Extract<ShownNodeDef, { type: "chart" }>;
export type ChartResult = Pick<QuerySuccess, "columns" | "columnTypes" | "rows">;

export interface ChartOptionSettings {
  /** Animate on first draw (the browser); the server always turns it off. Default true. */
  animation?: boolean;
  /** Draw the node's title inside the chart. Default true. */
  title?: boolean;
  /** The reader's language: how months and an empty category read (issue #54). Default en. */
  lang?: "zh" | "en";
}

/** Fonts that hold Chinese glyphs on the platforms the report is seen on, then the generic family. */
// Single quotes: ECharts' SVG renderer writes the list into a double-quoted style attribute unescaped.
export const CHART_FONT_FAMILY =
  "'Noto Sans CJK SC', 'Noto Sans S Chinese', 'Source Han Sans SC', 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', 'WenQuanYi Micro Hei', sans-serif";

/** A colour-blind-friendly palette (Okabe–Ito order, darker yellow), then ECharts' own. */
export const CHART_COLORS = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#D55E00",
  "#CC79A7",
  "#56B4E9",
  "#B8A000",
  "#000000",
  "#5470C6",
  "#91CC75",
  "#FAC858",
  "#EE6666",
];

const TEXT_COLOR = "#333333";
const EMPTY_LABEL = { zh: "（空）", en: "(empty)" } as const;

export class ChartColumnError extends Error {
  constructor(
    message: string,
    /** The column the node names, and the query's columns: for a page to say it in its words. */
    readonly column: string = "",
    readonly available: readonly string[] = [],
  ) {
    super(message);
    this.name = "ChartColumnError";
  }
}

function columnIndex(node: ChartNode, result: ChartResult, column: string, role: string): number {
  const index = result.columns.indexOf(column);
  if (index < 0) {
    const available = result.columns.length ? result.columns.join(", ") : "none";
    throw new ChartColumnError(
      `Chart ${node.id}: ${role} column "${column}" is not a column of query ${node.query} (its columns: ${available}).`,
      column,
      result.columns,
    );
  }
  return index;
}

/** A plotted number, or null for a gap. */
export function chartNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  return null;
}

/** A category label: dates and date-times keep their text, null is "(empty)". */
export function chartLabel(value: unknown, lang: "zh" | "en" = "en"): string {
  if (value === null || value === undefined || value === "") return EMPTY_LABEL[lang];
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The name a reader sees for a plotted column: its label, else the column's own name. */
export function seriesName(node: ChartNode, column: string): string {
  return node.labels?.[column] ?? column;
}

/**
 * The rows of a chart with `series`, broken out: the x values once each (in the order of their
 * first row), the series column's values (likewise), and for each value and x the row that holds
 * them (the first, when several do); null where no row does. Without `series`: null.
 */
export interface BrokenOut {
  categories: string[];
  groups: string[];
  /** rowAt[group][category]: the index of the row, or null. */
  rowAt: Array<Array<number | null>>;
}

export function brokenOut(node: ChartNode, result: ChartResult): BrokenOut | null {
  if (!node.series || node.chart === "pie") return null;
  const xIndex = columnIndex(node, result, node.x, "x");
  const seriesIndex = columnIndex(node, result, node.series, "series");
  const categories = new Map<string, number>();
  const groups = new Map<string, number>();
  const rowAt: Array<Array<number | null>> = [];
  result.rows.forEach((row, index) => {
    const category = chartLabel(row[xIndex]);
    const group = chartLabel(row[seriesIndex]);
    if (!categories.has(category)) categories.set(category, categories.size);
    if (!groups.has(group)) {
      groups.set(group, groups.size);
      rowAt.push([]);
    }
    const cells = rowAt[groups.get(group)!]!;
    const at = categories.get(category)!;
    if (cells[at] === undefined || cells[at] === null) cells[at] = index;
  });
  for (const cells of rowAt) for (let i = 0; i < categories.size; i++) cells[i] ??= null;
  return { categories: [...categories.keys()], groups: [...groups.keys()], rowAt };
}

/** The series of a broken-out chart: each plotted column once per value of the series column. */
function brokenOutSeries(
  node: ChartNode,
  broken: BrokenOut,
  columns: string[],
): Array<{ name: string; column: string; group: number }> {
  return columns.flatMap((column) =>
    broken.groups.map((group, i) => ({
      name: columns.length + (node.y2?.length ?? 0) > 1 ? `${group} · ${seriesName(node, column)}` : group,
      column,
      group: i,
    })),
  );
}

export function chartOption(node: ChartNode, result: ChartResult, settings: ChartOptionSettings = {}): EChartsOption {
  const showTitle = settings.title !== false && Boolean(node.title);
  const lang = settings.lang ?? "en";
  const xIndex = columnIndex(node, result, node.x, "x");
  const yIndexes = node.y.map((column) => columnIndex(node, result, column, "y"));
  const rows = result.rows;
  const broken = brokenOut(node, result);

  const base: EChartsOption = {
    animation: settings.animation !== false,
    color: CHART_COLORS,
    backgroundColor: "#ffffff",
    textStyle: { fontFamily: CHART_FONT_FAMILY, color: TEXT_COLOR },
    title: showTitle
      ? {
          text: node.title,
          left: "center",
          top: 8,
          textStyle: { fontFamily: CHART_FONT_FAMILY, fontSize: 16, fontWeight: "bold", color: TEXT_COLOR },
        }
      : undefined,
  };
  const top = showTitle ? 40 : 12;

  if (node.chart === "pie") {
    const valueIndex = yIndexes[0]!;
    // A slice without a value has no size: it is left out.
    const data = rows.flatMap((row) => {
      const value = chartNumber(row[valueIndex]);
      return value === null ? [] : [{ name: chartLabel(row[xIndex], lang), value }];
    });
    return {
      ...base,
      tooltip: { trigger: "item", formatter: "{b}: {c} ({d}%)" },
      legend: { type: "scroll", bottom: 4, textStyle: { fontFamily: CHART_FONT_FAMILY } },
      series: [
        {
          type: "pie",
          name: seriesName(node, node.y[0]!),
          radius: "62%",
          center: ["50%", showTitle ? "52%" : "48%"] as [string, string],
          data,
          label: { formatter: "{b}: {d}%", fontFamily: CHART_FONT_FAMILY },
        },
      ],
    };
  }

  const y2 = node.y2 ?? [];
  const y2Indexes = y2.map((column) => columnIndex(node, result, column, "y2"));
  const many = node.y.length + y2.length > 1 || broken !== null;
  const legend = many
    ? { top: showTitle ? 34 : 6, type: "scroll" as const, textStyle: { fontFamily: CHART_FONT_FAMILY } }
    : undefined;
  // Room above the plot for the legend, or for the y axis' name when there is one series.
  const gridTop = top + (many ? 30 : 26);

  if (node.chart === "scatter") {
    const xType = result.columnTypes[xIndex];
    const timeAxis = xType === "date" || xType === "datetime";
    const xValue = (value: unknown) =>
      timeAxis ? (value == null ? null : String(value).replace(" ", "T")) : chartNumber(value);
    return {
      ...base,
      tooltip: { trigger: "item" },
      legend,
      grid: { left: 16, right: 32, top: gridTop, bottom: 34, containLabel: true },
      xAxis: {
        type: timeAxis ? "time" : "value",
        name: node.xLabel ?? node.x,
        nameLocation: "middle",
        nameGap: 28,
        scale: true,
        boundaryGap: ["4%", "4%"],
      },
      yAxis: {
        type: "value",
        scale: true,
        boundaryGap: ["4%", "4%"],
        name: node.yLabel ?? (many ? undefined : seriesName(node, node.y[0]!)),
      },
      series: broken
        ? brokenOutSeries(node, broken, node.y).map(({ name, column, group }) => {
            const yIndex = result.columns.indexOf(column);
            return {
              type: "scatter" as const,
              name,
              symbolSize: 8,
              data: rows
                .filter((row) => broken.groups[group] === chartLabel(row[result.columns.indexOf(node.series!)]))
                .map((row) => [xValue(row[xIndex]), chartNumber(row[yIndex])])
                .filter((point) => point[0] !== null && point[1] !== null) as Array<[number | string, number]>,
            };
          })
        : yIndexes.map((yIndex, i) => ({
            type: "scatter" as const,
            name: seriesName(node, node.y[i]!),
            symbolSize: 8,
            data: rows
              .map((row) => [xValue(row[xIndex]), chartNumber(row[yIndex])])
              .filter((point) => point[0] !== null && point[1] !== null) as Array<[number | string, number]>,
          })),
    };
  }

  // line, bar, area. A month column (each date the first of its month) is labelled by its months (issue #54).
  const months = result.columnTypes[xIndex] === "date" && holdsMonths(rows.map((row) => row[xIndex]));
  const categories = broken
    ? broken.categories.map((category) => (months ? monthText(category, lang) : category))
    : rows.map((row) => (months && row[xIndex] != null ? monthText(row[xIndex], lang) : chartLabel(row[xIndex], lang)));
  // Without a boundary gap (line, area) the last label is centred on the plot's right edge: leave
  // half of it as margin (about 7 px a character at 12 px).
  const lastLabel = categories[categories.length - 1] ?? "";
  const right = node.chart === "bar" ? 24 : Math.max(24, Math.ceil((lastLabel.length * 7) / 2) + 8);
  const scale = node.chart !== "bar" && !node.stacked;
  // The first axis reaches the reference lines, or a target outside the values' range would not show.
  const refValues = (node.refLines ?? []).map((line) => line.value);
  const reach = refValues.length
    ? // Bars keep their zero: a bar's height is its value.
      {
        min: (range: { min: number }) => Math.min(scale ? range.min : 0, range.min, ...refValues),
        max: (range: { max: number }) => Math.max(range.max, ...refValues),
      }
    : {};
  const firstAxis = {
    type: "value" as const,
    scale,
    name: node.yLabel ?? (many ? undefined : seriesName(node, node.y[0]!)),
    ...reach,
  };
  /** Each plotted column's values along the x axis: one series a column, or one a column and value of `series`. */
  const lines = (indexes: number[], names: string[]) =>
    broken
      ? brokenOutSeries(node, broken, names).map(({ name, column, group }) => {
          const yIndex = result.columns.indexOf(column);
          return {
            name,
            data: broken.rowAt[group]!.map((row) => (row === null ? null : chartNumber(rows[row]![yIndex]))),
          };
        })
      : indexes.map((yIndex, i) => ({
          name: seriesName(node, names[i]!),
          data: rows.map((row) => chartNumber(row[yIndex])),
        }));
  const series = (indexes: number[], names: string[], axis: 0 | 1) =>
    lines(indexes, names).map(({ name, data }) => {
      // Series of one axis stack together; a second axis keeps a stack of its own.
      const shared = {
        name,
        data,
        ...(axis ? { yAxisIndex: 1 } : {}),
        ...(node.stacked ? { stack: `axis${axis}` } : {}),
      };
      if (node.chart === "bar") return { type: "bar" as const, ...shared };
      return {
        type: "line" as const,
        ...shared,
        showSymbol: categories.length <= 60,
        connectNulls: false,
        ...(node.chart === "area" ? { areaStyle: { opacity: 0.25 } } : {}),
      };
    });
  const plotted = [...series(yIndexes, node.y, 0), ...series(y2Indexes, y2, 1)];
  // On the first series, so on the first y axis: a target such as Kt/V 1.2, named right of the plot
  // (refLineLabels.ts). A second axis' labels move out by as much (their margin, which both of
  // ECharts' grid layouts count: the docx renderer's legacy containLabel and the embed page's),
  // so the names sit between the plot and those labels.
  const marks = node.refLines?.length ? refLineMarks(node.refLines, CHART_FONT_FAMILY) : null;
  if (marks) Object.assign(plotted[0]!, { markLine: marks.markLine });
  const room = marks?.room ?? 0;
  const gridRight = y2.length ? right : Math.max(right, room + 8);
  return {
    ...base,
    tooltip: { trigger: "axis" },
    legend,
    grid: { left: 16, right: gridRight, top: gridTop, bottom: node.xLabel ? 34 : 16, containLabel: true },
    xAxis: {
      type: "category",
      data: categories,
      boundaryGap: node.chart === "bar",
      axisLabel: { hideOverlap: true },
      ...(node.xLabel ? { name: node.xLabel, nameLocation: "middle" as const, nameGap: 28 } : {}),
    },
    yAxis: y2.length
      ? [
          firstAxis,
          {
            type: "value",
            scale,
            name: node.y2Label,
            position: "right",
            splitLine: { show: false },
            ...(room ? { axisLabel: { margin: room } } : {}),
          },
        ]
      : firstAxis,
    series: plotted,
  };
}

/**
 * A cap on the points a chart draws (the docx export's DOCX_CHART_MAX_POINTS). Drawing costs
 * grow with the points, and a chart 800 pixels wide cannot show more than a few points a pixel:
 * beyond the cap the chart is drawn from fewer rows, chosen so that its shape survives. The cap
 * counts points of one series: rows of a line, bar, area or scatter chart (every series has a
 * point in each row), slices of a pie.
 *
 * - line, bar, area, scatter: the rows are cut into stretches of consecutive rows, and in each
 *   stretch the rows holding each series' lowest and highest value are kept (a stretch where a
 *   series has no value keeps its first row, so the gap shows). The first and last rows always
 *   stay. A spike — a potassium of 7.1 among 4s — is never thinned away, as every n-th row could.
 * - pie: the largest slices are kept, and the others summed into one slice, so that each kept
 *   slice still shows its true share of the whole.
 *
 * Pure (no Node built-ins), like chartOptions.ts.
 */
import { chartNumber, type ChartNode, type ChartResult } from "./chartOptions.ts";

export interface Thinning {
  /** Rows (slices of a pie) the result had. */
  from: number;
  /** Rows drawn; for a pie, the largest slices kept besides the one of the others. */
  kept: number;
}

export interface ThinnedRows {
  result: ChartResult;
  /** null when the chart is drawn from every row. */
  thinning: Thinning | null;
}

/** The smallest cap that still draws every series' extremes for a few stretches. */
export const MIN_CHART_POINTS = 10;

/** The result as the chart should draw it: unchanged up to `maxPoints` rows, thinned beyond. */
export function thinChartRows(node: ChartNode, result: ChartResult, maxPoints: number): ThinnedRows {
  const cap = Math.max(MIN_CHART_POINTS, Math.floor(maxPoints));
  if (result.rows.length <= cap) return { result, thinning: null };
  return node.chart === "pie" ? largestSlices(node, result, cap) : extremesOfStretches(node, result, cap);
}

function extremesOfStretches(node: ChartNode, result: ChartResult, cap: number): ThinnedRows {
  const rows = result.rows;
  // Columns the result lacks are left to chartOption, which says which.
  const series = [...node.y, ...(node.y2 ?? [])]
    .map((column) => result.columns.indexOf(column))
    .filter((index) => index >= 0);
  const perStretch = 2 * Math.max(1, series.length);
  const stretches = Math.max(1, Math.floor((cap - 2) / perStretch));
  const inner = rows.length - 2; // the first and last rows are kept apart
  const kept = new Set<number>([0, rows.length - 1]);
  for (let s = 0; s < stretches; s++) {
    const start = 1 + Math.floor((s * inner) / stretches);
    const end = 1 + Math.floor(((s + 1) * inner) / stretches);
    if (start >= end) continue;
    for (const column of series) {
      let low = -1;
      let high = -1;
      for (let r = start; r < end; r++) {
        const value = chartNumber(rows[r]![column]);
        if (value === null) continue;
        if (low < 0 || value < chartNumber(rows[low]![column])!) low = r;
        if (high < 0 || value > chartNumber(rows[high]![column])!) high = r;
      }
      if (low < 0) kept.add(start);
      else kept.add(low).add(high);
    }
  }
  const drawn = [...kept].sort((a, b) => a - b).map((r) => rows[r]!);
  return { result: { ...result, rows: drawn }, thinning: { from: rows.length, kept: drawn.length } };
}

function largestSlices(node: ChartNode, result: ChartResult, cap: number): ThinnedRows {
  const xIndex = result.columns.indexOf(node.x);
  const valueIndex = result.columns.indexOf(node.y[0]!);
  if (xIndex < 0 || valueIndex < 0) return { result, thinning: null };
  const slices = result.rows
    .map((row, r) => ({ r, value: chartNumber(row[valueIndex]) }))
    .filter((slice): slice is { r: number; value: number } => slice.value !== null);
  if (slices.length <= cap) return { result, thinning: null };
  const largest = [...slices].sort((a, b) => b.value - a.value).slice(0, cap - 1);
  const keptRows = new Set(largest.map((slice) => slice.r));
  const others = slices.filter((slice) => !keptRows.has(slice.r));
  const othersRow: unknown[] = result.columns.map(() => null);
  othersRow[xIndex] = `Others (${others.length})`;
  othersRow[valueIndex] = others.reduce((sum, slice) => sum + slice.value, 0);
  const drawn = [...result.rows.filter((_, r) => keptRows.has(r)), othersRow];
  return { result: { ...result, rows: drawn }, thinning: { from: slices.length, kept: largest.length } };
}

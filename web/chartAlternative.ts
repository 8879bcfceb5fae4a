/**
 * What a report chart is to a keyboard and a screen reader (issue #54: the SVG charts had no name
 * and could not be reached). The drawing is an image named by the node's title (or its kind), with
 * a sentence saying what it plots and where its values are; it is reached with Tab, and Enter (or
 * Space) on it opens its data table: the rows it plots, in a `<details>` under it that anyone can
 * open, each row drilling through as a click on its point does. The table is left out of print.
 */
import type { TableColumnDef } from "./types.ts";
import type { ChartNode } from "../src/reports/charts/chartOptions.ts";
import type { Texts } from "./i18n.ts";
import { renderTable } from "./table.ts";
import type { QuerySuccess } from "./types.ts";

const WORDS = {
  zh: {
    kinds: { line: "折线图", bar: "柱状图", area: "面积图", pie: "饼图", scatter: "散点图" },
    dataTable: "数据表",
    describe: (kind: string, plotted: string, rows: number) =>
      `${kind}：${plotted}，共 ${rows} 行数据。按回车键打开图下的数据表，查看每个数值。`,
    by: (values: string, x: string) => `按${x}显示${values}`,
  },
  en: {
    kinds: { line: "Line chart", bar: "Bar chart", area: "Area chart", pie: "Pie chart", scatter: "Scatter chart" },
    dataTable: "Data table",
    describe: (kind: string, plotted: string, rows: number) =>
      `${kind} of ${plotted}, ${rows} ${rows === 1 ? "row" : "rows"}. Press Enter to open the data table under it, which lists every value.`,
    by: (values: string, x: string) => `${values} by ${x}`,
  },
} as const;

let described = 0;

/** The columns the chart plots, as the table heads them: x (its axis name), a breakout, then y and y2 (their labels). */
function plottedColumns(node: ChartNode): TableColumnDef[] {
  const breakout = "series" in node && typeof node.series === "string" ? [node.series] : [];
  const label = (column: string) => node.labels?.[column] ?? column;
  return [
    { column: node.x, label: node.xLabel ?? node.x },
    ...breakout.map((column) => ({ column, label: column })),
    ...[...node.y, ...(node.y2 ?? [])].map((column) => ({ column, label: label(column) })),
  ];
}

/**
 * Names `box` (the chart's drawing) and makes it reachable; returns what goes under it: the
 * sentence that describes it and its data table. `onRow(rowIndex)` drills through from a row.
 */
export function chartAlternative(
  box: HTMLElement,
  node: ChartNode,
  result: QuerySuccess,
  texts: Texts,
  onRow?: (rowIndex: number) => void,
): HTMLElement {
  const words = WORDS[texts.lang];
  const id = `chart-description-${++described}`;
  const columns = plottedColumns(node);
  const values = columns.slice(1).map((column) => column.label!);
  const kind = words.kinds[node.chart];
  box.setAttribute("role", "img");
  box.setAttribute("aria-label", node.title || kind);
  box.setAttribute("aria-describedby", id);
  box.tabIndex = 0;

  const description = document.createElement("p");
  description.className = "visually-hidden";
  description.id = id;
  description.textContent = words.describe(kind, words.by(values.join(", "), columns[0]!.label!), result.rows.length);

  const details = document.createElement("details");
  details.className = "chart-data";
  const summary = document.createElement("summary");
  summary.textContent = words.dataTable;
  details.append(summary);
  let filled = false;
  // The table is built when first opened: a long result costs nothing until someone asks for it.
  details.addEventListener("toggle", () => {
    if (!details.open || filled) return;
    filled = true;
    details.append(renderTable(result, columns, texts, onRow));
  });
  box.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    details.open = true;
    summary.focus();
  });

  const under = document.createElement("div");
  under.className = "chart-alternative";
  under.append(description, details);
  return under;
}

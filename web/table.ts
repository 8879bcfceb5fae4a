import type { TableColumnDef } from "./types.ts";
import { cellText } from "../src/reports/charts/formatValue.ts";
import { conditionText, matchingRule, rulesOfColumn, type HighlightRuleDef } from "../src/reports/charts/highlight.ts";
import { columnCell, tableColumns } from "../src/reports/charts/tableColumns.ts";
import { ChartColumnError } from "../src/reports/charts/chartOptions.ts";
import type { Texts } from "./i18n.ts";
import type { QuerySuccess } from "./types.ts";

type Direction = "ascending" | "descending" | "none";

function compareValues(a: unknown, b: unknown, numeric: boolean): number {
  // Empty cells go last whichever way the column is sorted (handled by the caller).
  if (numeric) {
    const x = typeof a === "number" ? a : Number(a);
    const y = typeof b === "number" ? b : Number(b);
    if (Number.isFinite(x) && Number.isFinite(y)) return x - y;
  }
  return cellText(a).localeCompare(cellText(b), undefined, { numeric: true, sensitivity: "base" });
}

/**
 * Marks a highlighted value (a cell, a stat): its tone's class (colour from embed.css, no inline
 * style under the page's CSP), and cues that do not rely on colour: a glyph from the CSS whose
 * alternative text (`data-tone`) a screen reader announces after the value, and a tooltip naming
 * the tone and the rule. The element's text stays the value, so copying and sorting see the value.
 */
export function markTone(element: HTMLElement, rule: HighlightRuleDef | undefined, texts: Texts): void {
  if (!rule) return;
  const tone = texts.tones[rule.tone];
  element.classList.add("tone", `tone-${rule.tone}`);
  element.dataset.tone = tone;
  element.title = `${tone}: ${conditionText(rule, texts.toneWords)}`;
}

/**
 * A table of a query result: the node's `columns` (or all), sortable by clicking a header
 * (ascending, descending, as sent), the "truncated" notice, `onRow(rowIndex)` for drill-through,
 * and the node's `highlight` rules on the cells they match.
 */
export function renderTable(
  result: QuerySuccess,
  columns: ReadonlyArray<string | TableColumnDef> | undefined,
  texts: Texts,
  onRow?: (rowIndex: number) => void,
  highlight?: readonly HighlightRuleDef[],
): HTMLElement {
  const { shown, missing } = tableColumns(columns, result);
  if (missing.length > 0) throw new ChartColumnError("", missing[0], result.columns);
  const indexes = shown.map((view) => view.index);
  const numeric = shown.map((view) => view.numeric);
  const rules = shown.map((view) => rulesOfColumn(highlight, view.column));
  const alignClass = (c: number) =>
    shown[c]!.align === "right" ? "num" : shown[c]!.align === "center" ? "center" : null;

  const wrap = document.createElement("div");
  wrap.className = "table-wrap";
  const table = document.createElement("table");
  table.className = onRow ? "data drillable" : "data";
  const head = table.createTHead().insertRow();
  const body = table.createTBody();
  let sortColumn = -1;
  let direction: Direction = "none";

  const headers = shown.map((view, c) => {
    const th = document.createElement("th");
    th.scope = "col";
    th.setAttribute("aria-sort", "none");
    const align = alignClass(c);
    if (align) th.className = align;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.title = texts.sortHint;
    button.textContent = view.heading;
    button.addEventListener("click", () => {
      if (sortColumn !== c) {
        sortColumn = c;
        direction = "ascending";
      } else direction = direction === "ascending" ? "descending" : direction === "descending" ? "none" : "ascending";
      if (direction === "none") sortColumn = -1;
      headers.forEach((h, i) => h.setAttribute("aria-sort", i === sortColumn ? direction : "none"));
      fill();
    });
    th.append(button);
    head.append(th);
    return th;
  });

  function order(): number[] {
    const rows = result.rows.map((_, i) => i);
    if (sortColumn < 0) return rows;
    const index = indexes[sortColumn]!;
    const sign = direction === "descending" ? -1 : 1;
    return rows.sort((a, b) => {
      const x = result.rows[a]![index];
      const y = result.rows[b]![index];
      const xEmpty = x === null || x === undefined || x === "";
      const yEmpty = y === null || y === undefined || y === "";
      if (xEmpty || yEmpty) return xEmpty === yEmpty ? a - b : xEmpty ? 1 : -1;
      return sign * compareValues(x, y, numeric[sortColumn]!) || a - b;
    });
  }

  function fill(): void {
    const fragment = document.createDocumentFragment();
    if (result.rows.length === 0) {
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = Math.max(1, shown.length);
      td.className = "empty";
      td.textContent = texts.noData;
      tr.append(td);
      fragment.append(tr);
    }
    for (const r of order()) {
      const row = result.rows[r]!;
      const tr = document.createElement("tr");
      tr.dataset.row = String(r);
      if (onRow) {
        tr.tabIndex = 0;
        tr.title = texts.drillHint;
      }
      indexes.forEach((index, c) => {
        const td = document.createElement("td");
        const align = alignClass(c);
        if (align) td.className = align;
        // Formatted per column, in the page's language: one column's numbers with one number of decimals, months as months (issue #54).
        td.textContent = columnCell(shown[c]!, row[index], texts.lang);
        if (rules[c]!.length > 0) markTone(td, matchingRule(rules[c], row[index]), texts);
        tr.append(td);
      });
      fragment.append(tr);
    }
    body.replaceChildren(fragment);
  }
  fill();

  if (onRow) {
    const pick = (target: EventTarget | null) => {
      const tr = (target as HTMLElement | null)?.closest?.("tr[data-row]") as HTMLElement | null;
      if (tr) onRow(Number(tr.dataset.row));
    };
    body.addEventListener("click", (event) => pick(event.target));
    body.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        pick(event.target);
      }
    });
  }

  wrap.append(table);
  const out = document.createElement("div");
  out.className = "table";
  out.append(wrap);
  if (result.truncated) {
    const notice = document.createElement("p");
    notice.className = "notice truncated";
    notice.textContent = texts.truncated(result.rows.length);
    out.append(notice);
  }
  return out;
}

import { el } from "./dom.ts";

/**
 * The two ways a table of the staff pages fits a phone (web/staff.css, "Tables on a phone"):
 *
 * - `cardTable`: below 640 px each row becomes a card. Its row header (`<th scope="row">`) is the
 *   card's title, every other cell names its column itself (the head's text in `data-label`), and
 *   the actions are a row of buttons at the bottom. For lists a nurse reads on a phone: alerts,
 *   patients, versions, credentials, bulk jobs, a chart's results, the access log.
 * - `scrollingTable`: the table keeps its columns and scrolls sideways inside its own box, which
 *   can be reached with the keyboard and is named (WCAG 2.1.1; axe-core's
 *   `scrollable-region-focusable`). For tables read across, like a bulk job's rejected lines.
 *
 * Either way the page itself never scrolls sideways.
 */
export function cardTable(table: HTMLTableElement): HTMLElement {
  table.classList.add("cards");
  const names = headNames(table);
  for (const body of table.tBodies) for (const row of body.rows) labelCells(row, names);
  // Some browsers drop a table's semantics once its parts are displayed as blocks: the roles keep them.
  table.setAttribute("role", "table");
  for (const row of table.rows) giveRoles(row);
  for (const group of [table.tHead, ...table.tBodies]) group?.setAttribute("role", "rowgroup");
  return el("div", { class: "table-wrap" }, table);
}

/** A row added to a `cardTable` after it was made (a list updated in place): labelled and given roles as the others. */
export function cardRowAdded(table: HTMLTableElement, row: HTMLTableRowElement): void {
  labelCells(row, headNames(table));
  giveRoles(row);
}

const headNames = (table: HTMLTableElement) =>
  [...(table.tHead?.rows[0]?.cells ?? [])].map((cell) => cell.textContent ?? "");

function giveRoles(row: HTMLTableRowElement): void {
  row.setAttribute("role", "row");
  for (const cell of row.cells)
    cell.setAttribute(
      "role",
      cell.tagName === "TD" ? "cell" : cell.getAttribute("scope") === "row" ? "rowheader" : "columnheader",
    );
}

/** `table` in a box of its own that scrolls sideways when the screen is narrower than the table, reachable with Tab and named `label`. */
export function scrollingTable(label: string, table: HTMLTableElement): HTMLElement {
  return el("div", { class: "table-wrap scrolling", tabindex: "0", role: "region", "aria-label": label }, table);
}

/** Each data cell of `row` named by its column (colspans counted); the actions name themselves. */
function labelCells(row: HTMLTableRowElement, names: string[]): void {
  let column = 0;
  for (const cell of row.cells) {
    if (cell.tagName === "TD" && cell.colSpan === 1 && !cell.classList.contains("actions") && names[column])
      cell.dataset.label = names[column];
    column += cell.colSpan;
  }
}

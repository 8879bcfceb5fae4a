/**
 * Fields that name a column of a node's query (issue #54): a choice among the columns the query
 * returned in the last preview, instead of a name typed by hand; typed while they are not known
 * (a query not yet saved and previewed). A column the spec names that the result lacks stays
 * chosen, and says so, until the author picks another.
 */
import { el } from "../dom.ts";
import { listField, selectField, textField, type Binding } from "./formFields.ts";
import { renderPath, setAt, valueAt, type Segment } from "./specPaths.ts";

/** One column: a select of the result's columns (or none, when `none` words it), else a text field. */
export function columnField(
  b: Binding,
  path: Segment[],
  label: string,
  columns: readonly string[] | null,
  options: { none?: string; hint?: string; structural?: boolean } = {},
): HTMLElement {
  const words = b.texts.columnWords;
  if (!columns) return textField(b, path, label, { hint: options.hint ?? words.typeUntilSaved });
  const current = valueAt(b.spec, path);
  const choices = columns.map((column) => [column, column] as const);
  const missing = typeof current === "string" && current !== "" && !columns.includes(current);
  const field = selectField(b, path, label, missing ? [...choices, [current, words.notInResult(current)]] : choices, {
    empty: options.none ?? words.chooseColumn,
    hint: options.hint ?? words.fromPreview,
    structural: options.structural,
  });
  if (missing) field.querySelector("select")?.setAttribute("aria-invalid", "true");
  return field;
}

/** Several columns (a chart's y, y2): a box to tick for each of the result's, else a comma-separated list. */
export function columnsField(
  b: Binding,
  path: Segment[],
  label: string,
  columns: readonly string[] | null,
  hint: string,
): HTMLElement {
  const words = b.texts.columnWords;
  if (!columns) return listField(b, path, label, `${hint} ${words.typeUntilSaved}`);
  const found = valueAt(b.spec, path);
  const chosen = Array.isArray(found) ? found.map(String) : [];
  const offered = [...columns, ...chosen.filter((column) => !columns.includes(column))];
  const boxes = offered.map((column) => {
    const box = el("input", { type: "checkbox", value: column });
    box.checked = chosen.includes(column);
    box.addEventListener("change", () => {
      // The result's order, whatever the order of ticking: as the series are drawn.
      const ticked = boxes.filter(({ input }) => input.checked).map(({ input }) => input.value);
      setAt(b.spec, path, ticked.length ? ticked : undefined);
      b.changed();
    });
    const text = columns.includes(column) ? column : words.notInResult(column);
    return { input: box, label: el("label", { class: "column-choice" }, box, " ", text) };
  });
  return el(
    "fieldset",
    { class: "form-field column-choices", "data-path": renderPath(path) },
    el("legend", {}, label),
    el("div", { class: "column-choice-list" }, ...boxes.map(({ label: choice }) => choice)),
    el("p", { class: "hint" }, words.fromPreview),
  );
}

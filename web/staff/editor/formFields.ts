/**
 * The form view's controls, each bound to one place in the spec: a change writes the spec at
 * once (an emptied field removes its member, so the format's default applies), and every control
 * carries `data-path` (`nodes[2].query`) so a problem the service names can be shown beside it.
 */
import { el, type Child } from "../dom.ts";
import type { QueryProblem } from "../types.ts";
import type { EditorTexts } from "./editorTexts.ts";
import { renderPath, setAt, valueAt, type Segment } from "./specPaths.ts";
import { languageNotes, pageLang, perLanguage, withText } from "./localizedValue.ts";

export interface Binding {
  spec: Record<string, unknown>;
  texts: EditorTexts;
  /** A value changed; `structural` when the form must be drawn again (a list grew, a type changed). */
  changed(structural?: boolean): void;
  /** The failures of the saved draft's queries by place (`queries.monthly`), shown until that query is edited. */
  queryProblems?: { of(where: string): QueryProblem[]; edited(where: string): void };
  /** The columns of a report query's result in the last preview (issue #54); null when not known. */
  columns?: (query: string) => readonly string[] | null;
}

let ids = 0;
const nextId = () => `spec-field-${++ids}`;

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function labelled(label: string, control: Control, path: Segment[], hint?: string, wide = false): HTMLElement {
  control.id ||= nextId();
  control.dataset.path = renderPath(path);
  const hintId = `${control.id}-hint`;
  if (hint) control.setAttribute("aria-describedby", hintId);
  return el(
    "div",
    { class: wide ? "form-field wide" : "form-field" },
    el("label", { for: control.id }, label),
    control,
    hint ? el("p", { class: "hint", id: hintId }, hint) : null,
  );
}

/** Shows (or clears) a sentence under a control and marks it invalid. */
export function markInvalid(control: HTMLElement, message: string | null): void {
  const box = control.closest(".form-field") ?? control.parentElement;
  box?.querySelector(":scope > .field-error")?.remove();
  if (message === null) {
    control.removeAttribute("aria-invalid");
    return;
  }
  control.setAttribute("aria-invalid", "true");
  const errorId = `${control.id || nextId()}-error`;
  box?.append(el("p", { class: "field-error", id: errorId }, message));
  control.setAttribute("aria-errormessage", errorId);
}

const present = (value: unknown) => value !== undefined && value !== null;

export function textField(
  b: Binding,
  path: Segment[],
  label: string,
  options: { hint?: string; multiline?: boolean; required?: boolean; structural?: boolean } = {},
): HTMLElement {
  const current = valueAt(b.spec, path);
  const control = options.multiline ? el("textarea", { rows: 4 }) : el("input", { type: "text" });
  // A text given per language (issue #54) is edited in the page's language (localizedValue.ts).
  const words = perLanguage(current);
  const lang = pageLang();
  control.value = words ? (words[lang] ?? "") : present(current) ? String(current) : "";
  if (options.required) control.required = true;
  control.addEventListener(options.structural ? "change" : "input", () => {
    if (words) setAt(b.spec, path, withText(perLanguage(valueAt(b.spec, path)) ?? words, lang, control.value));
    else setAt(b.spec, path, control.value === "" && !options.required ? undefined : control.value);
    b.changed(options.structural);
  });
  if (!words) return labelled(label, control, path, options.hint, options.multiline);
  const notes = languageNotes(words, lang);
  const field = labelled(
    `${label}${notes.label}`,
    control,
    path,
    options.hint ? `${options.hint} ${notes.hint}` : notes.hint,
    options.multiline,
  );
  if (notes.other) field.querySelector(".hint")?.append(el("span", { lang: notes.other.lang }, notes.other.text));
  return field;
}

/** A number, or the member left out when empty; what is not a number is said, not written. */
export function numberField(
  b: Binding,
  path: Segment[],
  label: string,
  options: { hint?: string; min?: number; max?: number } = {},
): HTMLElement {
  const current = valueAt(b.spec, path);
  const control = el("input", { type: "number", step: "any", min: options.min, max: options.max });
  control.value = typeof current === "number" ? String(current) : "";
  control.addEventListener("input", () => {
    if (control.value !== "" && !Number.isFinite(control.valueAsNumber))
      return markInvalid(control, b.texts.invalidNumber);
    markInvalid(control, null);
    setAt(b.spec, path, control.value === "" ? undefined : control.valueAsNumber);
    b.changed();
  });
  return labelled(label, control, path, options.hint);
}

/** A choice among `choices` ([value, label]); `empty` adds a first choice that leaves the member out. */
export function selectField(
  b: Binding,
  path: Segment[],
  label: string,
  choices: ReadonlyArray<readonly [string, string]>,
  options: { empty?: string; structural?: boolean; hint?: string; after?: (value: string) => void } = {},
): HTMLElement {
  const current = valueAt(b.spec, path);
  const control = el("select", {});
  if (options.empty !== undefined) control.append(el("option", { value: "" }, options.empty));
  for (const [value, text] of choices) control.append(el("option", { value }, text));
  // A value the spec holds that is not among the choices (a query since renamed) stays visible.
  if (typeof current === "string" && current !== "" && !choices.some(([value]) => value === current))
    control.append(el("option", { value: current }, current));
  control.value = typeof current === "string" ? current : "";
  control.addEventListener("change", () => {
    setAt(b.spec, path, control.value === "" ? undefined : control.value);
    options.after?.(control.value);
    b.changed(options.structural);
  });
  return labelled(label, control, path, options.hint);
}

/**
 * A switch. With `defaultOn` its `off` is written (`export.xlsx: false`) and its `on` leaves the
 * member out; otherwise `on` writes true. `dropEmptyParent`: an object left empty goes too
 * (`export: {}` says nothing that leaving it out does not).
 */
export function checkField(
  b: Binding,
  path: Segment[],
  label: string,
  options: { defaultOn?: boolean; dropEmptyParent?: boolean } = {},
): HTMLElement {
  const current = valueAt(b.spec, path);
  const control = el("input", { type: "checkbox" });
  control.checked = options.defaultOn ? current !== false : current === true;
  control.id = nextId();
  control.dataset.path = renderPath(path);
  control.addEventListener("change", () => {
    setAt(b.spec, path, options.defaultOn ? (control.checked ? undefined : false) : control.checked ? true : undefined);
    const parent = path.slice(0, -1);
    const holder = valueAt(b.spec, parent);
    if (options.dropEmptyParent && typeof holder === "object" && holder !== null && Object.keys(holder).length === 0)
      setAt(b.spec, parent, undefined);
    b.changed();
  });
  return el("div", { class: "form-field check" }, control, el("label", { for: control.id }, label));
}

/** Column names separated by commas, written as an array (left out when empty). */
export function listField(b: Binding, path: Segment[], label: string, hint: string): HTMLElement {
  const current = valueAt(b.spec, path);
  const control = el("input", { type: "text" });
  control.value = Array.isArray(current) ? current.join(", ") : "";
  control.addEventListener("input", () => {
    const names = control.value
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    setAt(b.spec, path, names.length ? names : undefined);
    b.changed();
  });
  return labelled(label, control, path, hint);
}

/** Two numbers `[lower, upper]` (a highlight's between), left out when both are empty. */
export function pairField(b: Binding, path: Segment[], label: string): HTMLElement {
  const current = valueAt(b.spec, path);
  const ends = [0, 1].map((i) => {
    const input = el("input", {
      type: "number",
      step: "any",
      "aria-label": `${label} ${i === 0 ? b.texts.from : b.texts.to}`,
    });
    input.value = Array.isArray(current) && typeof current[i] === "number" ? String(current[i]) : "";
    return input;
  });
  const write = () => {
    const [lo, hi] = ends.map((input) => (input.value === "" ? null : input.valueAsNumber));
    setAt(b.spec, path, lo === null && hi === null ? undefined : [lo, hi]);
    b.changed();
  };
  for (const input of ends) input.addEventListener("input", write);
  const box = el(
    "div",
    { class: "form-field pair", "data-path": renderPath(path) },
    el("span", { class: "label" }, label),
    el("span", { class: "pair-inputs" }, ends[0]!, "–", ends[1]!),
  );
  return box;
}

/** A small button that changes the spec's structure (add, remove, move). */
export function structureButton(
  text: string,
  onClick: () => void,
  options: { label?: string; className?: string; disabled?: boolean } = {},
): HTMLButtonElement {
  return el(
    "button",
    {
      type: "button",
      class: options.className ?? "small",
      "aria-label": options.label ?? null,
      disabled: options.disabled ?? false,
      onclick: onClick,
    },
    text,
  );
}

export interface RowColumn {
  key: string;
  label: string;
  kind: "text" | "number" | "select" | "pair";
  choices?: ReadonlyArray<readonly [string, string]>;
}

/** How a rows field reads its member into rows of objects, and writes them back. */
export interface RowsCodec {
  read(value: unknown): Array<Record<string, unknown>>;
  write(rows: Array<Record<string, unknown>>): unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** An array of objects, left out when empty. */
export const objectRows: RowsCodec = {
  read: (value) => (Array.isArray(value) ? value.map((entry) => (isObject(entry) ? entry : {})) : []),
  write: (rows) => (rows.length ? rows : undefined),
};

/**
 * An array whose entries may be a bare string standing for `{ [member]: string }` (a table column
 * named by itself): written back as the string while nothing else is set, so opening a spec in the
 * form never changes it.
 */
export const stringOrObjectRows = (member: string): RowsCodec => ({
  read: (value) =>
    Array.isArray(value)
      ? value.map((entry) => (typeof entry === "string" ? { [member]: entry } : isObject(entry) ? entry : {}))
      : [],
  write: (rows) =>
    rows.length
      ? rows.map((row) => (Object.keys(row).length === 1 && typeof row[member] === "string" ? row[member] : row))
      : undefined,
});

/**
 * An object mapping names to texts (a node's drill args) as rows `{ [key]: name, [value]: text }`.
 * A row whose name is still empty is written too (as the key ""): left out, the form drawn again
 * from the spec dropped the row "Add" had just made. Saved so, the service names it for the
 * author to fill in or remove.
 */
export const mapRows = (key: string, value: string): RowsCodec => ({
  read: (map) => (isObject(map) ? Object.entries(map).map(([name, text]) => ({ [key]: name, [value]: text })) : []),
  write: (rows) => Object.fromEntries(rows.map((row) => [String(row[key] ?? ""), row[value] ?? ""])),
});

/**
 * A list of small objects as a table of rows (options, reference lines, highlight rules, columns,
 * drill args): one control per member, a remove button per row, an add button under it.
 * The rows are edited as a copy that each change writes back through the codec.
 */
export function rowsField(
  b: Binding,
  path: Segment[],
  label: string,
  columns: RowColumn[],
  adding: { text: string; blank: () => Record<string, unknown> },
  options: { hint?: string; codec?: RowsCodec } = {},
): HTMLElement {
  const codec = options.codec ?? objectRows;
  const rows = codec.read(valueAt(b.spec, path));
  const local: Binding = {
    spec: { rows },
    texts: b.texts,
    changed(structural) {
      setAt(b.spec, path, codec.write(rows));
      b.changed(structural);
    },
  };
  const here = renderPath(path);
  const body = el("tbody");
  rows.forEach((_, i) => {
    const cells = columns.map((column) => el("td", {}, rowControl(local, ["rows", i, column.key], column)));
    const remove = structureButton(
      "×",
      () => {
        rows.splice(i, 1);
        local.changed(true);
      },
      { label: `${b.texts.remove} ${i + 1}`, className: "small remove" },
    );
    body.append(el("tr", { "data-row": String(i) }, ...cells, el("td", {}, remove)));
  });
  // Problems name the spec's paths, not the copy's.
  for (const control of body.querySelectorAll<HTMLElement>("[data-path]"))
    control.dataset.path = control.dataset.path!.replace(/^rows/, here);
  const add = structureButton(adding.text, () => {
    rows.push(adding.blank());
    local.changed(true);
  });
  const hintId = options.hint ? nextId() : null;
  return el(
    "fieldset",
    { class: "rows-field", "data-path": here, "aria-describedby": hintId },
    el("legend", {}, label),
    hintId ? el("p", { class: "hint", id: hintId }, options.hint!) : null,
    rows.length
      ? el(
          "table",
          { class: "rows" },
          el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c.label)), el("td", {}))),
          body,
        )
      : null,
    add,
  );
}

/** A control inside a row: labelled by its column heading (aria-label), bound like the fields above. */
function rowControl(b: Binding, path: Segment[], column: RowColumn): Child {
  const field =
    column.kind === "pair"
      ? pairField(b, path, column.label)
      : column.kind === "number"
        ? numberField(b, path, column.label)
        : column.kind === "select"
          ? selectField(b, path, column.label, column.choices ?? [], { empty: b.texts.none })
          : textField(b, path, column.label);
  // In a table the heading labels the column; the field's own label is read by screen readers only.
  field.querySelector("label")?.classList.add("visually-hidden");
  field.querySelector(".label")?.classList.add("visually-hidden");
  return field;
}

/** A section of the form with its heading and an introduction. */
export function section(title: string, intro: string | null, path: Segment[] | null, ...content: Child[]): HTMLElement {
  const id = nextId();
  return el(
    "section",
    { class: "spec-section", "aria-labelledby": id, "data-path": path ? renderPath(path) : null },
    el("h2", { id }, title),
    intro ? el("p", { class: "hint" }, intro) : null,
    ...content,
  );
}

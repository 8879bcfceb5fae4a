/**
 * The filter bar, generated from the spec's params: date, dateRange (two date inputs, either may
 * be empty = an open end), number, numberRange, text, select / multiSelect (options listed in the
 * spec or read from the option query's result: the `value` column or the first, the `label`
 * column or the second), boolean. "Apply" hands the values to the page; printed, the bar is the
 * applied values as text.
 */
import { cellText, paramText } from "../src/reports/charts/formatValue.ts";
import type { Texts } from "./i18n.ts";
import { isSuccess, type ParamDef, type ParamValues, type Queries } from "./types.ts";

interface Option {
  value: string | number;
  label: string;
}

interface Control {
  param: ParamDef;
  element: HTMLElement;
  value(): unknown;
  setOptions?(options: Option[]): void;
  labels(): Map<string, string>;
  disable(): void;
}

let uid = 0;
const nextId = (name: string) => `f-${name}-${++uid}`;

function input(type: string, value: unknown, label: string): HTMLInputElement {
  const el = document.createElement("input");
  el.type = type;
  if (type === "number") el.step = "any";
  if (value !== null && value !== undefined) el.value = String(value);
  el.setAttribute("aria-label", label);
  return el;
}

const dateOrNull = (el: HTMLInputElement) => (el.value === "" ? null : el.value);
const numberOrNull = (el: HTMLInputElement) =>
  el.value === "" || !Number.isFinite(el.valueAsNumber) ? null : el.valueAsNumber;

function rangeControl(param: ParamDef, initial: unknown, type: "date" | "number", texts: Texts): Control {
  const [from, to] = Array.isArray(initial) ? initial : [null, null];
  const wrap = document.createElement("span");
  wrap.className = "range";
  const a = input(type, from, `${param.label} – ${texts.from}`);
  const b = input(type, to, `${param.label} – ${texts.to}`);
  a.dataset.end = "from";
  b.dataset.end = "to";
  const dash = document.createElement("span");
  dash.className = "dash";
  dash.textContent = "–";
  wrap.append(a, dash, b);
  const read = type === "date" ? dateOrNull : numberOrNull;
  return {
    param,
    element: wrap,
    value: () => {
      const range = [read(a), read(b)];
      return range[0] === null && range[1] === null ? null : range;
    },
    labels: () => new Map(),
    disable: () => {
      a.disabled = true;
      b.disabled = true;
    },
  };
}

function selectControl(param: ParamDef, initial: unknown, options: Option[] | null, texts: Texts): Control {
  const select = document.createElement("select");
  select.setAttribute("aria-label", param.label);
  let current: Option[] = [];
  let chosen: unknown = initial ?? null;
  const fill = (list: Option[]) => {
    current = list;
    const entries: HTMLOptionElement[] = [];
    if (!param.required || chosen === null) entries.push(new Option(texts.all, ""));
    let found = false;
    list.forEach((option, i) => {
      const selected = chosen !== null && String(option.value) === String(chosen);
      found ||= selected;
      entries.push(new Option(option.label, String(i), selected, selected));
    });
    // A value that is not (yet) among the options stays chosen.
    if (chosen !== null && !found) {
      current = [...list, { value: chosen as string | number, label: cellText(chosen) }];
      entries.push(new Option(cellText(chosen), String(list.length), true, true));
    }
    select.replaceChildren(...entries);
  };
  fill(options ?? []);
  select.addEventListener("change", () => {
    chosen = select.value === "" ? null : (current[Number(select.value)]?.value ?? null);
  });
  return {
    param,
    element: select,
    value: () => chosen,
    setOptions: fill,
    labels: () => new Map(current.map((o) => [String(o.value), o.label])),
    disable: () => {
      select.disabled = true;
    },
  };
}

function multiSelectControl(param: ParamDef, initial: unknown, options: Option[] | null, texts: Texts): Control {
  const details = document.createElement("details");
  details.className = "multi";
  const summary = document.createElement("summary");
  summary.setAttribute("aria-label", param.label);
  const list = document.createElement("div");
  list.className = "multi-list";
  list.setAttribute("role", "group");
  details.append(summary, list);
  const chosen = new Map<string, string | number>(
    (Array.isArray(initial) ? initial : []).map((v) => [String(v), v as string | number]),
  );
  let current: Option[] = [];
  const labelOf = (key: string) => current.find((o) => String(o.value) === key)?.label ?? key;
  const caption = () => {
    const keys = [...chosen.keys()];
    summary.textContent =
      keys.length === 0 ? texts.all : keys.length <= 2 ? keys.map(labelOf).join(", ") : texts.selected(keys.length);
  };
  const fill = (options: Option[] | null) => {
    current = options ?? [];
    // Chosen values the list does not hold (yet) stay chosen and listed.
    for (const [key, value] of chosen)
      if (!current.some((o) => String(o.value) === key)) current = [...current, { value, label: cellText(value) }];
    if (options === null && current.length === 0) {
      const note = document.createElement("p");
      note.className = "multi-note";
      note.textContent = texts.loadingOptions;
      list.replaceChildren(note);
    } else {
      list.replaceChildren(
        ...current.map((option) => {
          const label = document.createElement("label");
          const box = document.createElement("input");
          box.type = "checkbox";
          box.value = String(option.value);
          box.checked = chosen.has(String(option.value));
          box.addEventListener("change", () => {
            if (box.checked) chosen.set(String(option.value), option.value);
            else chosen.delete(String(option.value));
            caption();
          });
          const text = document.createElement("span");
          text.textContent = option.label;
          label.append(box, text);
          return label;
        }),
      );
    }
    caption();
  };
  fill(options);
  // A click outside closes the list.
  document.addEventListener("click", (event) => {
    if (details.open && !details.contains(event.target as Node)) details.open = false;
  });
  return {
    param,
    element: details,
    value: () => (chosen.size === 0 ? null : [...chosen.values()]),
    setOptions: fill,
    labels: () => new Map(current.map((o) => [String(o.value), o.label])),
    disable: () => {
      details.classList.add("disabled");
      summary.tabIndex = -1;
      details.addEventListener("toggle", () => (details.open = false));
      for (const box of list.querySelectorAll("input")) box.disabled = true;
    },
  };
}

function booleanControl(param: ParamDef, initial: unknown, texts: Texts): Control {
  const select = document.createElement("select");
  select.setAttribute("aria-label", param.label);
  const entries = [
    ...(param.required && initial !== null ? [] : [new Option(texts.all, "")]),
    new Option(texts.yes, "true"),
    new Option(texts.no, "false"),
  ];
  select.replaceChildren(...entries);
  select.value = initial === true ? "true" : initial === false ? "false" : "";
  return {
    param,
    element: select,
    value: () => (select.value === "" ? null : select.value === "true"),
    labels: () => new Map(),
    disable: () => {
      select.disabled = true;
    },
  };
}

function controlFor(param: ParamDef, initial: unknown, texts: Texts): Control {
  switch (param.type) {
    case "dateRange":
      return rangeControl(param, initial, "date", texts);
    case "numberRange":
      return rangeControl(param, initial, "number", texts);
    case "select":
    case "multiSelect": {
      const listed = Array.isArray(param.options)
        ? param.options.map((o) => ({ value: o.value, label: o.label || String(o.value) }))
        : null;
      return param.type === "select"
        ? selectControl(param, initial, listed ?? [], texts)
        : multiSelectControl(param, initial, listed, texts);
    }
    case "boolean":
      return booleanControl(param, initial, texts);
    default: {
      const type = param.type === "date" ? "date" : param.type === "number" ? "number" : "text";
      const el = input(type, initial, param.label);
      if (type === "text") el.maxLength = 1000;
      const read =
        type === "date"
          ? dateOrNull
          : type === "number"
            ? numberOrNull
            : (e: HTMLInputElement) => (e.value === "" ? null : e.value);
      return {
        param,
        element: el,
        value: () => read(el),
        labels: () => new Map(),
        disable: () => {
          el.disabled = true;
        },
      };
    }
  }
}

/** Options of a select param from its option query: `value` (or the first column), `label` (or the second). */
export function optionsFromResult(queries: Queries, query: string): Option[] | null {
  const result = queries[query];
  if (!isSuccess(result)) return null;
  const valueIndex = result.columns.includes("value") ? result.columns.indexOf("value") : 0;
  const labelIndex = result.columns.includes("label")
    ? result.columns.indexOf("label")
    : result.columns.length > 1
      ? valueIndex === 0
        ? 1
        : 0
      : valueIndex;
  return result.rows
    .filter((row) => row[valueIndex] !== null && row[valueIndex] !== undefined)
    .map((row) => {
      const raw = row[valueIndex];
      const value = typeof raw === "number" || typeof raw === "string" ? raw : cellText(raw);
      return { value, label: cellText(row[labelIndex]) || String(value) };
    });
}

export interface FilterBar {
  element: HTMLElement;
  values(): ParamValues;
  /** Fills option lists from a data call's results (option queries are part of it). */
  setOptions(queries: Queries): void;
  /** The applied values, printed as text in place of the inputs. */
  showApplied(values: ParamValues): void;
  error(message: string | null): void;
  busy(busy: boolean): void;
  /** Snapshot versions: the values are fixed. */
  freeze(note: string): void;
}

export function createFilterBar(
  params: readonly ParamDef[],
  initial: ParamValues,
  texts: Texts,
  onApply: (values: ParamValues) => void,
): FilterBar {
  const bar = document.createElement("div");
  bar.className = "filters";
  bar.setAttribute("role", "search");
  const controls = params.map((param) => controlFor(param, initial[param.name] ?? null, texts));

  const fields = document.createElement("div");
  fields.className = "filter-controls";
  for (const control of controls) {
    const field = document.createElement("div");
    field.className = `field field-${control.param.type}`;
    field.dataset.param = control.param.name;
    const label = document.createElement("label");
    label.className = "field-label";
    label.textContent = control.param.label;
    const target =
      control.element instanceof HTMLInputElement || control.element instanceof HTMLSelectElement
        ? control.element
        : control.element.querySelector("input, summary");
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) {
      target.id ||= nextId(control.param.name);
      label.htmlFor = target.id;
    } else if (target) {
      // A <summary> cannot be the target of <label for>: name it by the label instead, then by what it
      // shows (issue #54: axe-core's label-content-name-mismatch, the chosen values being visible text).
      label.id = nextId(control.param.name);
      target.id ||= nextId(`${control.param.name}-chosen`);
      target.removeAttribute("aria-label");
      target.setAttribute("aria-labelledby", `${label.id} ${target.id}`);
    }
    field.append(label, control.element);
    fields.append(field);
  }
  const apply = document.createElement("button");
  apply.type = "button";
  apply.className = "apply primary";
  apply.textContent = texts.apply;
  const run = () => onApply(Object.fromEntries(controls.map((c) => [c.param.name, c.value()])));
  apply.addEventListener("click", run);
  // No <form>: a sandboxed frame without allow-forms blocks submitting one; Enter applies too.
  fields.addEventListener("keydown", (event) => {
    if (
      event.key === "Enter" &&
      (event.target as HTMLElement).tagName === "INPUT" &&
      (event.target as HTMLInputElement).type !== "checkbox"
    ) {
      event.preventDefault();
      run();
    }
  });
  if (controls.length > 0) fields.append(apply);

  const message = document.createElement("p");
  message.className = "filter-error";
  message.setAttribute("role", "alert");
  message.hidden = true;

  const note = document.createElement("p");
  note.className = "filter-note";
  note.hidden = true;

  const applied = document.createElement("dl");
  applied.className = "filter-summary";
  applied.setAttribute("aria-label", texts.filters);

  bar.append(fields, note, message, applied);
  if (controls.length === 0) bar.hidden = true;

  const allText = (param: ParamDef, value: unknown, labels: Map<string, string>) => {
    const empty =
      value === null ||
      value === undefined ||
      (Array.isArray(value) && (value.length === 0 || value.every((v) => v === null)));
    if (empty) return texts.all;
    if (param.type === "boolean") return value === true ? texts.yes : texts.no;
    return paramText(param, value, labels);
  };

  return {
    element: bar,
    values: () => Object.fromEntries(controls.map((c) => [c.param.name, c.value()])),
    setOptions(queries) {
      for (const control of controls) {
        const options =
          control.param.type === "select" || control.param.type === "multiSelect" ? control.param.options : undefined;
        if (control.setOptions && options && !Array.isArray(options))
          control.setOptions(optionsFromResult(queries, options.query) ?? []);
      }
    },
    showApplied(values) {
      applied.replaceChildren(
        ...controls.map((control) => {
          const pair = document.createElement("div");
          pair.dataset.param = control.param.name;
          const dt = document.createElement("dt");
          dt.textContent = control.param.label;
          const dd = document.createElement("dd");
          dd.textContent = allText(control.param, values[control.param.name] ?? null, control.labels());
          pair.append(dt, dd);
          return pair;
        }),
      );
    },
    error(text) {
      message.hidden = text === null;
      message.textContent = text ?? "";
    },
    busy(busy) {
      apply.disabled = busy;
      bar.setAttribute("aria-busy", busy ? "true" : "false");
    },
    freeze(text) {
      for (const control of controls) control.disable();
      apply.hidden = true;
      note.hidden = false;
      note.textContent = text;
    },
  };
}

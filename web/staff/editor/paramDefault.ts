/**
 * A filter's default value, entered the way its type reads (a date picker, two ends of a range,
 * a list of choices) and written in the JSON shape the spec format takes; empty is `null`,
 * "no restriction".
 */
import { el } from "../dom.ts";
import type { Binding } from "./formFields.ts";
import { renderPath, setAt, valueAt, type Segment } from "./specPaths.ts";

type Json = Record<string, unknown>;

export function paramDefaultField(b: Binding, paramPath: Segment[]): HTMLElement {
  const { texts } = b;
  const param = valueAt(b.spec, paramPath) as Json;
  const path = [...paramPath, "default"];
  const current = param.default ?? null;
  const write = (value: unknown) => {
    setAt(b.spec, path, value);
    b.changed();
  };
  const box = (...controls: Array<Node | string>) =>
    el(
      "div",
      { class: "form-field", "data-path": renderPath(path), role: "group", "aria-label": texts.defaultValue },
      el("span", { class: "label" }, texts.defaultValue),
      el("span", { class: "default-inputs" }, ...controls),
      el("p", { class: "hint" }, texts.defaultHint),
    );

  const input = (type: string, value: unknown, label: string) => {
    const control = el("input", { type, step: type === "number" ? "any" : null, "aria-label": label });
    control.value = value === null || value === undefined ? "" : String(value);
    return control;
  };
  const read = (control: HTMLInputElement) =>
    control.value === "" ? null : control.type === "number" ? control.valueAsNumber : control.value;

  switch (param.type) {
    case "dateRange":
    case "numberRange": {
      const type = param.type === "dateRange" ? "date" : "number";
      const ends = Array.isArray(current) ? current : [null, null];
      const [from, to] = [
        input(type, ends[0], `${texts.defaultValue} ${texts.from}`),
        input(type, ends[1], `${texts.defaultValue} ${texts.to}`),
      ];
      const change = () => {
        const value = [read(from), read(to)];
        write(value.every((end) => end === null) ? null : value);
      };
      from.addEventListener("input", change);
      to.addEventListener("input", change);
      return box(from, "–", to);
    }
    case "boolean": {
      const control = el(
        "select",
        { "aria-label": texts.defaultValue },
        el("option", { value: "" }, texts.noValue),
        el("option", { value: "true" }, texts.choices.booleans.true),
        el("option", { value: "false" }, texts.choices.booleans.false),
      );
      control.value = current === null ? "" : String(current);
      control.addEventListener("change", () => write(control.value === "" ? null : control.value === "true"));
      return box(control);
    }
    case "multiSelect": {
      const control = input("text", Array.isArray(current) ? current.join(", ") : "", texts.defaultValue);
      control.addEventListener("input", () => {
        const values = control.value
          .split(",")
          .map((value) => value.trim())
          .filter(Boolean);
        write(values.length ? values.map(optionValue(param)) : null);
      });
      return box(control);
    }
    case "select": {
      const control = input("text", current, texts.defaultValue);
      control.addEventListener("input", () => write(control.value === "" ? null : optionValue(param)(control.value)));
      return box(control);
    }
    default: {
      const control = input(
        param.type === "date" ? "date" : param.type === "number" ? "number" : "text",
        current,
        texts.defaultValue,
      );
      control.addEventListener("input", () => write(read(control)));
      return box(control);
    }
  }
}

/** A typed choice keeps the type of the option it names (a ward number stays a number). */
function optionValue(param: Json): (text: string) => string | number {
  const listed = Array.isArray(param.options) ? (param.options as Json[]).map((option) => option.value) : [];
  return (text) => (listed.find((value) => String(value) === text) as string | number | undefined) ?? text;
}

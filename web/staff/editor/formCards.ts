/**
 * The pieces the form view's sections are built from: a card per filter, query, node or drill
 * (its heading, its tools, its fields), the tools that move or remove it, the field that renames a
 * named member, and a free name for a new one.
 */
import { el } from "../dom.ts";
import { structureButton, type Binding } from "./formFields.ts";
import { renderPath, setAt, valueAt, type Segment } from "./specPaths.ts";

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
/** Choices whose labels are their values (the format's own words). */
export const same = (values: readonly string[]) => values.map((value) => [value, value] as const);
/** The names of an object's members (a layer's queries, the drills); none when it is not an object. */
export const memberNames = (members: unknown) => (isObject(members) ? Object.keys(members) : []);

/** One member of the spec as a card; `data-path` lets a problem the service names find it. */
export const card = (path: Segment[], heading: string, tools: Node, ...content: Node[]) =>
  el(
    "div",
    { class: "spec-card", "data-path": renderPath(path) },
    el("div", { class: "spec-card-head" }, el("h3", {}, heading), tools),
    el("div", { class: "spec-card-body" }, ...content),
  );

/** Up, down and remove for the entry `i` of an array (filters, nodes), where order matters. */
export function moveButtons(b: Binding, list: unknown[], i: number, what: string): HTMLElement {
  const { texts } = b;
  return el(
    "span",
    { class: "card-tools" },
    structureButton("↑", () => (list.splice(i - 1, 0, ...list.splice(i, 1)), b.changed(true)), {
      label: `${texts.moveUp}: ${what}`,
      disabled: i === 0,
    }),
    structureButton("↓", () => (list.splice(i + 1, 0, ...list.splice(i, 1)), b.changed(true)), {
      label: `${texts.moveDown}: ${what}`,
      disabled: i === list.length - 1,
    }),
    structureButton(texts.remove, () => (list.splice(i, 1), b.changed(true)), {
      label: texts.removeWhat(what),
      className: "small remove",
    }),
  );
}

/** Remove for a named member of an object (a query, a drill), where the name is the place. */
export function removeTool(b: Binding, path: Segment[], what: string): HTMLElement {
  const remove = structureButton(b.texts.remove, () => (setAt(b.spec, path, undefined), b.changed(true)), {
    label: b.texts.removeWhat(what),
    className: "small remove",
  });
  return el("span", { class: "card-tools" }, remove);
}

/**
 * The name of a member of the object at `objectPath` (a query, a drill): a new name that is free
 * renames it in place, keeping its place among the others, and `renamed` follows it where it is named.
 */
export function keyField(
  b: Binding,
  objectPath: Segment[],
  key: string,
  label: string,
  renamed: (wanted: string) => void,
): HTMLElement {
  const members = valueAt(b.spec, objectPath) as Json;
  const input = el("input", {
    type: "text",
    value: key,
    required: true,
    "data-path": renderPath([...objectPath, key]),
    id: `name-of-${renderPath([...objectPath, key])}`,
  });
  input.addEventListener("change", () => {
    const wanted = input.value.trim();
    if (!wanted || wanted === key || wanted in members) return void (input.value = key);
    setAt(
      b.spec,
      objectPath,
      Object.fromEntries(Object.entries(members).map(([name, value]) => [name === key ? wanted : name, value])),
    );
    renamed(wanted);
    b.changed(true);
  });
  return el("div", { class: "form-field" }, el("label", { for: input.id }, label), input);
}

/**
 * `query1`, `query2`, … the first not taken. Numbered from the first: a card's heading puts its
 * kind before its name ("Query query1", "查询 query1"), and a bare "query" read "Query query".
 */
export function freeName(stem: string, taken: readonly string[]): string {
  for (let n = 1; ; n++) {
    const name = `${stem}${n}`;
    if (!taken.includes(name)) return name;
  }
}

/**
 * The form view of a spec: basics, filters, queries (a SQL editor each), content nodes and
 * drill-throughs, every member of the format reachable without writing JSON. The form edits the
 * spec object in place; members it has no control for are kept as they are.
 */
import { CHART_KINDS, COLUMN_ALIGNS, DRILL_ARG_TYPES, HIGHLIGHT_TONES, NODE_TYPES, PARAM_TYPES } from "../../../commands/reports/spec/specVocabulary.ts";
import { el } from "../dom.ts";
import { sqlEditor } from "./codeEditors.ts";
import {
  checkField,
  listField,
  mapRows,
  numberField,
  rowsField,
  section,
  selectField,
  stringOrObjectRows,
  structureButton,
  textField,
  type Binding,
  type RowColumn,
} from "./formFields.ts";
import { paramDefaultField } from "./paramDefault.ts";
import { renderPath, setAt, valueAt, type Segment } from "./specPaths.ts";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const same = (values: readonly string[]) => values.map((value) => [value, value] as const);

export interface SpecForm {
  element: HTMLElement;
  /** Releases the SQL editors. */
  destroy(): void;
}

export function specForm(b: Binding): SpecForm {
  const editors: Array<{ destroy(): void }> = [];
  const spec = b.spec;
  const { texts } = b;
  const queryNames = (queries: unknown) => (isObject(queries) ? Object.keys(queries) : []);
  const drillNames = () => queryNames(spec.drills);

  const moveButtons = (list: unknown[], i: number, what: string) =>
    el(
      "span",
      { class: "card-tools" },
      structureButton("↑", () => (list.splice(i - 1, 0, ...list.splice(i, 1)), b.changed(true)), { label: `${texts.moveUp}: ${what}`, disabled: i === 0 }),
      structureButton("↓", () => (list.splice(i + 1, 0, ...list.splice(i, 1)), b.changed(true)), { label: `${texts.moveDown}: ${what}`, disabled: i === list.length - 1 }),
      structureButton(texts.remove, () => (list.splice(i, 1), b.changed(true)), { label: texts.removeWhat(what), className: "small remove" }),
    );

  const card = (path: Segment[], heading: string, tools: Node, ...content: Node[]) =>
    el("div", { class: "spec-card", "data-path": renderPath(path) }, el("div", { class: "spec-card-head" }, el("h3", {}, heading), tools), el("div", { class: "spec-card-body" }, ...content));

  // --- basics ------------------------------------------------------------------------------
  const basics = section(
    texts.basics,
    null,
    null,
    textField(b, ["title"], texts.title, { required: true }),
    textField(b, ["description"], texts.description, { multiline: true, hint: texts.descriptionHint }),
    checkField(b, ["export", "xlsx"], texts.exportXlsx, { defaultOn: true, dropEmptyParent: true }),
    checkField(b, ["export", "docx"], texts.exportDocx, { defaultOn: true, dropEmptyParent: true }),
  );

  // --- params ------------------------------------------------------------------------------
  const params = Array.isArray(spec.params) ? (spec.params as Json[]) : [];
  const paramCards = params.map((param, i) => {
    const path: Segment[] = ["params", i];
    const name = String(param.name ?? "");
    const fields: Node[] = [
      textField(b, [...path, "name"], texts.name, { required: true, structural: true }),
      textField(b, [...path, "label"], texts.label),
      // A default of the old type would be refused under the new one.
      selectField(b, [...path, "type"], texts.type, same(PARAM_TYPES), { structural: true, after: (type) => retypeParam(param, type) }),
      checkField(b, [...path, "required"], texts.required),
      paramDefaultField(b, path),
    ];
    if (param.type === "select" || param.type === "multiSelect") fields.push(optionsField(path, param));
    return card(path, texts.param(name), moveButtons(params, i, texts.param(name)), ...fields);
  });
  const paramsSection = section(
    texts.params,
    texts.paramsIntro,
    ["params"],
    ...paramCards,
    structureButton(texts.addParam, () => {
      const name = freeName("param", params.map((p) => String(p.name)));
      setAt(spec, ["params"], [...params, { name, label: name, type: "text", default: null }]);
      b.changed(true);
    }),
  );

  function optionsField(path: Segment[], param: Json): HTMLElement {
    const fromQuery = isObject(param.options);
    const source = el("select", { "data-path": renderPath([...path, "options"]) }, el("option", { value: "list" }, texts.optionsListed), el("option", { value: "query" }, texts.optionsQuery));
    source.value = fromQuery ? "query" : "list";
    source.id = `options-source-${renderPath(path)}`;
    source.addEventListener("change", () => {
      setAt(spec, [...path, "options"], source.value === "query" ? { query: queryNames(spec.queries)[0] ?? "" } : []);
      b.changed(true);
    });
    const detail = fromQuery
      ? selectField(b, [...path, "options", "query"], texts.optionsQuery, same(queryNames(spec.queries)))
      : rowsField(b, [...path, "options"], texts.options, [{ key: "value", label: texts.value, kind: "text" }, { key: "label", label: texts.label, kind: "text" }], { text: texts.addOption, blank: () => ({ value: "", label: "" }) });
    return el("div", { class: "options" }, el("div", { class: "form-field" }, el("label", { for: source.id }, texts.optionsFromQuery), source), detail);
  }

  /**
   * The name of a member of the object at `objectPath` (a query, a drill): a new name that is free
   * renames it in place, keeping its place among the others, and `renamed` follows it where it is named.
   */
  function keyField(objectPath: Segment[], key: string, label: string, renamed: (wanted: string) => void): HTMLElement {
    const members = valueAt(spec, objectPath) as Json;
    const input = el("input", { type: "text", value: key, required: true, "data-path": renderPath([...objectPath, key]), id: `name-of-${renderPath([...objectPath, key])}` });
    input.addEventListener("change", () => {
      const wanted = input.value.trim();
      if (!wanted || wanted === key || wanted in members) return void (input.value = key);
      setAt(spec, objectPath, Object.fromEntries(Object.entries(members).map(([name, value]) => [name === key ? wanted : name, value])));
      renamed(wanted);
      b.changed(true);
    });
    return el("div", { class: "form-field" }, el("label", { for: input.id }, label), input);
  }

  // --- queries -----------------------------------------------------------------------------
  function queriesSection(path: Segment[]): HTMLElement[] {
    const queries = isObject(valueAt(spec, path)) ? (valueAt(spec, path) as Json) : {};
    const cards = Object.entries(queries).map(([name, query]) => {
      const queryPath = [...path, name];
      const rename = keyField(path, name, texts.queryName, (wanted) => renameQueryUses(path, name, wanted));
      const sqlPath = [...queryPath, "sql"];
      const editor = sqlEditor(String(isObject(query) ? (query.sql ?? "") : ""), texts.sqlOf(name), renderPath(sqlPath), (text) => {
        setAt(spec, sqlPath, text);
        b.changed();
      });
      editors.push(editor);
      const tools = el(
        "span",
        { class: "card-tools" },
        structureButton(texts.remove, () => (setAt(spec, queryPath, undefined), b.changed(true)), { label: texts.removeWhat(texts.query(name)), className: "small remove" }),
      );
      return card(
        queryPath,
        texts.query(name),
        tools,
        rename,
        el("div", { class: "form-field wide sql-field", "data-path": renderPath(sqlPath) }, el("span", { class: "label" }, texts.sqlOf(name)), editor.dom),
      );
    });
    const add = structureButton(texts.addQuery, () => {
      setAt(spec, [...path, freeName("query", Object.keys(queries))], { sql: "select 1 as value" });
      b.changed(true);
    });
    return [...cards, add];
  }

  /** A renamed query is renamed where the same layer's nodes and option lists name it. */
  function renameQueryUses(queriesPath: Segment[], from: string, to: string): void {
    const layer = queriesPath.slice(0, -1);
    const nodes = valueAt(spec, [...layer, "nodes"]);
    if (Array.isArray(nodes)) for (const node of nodes) if (isObject(node) && node.query === from) node.query = to;
    if (layer.length === 0 && Array.isArray(spec.params)) for (const param of spec.params) if (isObject(param) && isObject(param.options) && param.options.query === from) param.options.query = to;
  }

  // --- nodes -------------------------------------------------------------------------------
  const highlightColumns = (withColumn: boolean): RowColumn[] => [
    ...(withColumn ? [{ key: "column", label: texts.column, kind: "text" as const }] : []),
    { key: "below", label: texts.below, kind: "number" },
    { key: "above", label: texts.above, kind: "number" },
    { key: "between", label: texts.between, kind: "pair" },
    { key: "tone", label: texts.tone, kind: "select", choices: HIGHLIGHT_TONES.map((tone) => [tone, texts.tones[tone] ?? tone] as const) },
  ];

  function nodeFields(path: Segment[], node: Json, layerQueries: string[]): Node[] {
    const query = () => selectField(b, [...path, "query"], texts.queryOfNode, same(layerQueries), { empty: texts.none });
    const common: Node[] = [
      textField(b, [...path, "id"], texts.nodeId, { required: true }),
      selectField(b, [...path, "type"], texts.nodeType, same(NODE_TYPES), { structural: true, after: (type) => retypeNode(node, type) }),
      numberField(b, [...path, "width"], texts.width, { hint: texts.widthHint, min: 1, max: 12 }),
    ];
    if (node.type === "text") return [...common, textField(b, [...path, "markdown"], texts.markdown, { multiline: true })];
    const titled = [...common, textField(b, [...path, "title"], texts.title)];
    const drill = drillField(path, node);
    if (node.type === "stat") {
      return [
        ...titled,
        query(),
        textField(b, [...path, "column"], texts.column),
        textField(b, [...path, "format"], texts.format, { hint: texts.statFormatHint }),
        textField(b, [...path, "unit"], texts.unit),
        rowsField(b, [...path, "highlight"], texts.highlight, highlightColumns(false), { text: texts.addRule, blank: () => ({ below: 0, tone: "danger" }) }, { hint: texts.highlightHint }),
      ];
    }
    if (node.type === "table") {
      const columnRows: RowColumn[] = [
        { key: "column", label: texts.column, kind: "text" },
        { key: "label", label: texts.label, kind: "text" },
        { key: "unit", label: texts.unit, kind: "text" },
        { key: "format", label: texts.format, kind: "text" },
        { key: "align", label: texts.align, kind: "select", choices: same(COLUMN_ALIGNS) },
      ];
      return [
        ...titled,
        query(),
        rowsField(b, [...path, "columns"], texts.columns, columnRows, { text: texts.addColumn, blank: () => ({ column: "" }) }, { hint: `${texts.columnsHint} ${texts.formatHint}`, codec: stringOrObjectRows("column") }),
        rowsField(b, [...path, "highlight"], texts.highlight, highlightColumns(true), { text: texts.addRule, blank: () => ({ column: "", below: 0, tone: "danger" }) }, { hint: texts.highlightHint }),
        drill,
      ];
    }
    return [
      ...titled,
      selectField(b, [...path, "chart"], texts.chartKind, same(CHART_KINDS)),
      query(),
      textField(b, [...path, "x"], texts.x),
      listField(b, [...path, "y"], texts.y, texts.listHint),
      listField(b, [...path, "y2"], texts.y2, texts.listHint),
      textField(b, [...path, "xLabel"], texts.xLabel),
      textField(b, [...path, "yLabel"], texts.yLabel),
      textField(b, [...path, "y2Label"], texts.y2Label),
      checkField(b, [...path, "stacked"], texts.stacked),
      rowsField(b, [...path, "refLines"], texts.refLines, [{ key: "value", label: texts.value, kind: "number" }, { key: "label", label: texts.label, kind: "text" }], { text: texts.addRefLine, blank: () => ({ value: 0 }) }),
      drill,
    ];
  }

  function drillField(path: Segment[], node: Json): HTMLElement {
    const drillPath = [...path, "drill"];
    const target = el("select", { "data-path": renderPath([...drillPath, "target"]), id: `drill-target-${renderPath(path)}` }, el("option", { value: "" }, texts.drillNone), ...drillNames().map((name) => el("option", { value: name }, name)));
    const current = isObject(node.drill) ? String(node.drill.target ?? "") : "";
    if (current && !drillNames().includes(current)) target.append(el("option", { value: current }, current));
    target.value = current;
    target.addEventListener("change", () => {
      setAt(spec, drillPath, target.value ? { target: target.value, args: isObject(node.drill) && isObject(node.drill.args) ? node.drill.args : {} } : undefined);
      b.changed(true);
    });
    return el(
      "fieldset",
      { class: "drill-field", "data-path": renderPath(drillPath) },
      el("legend", {}, texts.drill),
      el("div", { class: "form-field" }, el("label", { for: target.id }, texts.drillTarget), target),
      current
        ? rowsField(b, [...drillPath, "args"], texts.drillArgs, [{ key: "arg", label: texts.arg, kind: "text" }, { key: "column", label: texts.column, kind: "text" }], { text: texts.addArg, blank: () => ({ arg: "", column: "" }) }, { codec: mapRows("arg", "column") })
        : null,
    );
  }

  function nodesSection(path: Segment[], layerQueries: string[]): Node[] {
    const nodes = Array.isArray(valueAt(spec, path)) ? (valueAt(spec, path) as Json[]) : [];
    const cards = nodes.map((node, i) => {
      const nodePath = [...path, i];
      const what = texts.node(String(node.id ?? i + 1), String(node.type ?? ""));
      return card(nodePath, what, moveButtons(nodes, i, what), ...nodeFields(nodePath, node, layerQueries));
    });
    const add = structureButton(texts.addNode, () => {
      const ids = nodes.map((node) => String(node.id));
      setAt(spec, path, [...nodes, { id: freeName("node", ids), type: "table", query: layerQueries[0] ?? "" }]);
      b.changed(true);
    });
    return [...cards, add];
  }

  // --- drills ------------------------------------------------------------------------------
  const drills = isObject(spec.drills) ? spec.drills : {};
  const drillCards = Object.entries(drills).map(([key, drill]) => {
    const path: Segment[] = ["drills", key];
    const layer = isObject(drill) ? drill : {};
    const rename = keyField(["drills"], key, texts.drillName, (wanted) => {
      for (const node of allNodes()) if (isObject(node.drill) && node.drill.target === key) node.drill.target = wanted;
    });
    const tools = el("span", { class: "card-tools" }, structureButton(texts.remove, () => (setAt(spec, path, undefined), b.changed(true)), { label: texts.removeWhat(key), className: "small remove" }));
    return card(
      path,
      `${texts.drill} ${key}`,
      tools,
      rename,
      textField(b, [...path, "title"], texts.drillTitle, { required: true, hint: texts.drillTitleHint }),
      rowsField(b, [...path, "args"], texts.drillArgDefs, [{ key: "name", label: texts.name, kind: "text" }, { key: "type", label: texts.type, kind: "select", choices: same(DRILL_ARG_TYPES) }], { text: texts.addArg, blank: () => ({ name: "", type: "text" }) }),
      el("div", { class: "sub-section" }, el("h4", {}, texts.queries), ...queriesSection([...path, "queries"])),
      el("div", { class: "sub-section" }, el("h4", {}, texts.drillNodes), ...nodesSection([...path, "nodes"], queryNames(layer.queries))),
    );
  });
  const drillsSection = section(
    texts.drills,
    texts.drillsIntro,
    ["drills"],
    ...drillCards,
    structureButton(texts.addDrill, () => {
      setAt(spec, ["drills", freeName("detail", Object.keys(drills))], { title: "", args: [], queries: { rows: { sql: "select 1 as value" } } });
      b.changed(true);
    }),
  );

  function allNodes(): Json[] {
    const layers = [spec.nodes, ...Object.values(drills).map((drill) => (isObject(drill) ? drill.nodes : undefined))];
    return layers.flatMap((nodes) => (Array.isArray(nodes) ? nodes.filter(isObject) : []));
  }

  const element = el(
    "div",
    { class: "spec-form" },
    basics,
    paramsSection,
    section(texts.queries, texts.queriesIntro, ["queries"], ...queriesSection(["queries"])),
    section(texts.nodes, texts.nodesIntro, ["nodes"], ...nodesSection(["nodes"], queryNames(spec.queries))),
    drillsSection,
  );
  return { element, destroy: () => editors.forEach((editor) => editor.destroy()) };
}

/** What a param keeps when its type changes: its name, label and whether it is required. */
function retypeParam(param: Json, type: string): void {
  param.default = null;
  if (type === "select" || type === "multiSelect") param.options = isObject(param.options) || Array.isArray(param.options) ? param.options : [];
  else delete param.options;
}

/** The members each node type takes beyond id, type and width; the others go when the type changes. */
const NODE_MEMBERS: Record<string, readonly string[]> = {
  text: ["markdown"],
  stat: ["title", "query", "column", "format", "unit", "highlight"],
  table: ["title", "query", "columns", "highlight", "drill"],
  chart: ["title", "chart", "query", "x", "y", "y2", "xLabel", "yLabel", "y2Label", "stacked", "refLines", "drill"],
};
const NODE_STARTS: Record<string, Json> = { text: { markdown: "" }, stat: { column: "" }, table: {}, chart: { chart: "bar", x: "", y: [] } };

function retypeNode(node: Json, type: string): void {
  const kept = new Set(["id", "type", "width", ...(NODE_MEMBERS[type] ?? [])]);
  for (const member of Object.keys(node)) if (!kept.has(member)) delete node[member];
  for (const [member, value] of Object.entries(NODE_STARTS[type] ?? {})) if (!(member in node)) node[member] = value;
}

/** `param`, `param2`, … the first not taken. */
function freeName(stem: string, taken: readonly string[]): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? stem : `${stem}${n}`;
    if (!taken.includes(name)) return name;
  }
}

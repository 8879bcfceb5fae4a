/**
 * A layer's content nodes in the form (the report's own, or a drill's): a card each with the fields
 * its type takes (text, stat, table, chart) and, for tables and charts, the drill-through they open.
 */
import {
  CHART_KINDS,
  COLUMN_ALIGNS,
  HIGHLIGHT_TONES,
  NODE_TYPES,
} from "../../../commands/reports/spec/specVocabulary.ts";
import { el } from "../dom.ts";
import { card, freeName, isObject, memberNames, moveButtons, same, type Json } from "./formCards.ts";
import {
  checkField,
  mapRows,
  numberField,
  rowsField,
  selectField,
  stringOrObjectRows,
  structureButton,
  textField,
  type Binding,
  type RowColumn,
  type RowsCodec,
} from "./formFields.ts";
import { renderPath, setAt, valueAt, type Segment } from "./specPaths.ts";
import { worded } from "./choiceTexts.ts";
import { columnField, columnsField } from "./columnFields.ts";

/** The cards of the nodes at `path` (`nodes`, `drills.x.nodes`), then the add button; `layerQueries` are the queries they may read. */
export function nodeCards(b: Binding, path: Segment[], layerQueries: string[]): Node[] {
  const found = valueAt(b.spec, path);
  const nodes = Array.isArray(found) ? (found as Json[]) : [];
  const cards = nodes.map((node, i) => {
    const nodePath = [...path, i];
    const type = String(node.type ?? "");
    // The type in the page's language (issue #54: "table node1" on a Chinese page).
    const what = b.texts.node(String(node.id ?? i + 1), b.texts.choices.nodeTypes[type as "table"] ?? type);
    return card(nodePath, what, moveButtons(b, nodes, i, what), ...nodeFields(b, nodePath, node, layerQueries));
  });
  const add = structureButton(b.texts.addNode, () => {
    const ids = nodes.map((node) => String(node.id));
    setAt(b.spec, path, [...nodes, { id: freeName("node", ids), type: "table", query: layerQueries[0] ?? "" }]);
    b.changed(true);
  });
  return [...cards, add];
}

/** The fields of one node: those every node has, then its type's. */
function nodeFields(b: Binding, path: Segment[], node: Json, layerQueries: string[]): Node[] {
  const { texts } = b;
  const common: Node[] = [
    textField(b, [...path, "id"], texts.nodeId, { required: true }),
    selectField(b, [...path, "type"], texts.nodeType, worded(NODE_TYPES, texts.choices.nodeTypes), {
      structural: true,
      after: (type) => retypeNode(node, type),
    }),
    numberField(b, [...path, "width"], texts.width, { hint: texts.widthHint, min: 1, max: 12 }),
  ];
  if (node.type === "text")
    return [
      ...common,
      textField(b, [...path, "markdown"], texts.markdown, { multiline: true }),
      checkField(b, [...path, "print"], texts.printed, { defaultOn: true }),
    ];
  const titled = [...common, textField(b, [...path, "title"], texts.title)];
  // A new query's columns are known once the draft is saved and previewed (issue #54).
  const query = () =>
    selectField(b, [...path, "query"], texts.queryOfNode, same(layerQueries), { empty: texts.none, structural: true });
  // The report's own queries are previewed; a drill's run only when a row is clicked.
  const columns = path[0] === "nodes" && typeof node.query === "string" ? (b.columns?.(node.query) ?? null) : null;
  if (node.type === "stat") return [...titled, ...statFields(b, path, query, columns)];
  const drill = drillField(b, path, node);
  if (node.type === "table") return [...titled, ...tableFields(b, path, query), drill];
  return [...titled, ...chartFields(b, path, query, columns), drill];
}

/** One number from a query, with its format, unit and highlight rules. */
function statFields(b: Binding, path: Segment[], query: () => HTMLElement, columns: readonly string[] | null): Node[] {
  const { texts } = b;
  return [
    query(),
    columnField(b, [...path, "column"], texts.column, columns),
    textField(b, [...path, "format"], texts.format, { hint: texts.statFormatHint }),
    textField(b, [...path, "unit"], texts.unit),
    rowsField(
      b,
      [...path, "highlight"],
      texts.highlight,
      highlightColumns(b, false),
      { text: texts.addRule, blank: () => ({ below: 0, tone: "danger" }) },
      { hint: texts.highlightHint },
    ),
  ];
}

/** A query's rows, with the columns shown and the highlight rules of each. */
function tableFields(b: Binding, path: Segment[], query: () => HTMLElement): Node[] {
  const { texts } = b;
  const columnRows: RowColumn[] = [
    { key: "column", label: texts.column, kind: "text" },
    { key: "label", label: texts.label, kind: "text" },
    { key: "unit", label: texts.unit, kind: "text" },
    { key: "format", label: texts.format, kind: "text" },
    { key: "align", label: texts.align, kind: "select", choices: worded(COLUMN_ALIGNS, texts.choices.aligns) },
  ];
  return [
    query(),
    rowsField(
      b,
      [...path, "columns"],
      texts.columns,
      columnRows,
      { text: texts.addColumn, blank: () => ({ column: "" }) },
      { hint: `${texts.columnsHint} ${texts.formatHint}`, codec: stringOrObjectRows("column") },
    ),
    rowsField(
      b,
      [...path, "highlight"],
      texts.highlight,
      highlightColumns(b, true),
      { text: texts.addRule, blank: () => ({ column: "", below: 0, tone: "danger" }) },
      { hint: texts.highlightHint },
    ),
  ];
}

/** A chart of a query's rows: its kind, axes, series and reference lines. */
function chartFields(b: Binding, path: Segment[], query: () => HTMLElement, columns: readonly string[] | null): Node[] {
  const { texts } = b;
  const words = texts.columnWords;
  return [
    selectField(b, [...path, "chart"], texts.chartKind, worded(CHART_KINDS, texts.choices.chartKinds)),
    query(),
    columnField(b, [...path, "x"], texts.x, columns),
    columnsField(b, [...path, "y"], texts.y, columns, texts.listHint),
    columnField(b, [...path, "series"], words.series, columns, {
      none: words.seriesNone,
      hint: words.seriesHint,
    }),
    columnsField(b, [...path, "y2"], texts.y2, columns, texts.listHint),
    textField(b, [...path, "xLabel"], texts.xLabel),
    textField(b, [...path, "yLabel"], texts.yLabel),
    textField(b, [...path, "y2Label"], texts.y2Label),
    checkField(b, [...path, "stacked"], texts.stacked),
    rowsField(
      b,
      [...path, "labels"],
      texts.seriesLabels,
      [
        { key: "column", label: texts.column, kind: "text" },
        { key: "label", label: texts.label, kind: "text" },
      ],
      { text: texts.addSeriesLabel, blank: () => ({ column: "", label: "" }) },
      { hint: texts.seriesLabelsHint, codec: seriesLabelRows },
    ),
    rowsField(
      b,
      [...path, "refLines"],
      texts.refLines,
      [
        { key: "value", label: texts.value, kind: "number" },
        { key: "label", label: texts.label, kind: "text" },
      ],
      { text: texts.addRefLine, blank: () => ({ value: 0 }) },
    ),
  ];
}

/** A chart's `labels` ({ column: name }) as rows (mapRows), left out when there is none. */
const seriesLabels = mapRows("column", "label");
const seriesLabelRows: RowsCodec = {
  read: seriesLabels.read,
  write: (rows) => (rows.length ? seriesLabels.write(rows) : undefined),
};

/** The columns of a highlight rule; a table's rules also name the column they colour. */
const highlightColumns = ({ texts }: Binding, withColumn: boolean): RowColumn[] => [
  ...(withColumn ? [{ key: "column", label: texts.column, kind: "text" as const }] : []),
  { key: "below", label: texts.below, kind: "number" },
  { key: "above", label: texts.above, kind: "number" },
  { key: "between", label: texts.between, kind: "pair" },
  {
    key: "tone",
    label: texts.tone,
    kind: "select",
    choices: HIGHLIGHT_TONES.map((tone) => [tone, texts.tones[tone] ?? tone] as const),
  },
];

/** The drill a table's row or a chart's point opens, and which of its columns fill the drill's args. */
function drillField(b: Binding, path: Segment[], node: Json): HTMLElement {
  const { spec, texts } = b;
  const drillPath = [...path, "drill"];
  const drillNames = memberNames(spec.drills);
  const target = el(
    "select",
    { "data-path": renderPath([...drillPath, "target"]), id: `drill-target-${renderPath(path)}` },
    el("option", { value: "" }, texts.drillNone),
    ...drillNames.map((name) => el("option", { value: name }, name)),
  );
  const current = isObject(node.drill) ? String(node.drill.target ?? "") : "";
  // A target the spec names that is not among the drills (one since removed) stays visible.
  if (current && !drillNames.includes(current)) target.append(el("option", { value: current }, current));
  target.value = current;
  target.addEventListener("change", () => {
    setAt(
      spec,
      drillPath,
      target.value
        ? { target: target.value, args: isObject(node.drill) && isObject(node.drill.args) ? node.drill.args : {} }
        : undefined,
    );
    b.changed(true);
  });
  return el(
    "fieldset",
    { class: "drill-field", "data-path": renderPath(drillPath) },
    el("legend", {}, texts.drill),
    el("div", { class: "form-field" }, el("label", { for: target.id }, texts.drillTarget), target),
    current
      ? rowsField(
          b,
          [...drillPath, "args"],
          texts.drillArgs,
          [
            { key: "arg", label: texts.arg, kind: "text" },
            { key: "column", label: texts.column, kind: "text" },
          ],
          { text: texts.addArg, blank: () => ({ arg: "", column: "" }) },
          { codec: mapRows("arg", "column") },
        )
      : null,
  );
}

/** The members each node type takes beyond id, type and width; the others go when the type changes. */
const NODE_MEMBERS: Record<string, readonly string[]> = {
  text: ["markdown", "print"],
  stat: ["title", "query", "column", "format", "unit", "highlight"],
  table: ["title", "query", "columns", "highlight", "drill"],
  chart: [
    "title",
    "chart",
    "query",
    "x",
    "y",
    "y2",
    "xLabel",
    "yLabel",
    "y2Label",
    "stacked",
    "series",
    "labels",
    "refLines",
    "drill",
  ],
};
const NODE_STARTS: Record<string, Json> = {
  text: { markdown: "" },
  stat: { column: "" },
  table: {},
  chart: { chart: "bar", x: "", y: [] },
};

function retypeNode(node: Json, type: string): void {
  const kept = new Set(["id", "type", "width", ...(NODE_MEMBERS[type] ?? [])]);
  for (const member of Object.keys(node)) if (!kept.has(member)) delete node[member];
  for (const [member, value] of Object.entries(NODE_STARTS[type] ?? {})) if (!(member in node)) node[member] = value;
}

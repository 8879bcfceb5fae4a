/**
 * The form's drill-throughs (the spec's `drills`): a card each with its name, title and args, and
 * its own layer of queries and nodes.
 */
import { DRILL_ARG_TYPES } from "../../../commands/reports/spec/specVocabulary.ts";
import { el } from "../dom.ts";
import { card, freeName, isObject, keyField, memberNames, removeTool, type Json } from "./formCards.ts";
import { rowsField, section, structureButton, textField, type Binding } from "./formFields.ts";
import { nodeCards } from "./nodesSection.ts";
import { queryCards, type Releasable } from "./queriesSection.ts";
import { setAt, type Segment } from "./specPaths.ts";
import { worded } from "./choiceTexts.ts";

export function drillsSection(b: Binding, editors: Releasable[]): HTMLElement {
  const { spec, texts } = b;
  const drills = isObject(spec.drills) ? spec.drills : {};
  const cards = Object.entries(drills).map(([key, drill]) => drillCard(b, editors, drills, key, drill));
  const add = structureButton(texts.addDrill, () => {
    setAt(spec, ["drills", freeName("detail", Object.keys(drills))], {
      title: "",
      args: [],
      queries: { rows: { sql: "select 1 as value" } },
    });
    b.changed(true);
  });
  return section(texts.drills, texts.drillsIntro, ["drills"], ...cards, add);
}

function drillCard(b: Binding, editors: Releasable[], drills: Json, key: string, drill: unknown): HTMLElement {
  const { texts } = b;
  const path: Segment[] = ["drills", key];
  const layer = isObject(drill) ? drill : {};
  // A renamed drill is renamed where the nodes of every layer open it.
  const rename = keyField(b, ["drills"], key, texts.drillName, (wanted) => {
    for (const node of allNodes(b.spec, drills))
      if (isObject(node.drill) && node.drill.target === key) node.drill.target = wanted;
  });
  const tools = removeTool(b, path, key);
  return card(
    path,
    `${texts.drill} ${key}`,
    tools,
    rename,
    textField(b, [...path, "title"], texts.drillTitle, { required: true, hint: texts.drillTitleHint }),
    rowsField(
      b,
      [...path, "args"],
      texts.drillArgDefs,
      [
        { key: "name", label: texts.name, kind: "text" },
        { key: "type", label: texts.type, kind: "select", choices: worded(DRILL_ARG_TYPES, texts.choices.argTypes) },
      ],
      { text: texts.addArg, blank: () => ({ name: "", type: "text" }) },
    ),
    el("div", { class: "sub-section" }, el("h4", {}, texts.queries), ...queryCards(b, editors, [...path, "queries"])),
    el(
      "div",
      { class: "sub-section" },
      el("h4", {}, texts.drillNodes),
      ...nodeCards(b, [...path, "nodes"], memberNames(layer.queries)),
    ),
  );
}

/** The nodes of the report and of every drill. */
function allNodes(spec: Json, drills: Json): Json[] {
  const layers = [spec.nodes, ...Object.values(drills).map((drill) => (isObject(drill) ? drill.nodes : undefined))];
  return layers.flatMap((nodes) => (Array.isArray(nodes) ? nodes.filter(isObject) : []));
}

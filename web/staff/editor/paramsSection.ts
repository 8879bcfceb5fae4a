/**
 * The form's filters (the spec's `params`): a card each with its name, label, type, whether it is
 * required, its default and, for a choice, where its options come from.
 */
import { PARAM_TYPES } from "../../../commands/reports/spec/specVocabulary.ts";
import { el } from "../dom.ts";
import { card, freeName, isObject, memberNames, moveButtons, same, type Json } from "./formCards.ts";
import { checkField, rowsField, section, selectField, structureButton, textField, type Binding } from "./formFields.ts";
import { paramDefaultField } from "./paramDefault.ts";
import { renderPath, setAt, type Segment } from "./specPaths.ts";
import { worded } from "./choiceTexts.ts";

export function paramsSection(b: Binding): HTMLElement {
  const { spec, texts } = b;
  const params = Array.isArray(spec.params) ? (spec.params as Json[]) : [];
  const cards = params.map((_, i) => paramCard(b, params, i));
  const add = structureButton(texts.addParam, () => {
    const name = freeName(
      "param",
      params.map((p) => String(p.name)),
    );
    setAt(spec, ["params"], [...params, { name, label: name, type: "text", default: null }]);
    b.changed(true);
  });
  return section(texts.params, texts.paramsIntro, ["params"], ...cards, add);
}

function paramCard(b: Binding, params: Json[], i: number): HTMLElement {
  const { texts } = b;
  const param = params[i]!;
  const path: Segment[] = ["params", i];
  const name = String(param.name ?? "");
  const fields: Node[] = [
    textField(b, [...path, "name"], texts.name, { required: true, structural: true }),
    textField(b, [...path, "label"], texts.label),
    // A default of the old type would be refused under the new one.
    selectField(b, [...path, "type"], texts.type, worded(PARAM_TYPES, texts.choices.paramTypes), {
      structural: true,
      after: (type) => retypeParam(param, type),
    }),
    checkField(b, [...path, "required"], texts.required),
    paramDefaultField(b, path),
  ];
  if (param.type === "select" || param.type === "multiSelect") fields.push(optionsField(b, path, param));
  return card(path, texts.param(name), moveButtons(b, params, i, texts.param(name)), ...fields);
}

/** A choice's options: listed in the spec, or the values of one of the report's queries. */
function optionsField(b: Binding, path: Segment[], param: Json): HTMLElement {
  const { spec, texts } = b;
  const fromQuery = isObject(param.options);
  const source = el(
    "select",
    { "data-path": renderPath([...path, "options"]) },
    el("option", { value: "list" }, texts.optionsListed),
    el("option", { value: "query" }, texts.optionsQuery),
  );
  source.value = fromQuery ? "query" : "list";
  source.id = `options-source-${renderPath(path)}`;
  source.addEventListener("change", () => {
    setAt(spec, [...path, "options"], source.value === "query" ? { query: memberNames(spec.queries)[0] ?? "" } : []);
    b.changed(true);
  });
  const detail = fromQuery
    ? selectField(b, [...path, "options", "query"], texts.optionsQuery, same(memberNames(spec.queries)))
    : rowsField(
        b,
        [...path, "options"],
        texts.options,
        [
          { key: "value", label: texts.value, kind: "text" },
          { key: "label", label: texts.label, kind: "text" },
        ],
        { text: texts.addOption, blank: () => ({ value: "", label: "" }) },
      );
  return el(
    "div",
    { class: "options" },
    el("div", { class: "form-field" }, el("label", { for: source.id }, texts.optionsFromQuery), source),
    detail,
  );
}

/** What a param keeps when its type changes: its name, label and whether it is required. */
function retypeParam(param: Json, type: string): void {
  param.default = null;
  if (type === "select" || type === "multiSelect")
    param.options = isObject(param.options) || Array.isArray(param.options) ? param.options : [];
  else delete param.options;
}

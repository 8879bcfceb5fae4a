/**
 * The form view of a spec: basics, filters, queries (a SQL editor each), content nodes and
 * drill-throughs, every member of the format reachable without writing JSON. The form edits the
 * spec object in place; members it has no control for are kept as they are.
 */
import { el } from "../dom.ts";
import { drillsSection } from "./drillsSection.ts";
import { memberNames } from "./formCards.ts";
import { checkField, section, textField, type Binding } from "./formFields.ts";
import { nodeCards } from "./nodesSection.ts";
import { paramsSection } from "./paramsSection.ts";
import { queryCards, type Releasable } from "./queriesSection.ts";

export interface SpecForm {
  element: HTMLElement;
  /** Releases the SQL editors. */
  destroy(): void;
}

export function specForm(b: Binding): SpecForm {
  const editors: Releasable[] = [];
  const { spec, texts } = b;
  // The sections are made in this order (the drills before the report's own queries and nodes) so
  // that the fields' generated ids come out as they always have.
  const basics = basicsSection(b);
  const params = paramsSection(b);
  const drills = drillsSection(b, editors);
  const element = el(
    "div",
    { class: "spec-form" },
    basics,
    params,
    section(texts.queries, texts.queriesIntro, ["queries"], ...queryCards(b, editors, ["queries"])),
    section(texts.nodes, texts.nodesIntro, ["nodes"], ...nodeCards(b, ["nodes"], memberNames(spec.queries))),
    drills,
  );
  return { element, destroy: () => editors.forEach((editor) => editor.destroy()) };
}

/** The report's title, description and which exports it offers. */
function basicsSection(b: Binding): HTMLElement {
  const { texts } = b;
  return section(
    texts.basics,
    null,
    null,
    textField(b, ["title"], texts.title, { required: true }),
    textField(b, ["description"], texts.description, { multiline: true, hint: texts.descriptionHint }),
    checkField(b, ["export", "xlsx"], texts.exportXlsx, { defaultOn: true, dropEmptyParent: true }),
    checkField(b, ["export", "docx"], texts.exportDocx, { defaultOn: true, dropEmptyParent: true }),
  );
}

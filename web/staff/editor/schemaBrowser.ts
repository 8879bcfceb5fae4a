/**
 * The schema browser beside the form (issue #54, as Metabase's data reference or Superset's
 * SQL Lab): the tables and views of the report's data source with their columns, and the
 * laboratory items of the dictionary with their names in the page's language, read when the
 * author first opens it.
 */
import { el } from "../dom.ts";
import type { PageContext } from "../page.ts";
import { segment } from "../staffApi.ts";
import type { LabItemDictionary } from "../types.ts";
import type { EditorTexts } from "./editorTexts.ts";

interface DataSourceSchema {
  relations: Array<{ name: string; kind: "table" | "view"; columns: Array<{ name: string; type: string }> }>;
}

/** `datasource()` is the report's data source as the editor holds it when the browser opens. */
export function schemaBrowser(ctx: PageContext, texts: EditorTexts, datasource: () => string): HTMLElement {
  const words = texts.columnWords;
  const body = el("div", { class: "schema-body" }, el("p", { class: "muted" }, words.schemaLoading));
  const browser = el(
    "details",
    { class: "card schema-browser" },
    el("summary", {}, words.schema),
    el("p", { class: "hint" }, words.schemaIntro),
    body,
  );
  let shownFor: string | null = null;
  browser.addEventListener("toggle", () => {
    if (!browser.open || shownFor === datasource()) return;
    shownFor = datasource();
    void fill(ctx, texts, body, shownFor);
  });
  return browser;
}

async function fill(ctx: PageContext, texts: EditorTexts, body: HTMLElement, datasource: string): Promise<void> {
  const words = texts.columnWords;
  const [schema, dictionary] = await Promise.all([
    ctx.api.get<DataSourceSchema>(`/api/datasources/${segment(datasource)}/schema`).catch(() => null),
    datasource === "clinical"
      ? ctx.api.get<LabItemDictionary>("/api/dictionary/lab-items").catch(() => null)
      : Promise.resolve(null),
  ]);
  const relations = schema
    ? schema.relations.map((relation) =>
        el(
          "details",
          { class: "schema-relation", "data-relation": relation.name },
          el(
            "summary",
            {},
            el("code", {}, relation.name),
            " ",
            el(
              "span",
              { class: "muted" },
              `${words.relationKinds[relation.kind]} · ${words.columnCount(relation.columns.length)}`,
            ),
          ),
          el(
            "ul",
            { class: "schema-columns" },
            ...relation.columns.map((column) =>
              el("li", {}, el("code", {}, column.name), " ", el("span", { class: "muted" }, column.type)),
            ),
          ),
        ),
      )
    : [el("p", { class: "muted", role: "status" }, words.schemaFailed)];
  const items = dictionary
    ? el(
        "details",
        { class: "schema-relation schema-items" },
        el("summary", {}, words.dictionary, " ", el("span", { class: "muted" }, `· ${dictionary.items.length}`)),
        el("p", { class: "hint" }, words.dictionaryIntro),
        el(
          "div",
          // Scrolled on its own: reachable by keyboard, and named for a screen reader.
          { class: "table-wrap", tabindex: 0, role: "region", "aria-label": words.dictionary },
          el(
            "table",
            { class: "data compact" },
            el("caption", { class: "visually-hidden" }, words.dictionary),
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                ...[words.colCode, words.colLabel, words.colUnit].map((heading) => el("th", { scope: "col" }, heading)),
              ),
            ),
            el(
              "tbody",
              {},
              ...dictionary.items.map((item) =>
                el(
                  "tr",
                  {},
                  el("td", {}, el("code", {}, item.code)),
                  el("td", {}, ctx.texts.itemTitle(item)),
                  el("td", {}, item.unit ?? ""),
                ),
              ),
            ),
          ),
        ),
      )
    : null;
  body.replaceChildren(...relations, items ?? "");
}

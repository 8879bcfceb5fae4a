/**
 * A layer's queries in the form (the report's own, or a drill's): a card each with its name and a
 * SQL editor, and a button that adds one.
 */
import { el } from "../dom.ts";
import { sqlEditor } from "./codeEditors.ts";
import { card, freeName, isObject, keyField, removeTool, type Json } from "./formCards.ts";
import { structureButton, type Binding } from "./formFields.ts";
import { renderPath, setAt, valueAt, type Segment } from "./specPaths.ts";
import { queryProblemText } from "../auditTexts.ts";
import { pageLang } from "./localizedValue.ts";

/** The editor a card holds until the form is drawn again (then released). */
export type Releasable = { destroy(): void };

/** The cards of the queries at `path` (`queries`, `drills.x.queries`), then the add button; their SQL editors go into `editors`. */
export function queryCards(b: Binding, editors: Releasable[], path: Segment[]): HTMLElement[] {
  const found = valueAt(b.spec, path);
  const queries = isObject(found) ? found : {};
  const cards = Object.entries(queries).map(([name, query]) => queryCard(b, editors, path, name, query));
  const add = structureButton(b.texts.addQuery, () => {
    setAt(b.spec, [...path, freeName("query", Object.keys(queries))], { sql: "select 1 as value" });
    b.changed(true);
  });
  return [...cards, add];
}

let problemIds = 0;

function queryCard(b: Binding, editors: Releasable[], path: Segment[], name: string, query: unknown): HTMLElement {
  const { texts } = b;
  const queryPath = [...path, name];
  const where = renderPath(queryPath);
  const rename = keyField(b, path, name, texts.queryName, (wanted) => renameQueryUses(b.spec, path, name, wanted));
  const sqlPath = [...queryPath, "sql"];
  // The saved query failed when tried: the sentence under the field, the place marked in the SQL.
  const problems = b.queryProblems?.of(where) ?? [];
  const noteId = `query-problem-${++problemIds}`;
  const note =
    problems.length === 0
      ? null
      : el(
          "div",
          { class: "query-problems", id: noteId },
          ...problems.map((p) =>
            el("p", { class: "field-error" }, texts.queryFailed(p.line, p.column), queryProblemText(p, pageLang())),
          ),
        );
  const marked = note ? { marks: problems, describedBy: noteId } : null;
  const editor = sqlEditor(
    String(isObject(query) ? (query.sql ?? "") : ""),
    texts.sqlOf(name),
    renderPath(sqlPath),
    (text) => {
      setAt(b.spec, sqlPath, text);
      if (note?.isConnected) {
        note.remove();
        b.queryProblems?.edited(where);
      }
      b.changed();
    },
    texts.completionKinds,
    marked,
  );
  editors.push(editor);
  const sql = el(
    "div",
    { class: "form-field wide sql-field", "data-path": renderPath(sqlPath) },
    el("span", { class: "label" }, texts.sqlOf(name)),
    editor.dom,
    note,
  );
  return card(queryPath, texts.query(name), removeTool(b, queryPath, texts.query(name)), rename, sql);
}

/** A renamed query is renamed where the same layer's nodes and option lists name it. */
function renameQueryUses(spec: Json, queriesPath: Segment[], from: string, to: string): void {
  const layer = queriesPath.slice(0, -1);
  const nodes = valueAt(spec, [...layer, "nodes"]);
  if (Array.isArray(nodes)) for (const node of nodes) if (isObject(node) && node.query === from) node.query = to;
  if (layer.length === 0 && Array.isArray(spec.params))
    for (const param of spec.params)
      if (isObject(param) && isObject(param.options) && param.options.query === from) param.options.query = to;
}

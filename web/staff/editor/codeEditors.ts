/**
 * The editor's two kinds of code fields, both CodeMirror 6: a report query's SQL (PostgreSQL
 * highlighting, the clinical relations offered as completions and, in a quoted item code, the
 * dictionary's codes with their labels and names; where the saved query failed underlined) and
 * the whole spec as JSON, with its syntax errors and the service's refusals marked where they point.
 */
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { PostgreSQL, sql } from "@codemirror/lang-sql";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Compartment, type EditorState, type Text } from "@codemirror/state";
import { EditorView, basicSetup } from "codemirror";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { CLINICAL_RELATION_NAMES } from "../../../commands/reports/spec/specVocabulary.ts";
import type { Segment } from "./specPaths.ts";

/** The relations of the clinical data source (contract C.5), offered as completions. */
const CLINICAL_SCHEMA = Object.fromEntries(CLINICAL_RELATION_NAMES.map((name) => [name, []]));
/** The same relations typed `table` (lang-sql would type them `type`, as it does `numeric`), so their badge says table. */
const CLINICAL_TABLES = CLINICAL_RELATION_NAMES.map((label) => ({ label, type: "table" }));

/** The word a completion's badge shows for each kind, in the page's language (editorTexts.ts). */
export interface CompletionKinds {
  keyword: string;
  type: string;
  table: string;
  property: string;
  item: string;
  constant: string;
}

const themes = new Map<CompletionKinds, ReturnType<typeof EditorView.theme>>();

/**
 * Completion badges (issue #34 item 11): CodeMirror's own icons are glyphs such as 🔑 and 𝑥,
 * which the fonts of a plain Debian Chromium lack, so they showed as empty boxes. A short word of
 * the page's language takes their place, in the font of the page, on a light grey ground
 * (#1f2937 on #e8eaed, about 12:1, whether the option is selected or not).
 */
function completionBadges(kinds: CompletionKinds) {
  let theme = themes.get(kinds);
  if (!theme) {
    const words = Object.fromEntries(
      Object.entries(kinds).map(([kind, word]) => [
        `.cm-completionIcon-${kind}:after`,
        { content: JSON.stringify(word) },
      ]),
    );
    theme = EditorView.theme({
      ".cm-tooltip-autocomplete .cm-completionIcon": {
        width: "auto",
        minWidth: "3.6em",
        padding: "0 .35em",
        marginRight: ".5em",
        opacity: "1",
        fontSize: "78%",
        fontStyle: "normal",
        lineHeight: "1.6",
        textAlign: "center",
        borderRadius: "3px",
        backgroundColor: "#e8eaed",
        color: "#1f2937",
      },
      ...words,
    });
    themes.set(kinds, theme);
  }
  return theme;
}

/** A dictionary item as the SQL completions offer it: its code, and how the page names it (`title`). */
export interface ItemCompletion {
  code: string;
  label: string;
  name: string;
  nameEn: string;
  /** The label and name in the page's language, shown beside the code. */
  title: string;
}

/** The dictionary's items, once the page has them (offerItemCodes); every SQL field completes from them. */
let itemCodes: readonly ItemCompletion[] = [];

/** Gives the SQL fields the dictionary's item codes to complete, those open already included. */
export function offerItemCodes(items: readonly ItemCompletion[]): void {
  itemCodes = items;
}

/**
 * In a quoted code compared with a code column (`std_code = 'K`, `std_code in ('HGB', '`,
 * `code <> '`), the standard item codes, found by a word of the code, label or English name, or by
 * part of the Chinese name: `spkt`, `kt/v` or `尿素清除` offers KTV (issue #34, item 5); those whose
 * code or label starts so come first. The code is inserted; its label and name show beside it.
 */
const QUOTED_CODE = /\b(?:std_code|code)\s*(?:=|<>|!=|\bin\s*\((?:\s*'[^'\n]*'\s*,)*)\s*'([^'\n]*)$/i;

function itemCodeCompletions(context: { state: EditorState; pos: number }) {
  const before = context.state.doc.sliceString(Math.max(0, context.pos - 400), context.pos);
  const typed = QUOTED_CODE.exec(before)?.[1];
  if (typed === undefined || itemCodes.length === 0) return null;
  const key = typed.toLowerCase();
  const wordStart = new RegExp(`(?:^|[^\\p{L}\\p{N}])${typed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "iu");
  const starts = (item: ItemCompletion) =>
    item.code.toLowerCase().startsWith(key) || item.label.toLowerCase().startsWith(key);
  const found = itemCodes.filter(
    (item) => item.name.includes(typed) || [item.code, item.label, item.nameEn].some((text) => wordStart.test(text)),
  );
  const options = [...found.filter(starts), ...found.filter((item) => !starts(item))].map((item) => ({
    label: item.code,
    detail: item.title,
    type: "item",
  }));
  // Filtered here (by label and names too, which CodeMirror's own filter, on the code, would not find).
  return options.length === 0 ? null : { from: context.pos - typed.length, options, filter: false };
}

/** The staff page's style nonce (src/staff/staffRoutes.ts): CodeMirror's theme goes into a `<style>` element. */
const styleNonce = EditorView.cspNonce.of(document.body.dataset.styleNonce ?? "");

/** Where the service found the SQL failing (line and column from 1, null for nowhere in particular), and its sentence. */
export interface SqlMark {
  line: number | null;
  column: number | null;
  message: string;
}

/** The word that starts at the mark's line and column (an identifier the database did not know), else that one character. */
function markRange(doc: Text, line: number, column: number): { from: number; to: number } {
  const { from: start, to: end, text } = doc.line(Math.min(Math.max(line, 1), doc.lines));
  const offset = Math.min(Math.max(column - 1, 0), text.length);
  const word = /^[\p{L}\p{N}_$]+/u.exec(text.slice(offset))?.[0].length ?? 0;
  const from = start + offset;
  return { from, to: Math.min(end, from + Math.max(word, 1)) };
}

/**
 * A SQL field: `label` names it for assistive technology, `path` is where it sits in the spec.
 * `marks` (a failure of the saved query) are underlined where they point, with the sentence that
 * `describedBy` names beside the field; the first edit clears them, as they were for the SQL saved.
 * `kinds` are the words of the completions' badges.
 */
export function sqlEditor(
  doc: string,
  label: string,
  path: string,
  onChange: (text: string) => void,
  kinds: CompletionKinds,
  marked: { marks: SqlMark[]; describedBy: string } | null = null,
): EditorView {
  const plain = { "aria-label": label, "data-path": path };
  const attributes = new Compartment();
  let stale = marked !== null;
  const view: EditorView = new EditorView({
    doc,
    extensions: [
      basicSetup,
      styleNonce,
      sql({ dialect: PostgreSQL, schema: CLINICAL_SCHEMA, tables: CLINICAL_TABLES, upperCaseKeywords: false }),
      completionBadges(kinds),
      PostgreSQL.language.data.of({ autocomplete: itemCodeCompletions }),
      marked ? lintGutter() : [],
      EditorView.lineWrapping,
      attributes.of(
        EditorView.contentAttributes.of(
          marked ? { ...plain, "aria-invalid": "true", "aria-describedby": marked.describedBy } : plain,
        ),
      ),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        if (stale) {
          stale = false;
          queueMicrotask(() =>
            view.dispatch(setDiagnostics(view.state, []), {
              effects: attributes.reconfigure(EditorView.contentAttributes.of(plain)),
            }),
          );
        }
        onChange(update.state.doc.toString());
      }),
    ],
  });
  if (marked) {
    const diagnostics: Diagnostic[] = marked.marks.flatMap(({ line, column, message }) =>
      line === null || column === null
        ? []
        : [{ ...markRange(view.state.doc, line, column), severity: "error" as const, message, source: "service" }],
    );
    view.dispatch(setDiagnostics(view.state, diagnostics));
  }
  return view;
}

export interface JsonEditor {
  view: EditorView;
  /** Replaces the text (the form changed the spec); no change event for it. */
  setText(text: string): void;
  /** Marks the service's problems at their paths, beside the syntax errors of the moment. */
  showProblems(problems: Array<{ path: Segment[]; message: string }>): void;
  /** Moves the cursor to the member at `path` (or the nearest that exists). */
  reveal(path: Segment[]): void;
}

/** Where `path` is in `text`: the member's value, else the nearest member on the way to it. */
function rangeOf(text: string, path: Segment[]): { from: number; to: number } {
  const tree = parseTree(text);
  if (!tree) return { from: 0, to: 0 };
  for (let length = path.length; length >= 0; length--) {
    const node = findNodeAtLocation(tree, path.slice(0, length));
    if (node) {
      // A value's key is what the eye looks for: mark from the key when the value has one.
      const key = node.parent?.type === "property" ? node.parent.children?.[0] : undefined;
      return { from: key?.offset ?? node.offset, to: node.offset + node.length };
    }
  }
  return { from: 0, to: 0 };
}

export function jsonEditor(doc: string, label: string, onChange: (text: string) => void): JsonEditor {
  let serviceProblems: Diagnostic[] = [];
  let quiet = false;
  const syntax = jsonParseLinter();
  const refresh = () => view.dispatch(setDiagnostics(view.state, [...syntax(view), ...serviceProblems]));
  const view: EditorView = new EditorView({
    doc,
    extensions: [
      basicSetup,
      styleNonce,
      json(),
      lintGutter(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-label": label }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged || quiet) return;
        // The service's marks were for the text it saw; an edit makes them stale.
        serviceProblems = [];
        queueMicrotask(refresh);
        onChange(update.state.doc.toString());
      }),
    ],
  });
  return {
    view,
    setText(text) {
      if (text === view.state.doc.toString()) return;
      quiet = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      } finally {
        quiet = false;
      }
      serviceProblems = [];
      refresh();
    },
    showProblems(problems) {
      const text = view.state.doc.toString();
      serviceProblems = problems.map(({ path, message }) => ({
        ...rangeOf(text, path),
        severity: "error",
        message,
        source: "service",
      }));
      refresh();
    },
    reveal(path) {
      const { from, to } = rangeOf(view.state.doc.toString(), path);
      view.dispatch({
        selection: { anchor: from, head: to },
        effects: EditorView.scrollIntoView(from, { y: "center" }),
      });
      view.focus();
    },
  };
}

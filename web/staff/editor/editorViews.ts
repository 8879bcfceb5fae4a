/**
 * The editor's two views of one spec: the form (drawn again after each structural change, with the
 * service's problems marked where they point) and the JSON text (made when first opened, and
 * written back into the spec whenever it parses to an object).
 */
import { el } from "../dom.ts";
import { jsonEditor, type JsonEditor } from "./codeEditors.ts";
import { refillSpec, type EditorState, type Json } from "./editorState.ts";
import type { EditorTexts } from "./editorTexts.ts";
import type { EditorToolbar } from "./editorToolbar.ts";
import type { Binding } from "./formFields.ts";
import { focusPlace, markProblems, pathed } from "./problemMarks.ts";
import { specForm, type SpecForm } from "./specForm.ts";
import { parsePath, type PathProblem, type Segment } from "./specPaths.ts";
import { viewTabs, type ViewName } from "./viewTabs.ts";
import { queryProblemText } from "../auditTexts.ts";
import { pageLang } from "./localizedValue.ts";

export interface EditorViews {
  tabs: HTMLElement;
  formPanel: HTMLElement;
  jsonPanel: HTMLElement;
  /** Draws the form again from the spec, where the page was scrolled. */
  drawForm(): void;
  /** Shows the problems (already in the state) in the open view. */
  showProblems(problems: PathProblem[]): void;
  /** The spec was replaced from the service: the open view shows it. */
  specReplaced(): void;
  /** Moves to where `path` is in the open view. */
  goTo(path: Segment[]): void;
  /** Releases the code editors. */
  destroy(): void;
}

export function editorViews(
  state: EditorState,
  texts: EditorTexts,
  toolbar: Pick<EditorToolbar, "problem" | "dirty">,
): EditorViews {
  let view: ViewName = "form";
  let form: SpecForm | null = null;
  let json: JsonEditor | null = null;
  const { tabs, formPanel, jsonPanel, select } = viewTabs(texts, (wanted) => showView(wanted));
  const jsonText = () => JSON.stringify(state.spec, null, 2);
  // The JSON view marks the sql member of a query that failed; the form marks the place in its SQL.
  const jsonMarks = (problems: PathProblem[]) => [
    ...pathed(problems),
    ...state.queryProblems.flatMap((p) => {
      const path = parsePath(p.query);
      return path
        ? [
            {
              path: [...path, "sql"],
              message: `${texts.queryFailed(p.line, p.column)}${queryProblemText(p, pageLang())}`,
            },
          ]
        : [];
    }),
  ];

  const binding: Binding = {
    spec: state.spec,
    texts,
    changed(structural) {
      toolbar.dirty();
      if (structural) drawForm();
    },
    columns: (query) => state.resultColumns.get(query) ?? null,
    queryProblems: {
      of: (where) => state.queryProblems.filter((p) => p.query === where),
      edited(where) {
        state.queryProblems = state.queryProblems.filter((p) => p.query !== where);
      },
    },
  };

  function drawForm(): void {
    state.columnsPending = false;
    const scroll = window.scrollY;
    form?.destroy();
    form = specForm(binding);
    formPanel.replaceChildren(form.element);
    markProblems(formPanel, state.problems);
    window.scrollTo({ top: scroll });
  }

  function showView(wanted: ViewName): void {
    if (wanted === view) return;
    // The form cannot show a text that is not a spec: the JSON view stays until it parses.
    if (wanted === "form" && state.jsonBroken) {
      toolbar.problem.show(texts.jsonBroken);
      return;
    }
    toolbar.problem.show(null);
    view = wanted;
    select(view);
    if (view === "form") drawForm();
    else {
      json ??= jsonView(state, texts, jsonPanel, toolbar.dirty);
      json.setText(jsonText());
      json.showProblems(jsonMarks(state.problems));
    }
  }

  return {
    tabs,
    formPanel,
    jsonPanel,
    drawForm,
    showProblems(problems) {
      if (view === "form") drawForm();
      else json?.showProblems(jsonMarks(problems));
    },
    specReplaced() {
      if (view === "form") drawForm();
      else json?.setText(jsonText());
    },
    goTo(path) {
      if (view === "json" && json) return json.reveal(path);
      focusPlace(formPanel, path);
    },
    destroy() {
      form?.destroy();
      json?.view.destroy();
    },
  };
}

/** The JSON view in `panel`: each edit that parses to an object becomes the spec; one that does not is remembered as broken. */
function jsonView(state: EditorState, texts: EditorTexts, panel: HTMLElement, dirty: () => void): JsonEditor {
  const editor = jsonEditor("", texts.jsonView, (text) => {
    dirty();
    // As the JSON view's own marks, the failures of the saved queries go with the first edit.
    state.queryProblems = [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      state.jsonBroken = true;
      return;
    }
    state.jsonBroken = typeof parsed !== "object" || parsed === null || Array.isArray(parsed);
    if (state.jsonBroken) return;
    refillSpec(state.spec, parsed as Json);
  });
  panel.replaceChildren(el("p", { class: "hint" }, texts.jsonHint), editor.view.dom);
  return editor;
}

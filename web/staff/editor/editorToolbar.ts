/**
 * The editor's identity fields (the report's id, fixed once it exists, and its data source) and
 * its toolbar: save and preview, publish, discard, and a status line saying what is unsaved or saved.
 */
import { alertBox, el, field } from "../dom.ts";
import type { EditorState } from "./editorState.ts";
import type { EditorTexts } from "./editorTexts.ts";
import { markInvalid } from "./formFields.ts";

export interface ReportIdentity {
  element: HTMLElement;
  idInput: HTMLInputElement;
  datasourceInput: HTMLInputElement;
}

export function reportIdentity(state: EditorState, texts: EditorTexts, dirty: () => void): ReportIdentity {
  const idInput = el("input", {
    type: "text",
    value: state.id,
    required: true,
    readonly: state.exists,
    autocomplete: "off",
    spellcheck: "false",
  });
  const datasourceInput = el("input", {
    type: "text",
    value: state.datasource,
    autocomplete: "off",
    spellcheck: "false",
  });
  idInput.addEventListener("input", () => ((state.id = idInput.value.trim()), markInvalid(idInput, null)));
  datasourceInput.addEventListener(
    "input",
    () => ((state.datasource = datasourceInput.value.trim() || "clinical"), dirty()),
  );
  const element = el(
    "div",
    { class: "editor-identity" },
    field("report-id", texts.reportId, idInput, state.exists ? undefined : texts.reportIdHint),
    field("report-datasource", texts.datasource, datasourceInput, texts.datasourceHint),
  );
  return { element, idInput, datasourceInput };
}

export interface ToolbarActions {
  save(): void;
  publish(): void;
  discard(): void;
}

export interface EditorToolbar {
  element: HTMLElement;
  status: HTMLElement;
  saveButton: HTMLButtonElement;
  /** The sentence of a save that failed, or of a view that cannot open (shown under the toolbar). */
  problem: ReturnType<typeof alertBox>;
  /** Publish needs a report with something to publish; discard, a draft. */
  refreshButtons(): void;
  /** The editing changed since the last save. */
  dirty(): void;
}

export function editorToolbar(state: EditorState, texts: EditorTexts, actions: ToolbarActions): EditorToolbar {
  const status = el(
    "p",
    { class: "editor-status muted", role: "status" },
    state.hasDraft || !state.exists ? "" : texts.noDraftYet,
  );
  const saveButton = el(
    "button",
    { type: "button", class: "primary", "data-action": "save", onclick: () => actions.save() },
    texts.save,
  );
  const publishButton = el(
    "button",
    { type: "button", "data-action": "publish", onclick: () => actions.publish() },
    texts.publish,
  );
  const discardButton = el(
    "button",
    { type: "button", class: "remove", "data-action": "discard", onclick: () => actions.discard() },
    texts.discard,
  );
  const problem = alertBox();
  const element = el("div", { class: "editor-toolbar" }, saveButton, publishButton, discardButton, status);
  const refreshButtons = () => {
    publishButton.disabled = !state.exists || (!state.hasDraft && !state.dirty);
    discardButton.disabled = !state.hasDraft;
  };
  const dirty = () => {
    state.dirty = true;
    status.textContent = texts.unsaved;
    refreshButtons();
  };
  return { element, status, saveButton, problem, refreshButtons, dirty };
}

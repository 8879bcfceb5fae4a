/**
 * The two tabs over the editor's views (form, JSON) and their panels, in the WAI-ARIA tablist
 * pattern: the selected tab is the one in the tab order, and the arrow keys move between them.
 */
import { el } from "../dom.ts";
import type { EditorTexts } from "./editorTexts.ts";

export type ViewName = "form" | "json";

export interface ViewTabs {
  tabs: HTMLElement;
  formPanel: HTMLElement;
  jsonPanel: HTMLElement;
  /** Marks `view`'s tab selected and shows its panel only. */
  select(view: ViewName): void;
}

/** `wanted` is asked for a view when its tab is pressed; it may refuse (a JSON text that does not parse). */
export function viewTabs(texts: EditorTexts, wanted: (view: ViewName) => void): ViewTabs {
  const formPanel = el("div", {
    class: "view-panel",
    id: "editor-form-panel",
    role: "tabpanel",
    "aria-labelledby": "editor-tab-form",
  });
  const jsonPanel = el("div", {
    class: "view-panel",
    id: "editor-json-panel",
    role: "tabpanel",
    "aria-labelledby": "editor-tab-json",
    hidden: true,
  });
  const formTab = el(
    "button",
    {
      type: "button",
      role: "tab",
      id: "editor-tab-form",
      "aria-controls": formPanel.id,
      "aria-selected": "true",
      onclick: () => wanted("form"),
    },
    texts.formView,
  );
  const jsonTab = el(
    "button",
    {
      type: "button",
      role: "tab",
      id: "editor-tab-json",
      "aria-controls": jsonPanel.id,
      "aria-selected": "false",
      tabindex: "-1",
      onclick: () => wanted("json"),
    },
    texts.jsonView,
  );
  const tabs = el("div", { class: "view-tabs", role: "tablist", "aria-label": texts.views }, formTab, jsonTab);
  tabs.addEventListener("keydown", (event) => {
    // Arrow keys move between the tabs (the tablist pattern of WAI-ARIA).
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const next = document.activeElement === formTab ? jsonTab : formTab;
    next.focus();
    next.click();
  });
  const select = (view: ViewName) => {
    formTab.setAttribute("aria-selected", String(view === "form"));
    jsonTab.setAttribute("aria-selected", String(view === "json"));
    formTab.tabIndex = view === "form" ? 0 : -1;
    jsonTab.tabIndex = view === "json" ? 0 : -1;
    formPanel.hidden = view !== "form";
    jsonPanel.hidden = view !== "json";
  };
  return { tabs, formPanel, jsonPanel, select };
}

/**
 * The preview beside the editor: the embed page of the draft (or, without one, the current
 * version) in a sandboxed frame, as a host page embeds it, loaded again after each save.
 */
import { el } from "../dom.ts";
import type { PageContext } from "../page.ts";
import { embedUrl } from "../reportsPage.ts";
import type { EditorTexts } from "./editorTexts.ts";

export interface PreviewPane {
  element: HTMLElement;
  /** Loads `version` of the report (again, when it is the draft just saved); null shows that there is nothing yet. */
  show(reportId: string, version: string | null, title: string): void;
}

export function previewPane(ctx: PageContext, texts: EditorTexts): PreviewPane {
  let loads = 0;
  const frame = el("iframe", { class: "preview-frame", sandbox: "allow-scripts allow-downloads", hidden: true });
  const empty = el("p", { class: "empty" }, texts.previewEmpty);
  const openLink = el(
    "a",
    { target: "_blank", rel: "noopener", class: "button-link", hidden: true },
    texts.openPreview,
  );
  const element = el(
    "section",
    { class: "card preview-pane", "aria-labelledby": "preview-title" },
    el("div", { class: "card-head" }, el("h2", { id: "preview-title" }, texts.preview), openLink),
    el("p", { class: "hint" }, texts.previewIntro),
    empty,
    frame,
  );
  return {
    element,
    show(reportId, version, title) {
      empty.hidden = version !== null;
      frame.hidden = version === null;
      openLink.hidden = version === null;
      if (version === null) return;
      const url = embedUrl(ctx, reportId, version);
      openLink.href = url;
      // Another address each time, so the frame loads the saved draft again.
      frame.src = `${url}&preview=${++loads}`;
      frame.title = texts.previewFrame(title);
    },
  };
}

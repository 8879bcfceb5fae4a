/**
 * The report editor (`#edit/<id>`, `#new`): the spec in a form view and a JSON view that edit one
 * object, "Save and preview" (`PUT …/draft`, then the embed page of the draft reloaded beside the
 * editor), the service's refusals and audit findings linked to where they point, publish, discard,
 * and the versions with restore and compare. Contract C.3; everything goes through `/api`.
 *
 * This module loads the report and puts the editor together; its parts and flows are in the
 * modules it imports (editorParts.ts says what they share).
 */
import { el } from "../dom.ts";
import { loader, pageFrame, type PageContext } from "../page.ts";
import { ApiError, segment } from "../staffApi.ts";
import type { Audit, LabItemDictionary, ReportListEntry, VersionEntry } from "../types.ts";
import { offerItemCodes } from "./codeEditors.ts";
import type { EditorParts } from "./editorParts.ts";
import { blankSource, draftAuditOf, editorState, sourceOf, type LoadedSource } from "./editorState.ts";
import { editorTextsFor, type EditorTexts } from "./editorTexts.ts";
import { editorToolbar, reportIdentity } from "./editorToolbar.ts";
import { editorViews } from "./editorViews.ts";
import { findingsPanels } from "./findingsPanels.ts";
import { previewPane } from "./previewPane.ts";
import { discard, publish } from "./publishFlow.ts";
import { showPreview, showVersions } from "./reportReload.ts";
import { save } from "./saveFlow.ts";
import { schemaBrowser } from "./schemaBrowser.ts";

export function editorPage(ctx: PageContext, reportId: string | null): HTMLElement {
  const texts = editorTextsFor(ctx.lang);
  const box = el("div", { class: "page-body editor-body" });
  const frame = pageFrame("editor", reportId ? texts.editReport(reportId) : texts.newReport, texts.editorIntro, box);
  void offerDictionary(ctx);
  const load = loader(box, ctx.texts, async () => {
    if (!reportId) return editor(ctx, texts, frame, null, blankSource(), [], null, false);
    const entry = (await ctx.api.all<ReportListEntry>("/api/reports")).find((report) => report.id === reportId);
    if (!entry) throw new ApiError(404, `There is no report ${reportId}.`);
    const version = entry.hasDraft ? "draft" : entry.publishedVersion!;
    const [source, versions] = await Promise.all([
      sourceOf(ctx, reportId, version),
      ctx.api.all<VersionEntry>(`/api/reports/${segment(reportId)}/versions`),
    ]);
    // Each is stored: a published version's with it, the draft's as its last save answered it.
    const audit =
      version === "draft"
        ? await draftAuditOf(ctx, reportId)
        : await ctx.api.get<Audit>(`/api/reports/${segment(reportId)}/versions/${segment(version)}/audit`);
    return editor(ctx, texts, frame, entry, source, versions, audit, version === "draft");
  });
  void load();
  return frame;
}

/**
 * The dictionary's item codes for the SQL fields to complete, named in the page's language. Only a
 * help to typing: without them (the call failed) the editor works as before.
 */
async function offerDictionary(ctx: PageContext): Promise<void> {
  try {
    const { items } = await ctx.api.get<LabItemDictionary>("/api/dictionary/lab-items");
    offerItemCodes(
      items.map((item) => ({
        code: item.code,
        label: item.label,
        name: item.name,
        nameEn: item.nameEn,
        title: ctx.texts.itemTitle(item),
      })),
    );
  } catch {
    // Completions of codes are missed, nothing else.
  }
}

/** `audit` is the audit of what the editor starts from: the draft's when `fromDraft`, else the version's. */
function editor(
  ctx: PageContext,
  texts: EditorTexts,
  frame: HTMLElement,
  entry: ReportListEntry | null,
  loaded: LoadedSource,
  versions: VersionEntry[],
  audit: Audit | null,
  fromDraft: boolean,
): HTMLElement {
  const state = editorState(entry, loaded, fromDraft ? audit : null);
  // The toolbar's buttons act on the whole editor (`parts`, put together below); none is pressed before.
  const toolbar = editorToolbar(state, texts, {
    save: () => void save(parts),
    publish: () => void publish(parts),
    discard: () => discard(parts),
  });
  const identity = reportIdentity(state, texts, toolbar.dirty);
  const conflictBox = el("div", { class: "editor-conflict", role: "alert", hidden: true });
  const views = editorViews(state, texts, toolbar);
  const findings = findingsPanels(ctx, texts, views.goTo);
  const preview = previewPane(ctx, texts);
  const versionsSlot = el("div", { class: "versions-slot" });
  const parts: EditorParts = {
    ctx,
    texts,
    state,
    heading: frame.querySelector("h1")!,
    identity,
    toolbar,
    views,
    findings,
    conflictBox,
    preview,
    versions: { slot: versionsSlot, shown: versions, panel: null },
  };
  guardUnsavedWork(parts, frame);

  views.drawForm();
  findings.showAudit(audit);
  if (state.exists) showVersions(parts, versions);
  toolbar.refreshButtons();
  showPreview(parts);
  const editorPane = el(
    "section",
    { class: "editor-pane", "aria-label": texts.views },
    identity.element,
    toolbar.element,
    toolbar.problem.element,
    conflictBox,
    findings.problemsBox,
    findings.auditBox,
    schemaBrowser(ctx, texts, () => state.datasource),
    views.tabs,
    views.formPanel,
    views.jsonPanel,
  );
  return el(
    "div",
    { class: "editor" },
    el("div", { class: "editor-columns" }, editorPane, preview.element),
    versionsSlot,
  );
}

/**
 * Unsaved changes are not lost by leaving: closing the tab or reloading asks the browser's
 * question, another page of the app asks first; Ctrl+S (⌘S) saves. All is undone on leaving.
 */
function guardUnsavedWork(parts: EditorParts, frame: HTMLElement): void {
  const { ctx, texts, state } = parts;
  const beforeUnload = (event: BeforeUnloadEvent) => {
    if (state.dirty) event.preventDefault();
  };
  window.addEventListener("beforeunload", beforeUnload);
  // Ctrl+S (⌘S) saves and previews, as in an editor, instead of the browser saving the page.
  const saveKey = (event: KeyboardEvent) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s" && frame.isConnected) {
      event.preventDefault();
      void save(parts);
    }
  };
  document.addEventListener("keydown", saveKey);
  ctx.guardLeave(() => !state.dirty || window.confirm(texts.leaveUnsaved));
  ctx.onLeave(() => {
    window.removeEventListener("beforeunload", beforeUnload);
    document.removeEventListener("keydown", saveKey);
    parts.views.destroy();
  });
}

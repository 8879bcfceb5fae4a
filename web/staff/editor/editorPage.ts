/**
 * The report editor (`#edit/<id>`, `#new`): the spec in a form view and a JSON view that edit one
 * object, "Save and preview" (`PUT …/draft`, then the embed page of the draft reloaded beside the
 * editor), the service's refusals and audit findings linked to where they point, publish, discard,
 * and the versions with restore and compare. Contract C.3; everything goes through `/api`.
 */
import { REPORT_ID_PATTERN } from "../../../commands/reports/spec/specVocabulary.ts";
import { alertBox, el, field, whileSubmitting } from "../dom.ts";
import { loader, pageFrame, type PageContext } from "../page.ts";
import { ApiError, segment } from "../staffApi.ts";
import type { Audit, ReportListEntry, VersionEntry } from "../types.ts";
import { jsonEditor, type JsonEditor } from "./codeEditors.ts";
import { discardDialog, publishDialog } from "./draftDialogs.ts";
import { editorTextsFor, type EditorTexts } from "./editorTexts.ts";
import { markInvalid, type Binding } from "./formFields.ts";
import { previewPane } from "./previewPane.ts";
import { specForm, type SpecForm } from "./specForm.ts";
import { nearest, parsePath, problemsOf, renderPath, type PathProblem, type Segment } from "./specPaths.ts";
import { versionsPanel, type VersionsPanel } from "./versionsPanel.ts";

type Json = Record<string, unknown>;

interface Source {
  title: string;
  datasource: string;
  spec: Json;
}

const blankSpec = (): Json => ({ version: 1, title: "", params: [], queries: {}, nodes: [] });

export function editorPage(ctx: PageContext, reportId: string | null): HTMLElement {
  const texts = editorTextsFor(ctx.lang);
  const box = el("div", { class: "page-body editor-body" });
  const frame = pageFrame("editor", reportId ? texts.editReport(reportId) : texts.newReport, texts.editorIntro, box);
  const load = loader(box, ctx.texts, async () => {
    if (!reportId) return editor(ctx, texts, frame, null, { source: { title: "", datasource: "clinical", spec: blankSpec() }, etag: null }, [], null);
    const entry = (await ctx.api.get<ReportListEntry[]>("/api/reports")).find((report) => report.id === reportId);
    if (!entry) throw new ApiError(404, `There is no report ${reportId}.`);
    const version = entry.hasDraft ? "draft" : entry.publishedVersion!;
    const [source, versions] = await Promise.all([sourceOf(ctx, reportId, version), ctx.api.get<VersionEntry[]>(`/api/reports/${segment(reportId)}/versions`)]);
    // A published version's audit is stored; a draft's is computed when it is saved again.
    const audit = version === "draft" ? null : await ctx.api.get<Audit>(`/api/reports/${segment(reportId)}/versions/${segment(version)}/audit`);
    return editor(ctx, texts, frame, entry, source, versions, audit);
  });
  void load();
  return frame;
}

/**
 * A version's or the draft's source, and the ETag of the draft the next save is based on: the
 * draft's own, or null when the editor starts from a published version (no draft expected).
 */
async function sourceOf(ctx: PageContext, reportId: string, version: string): Promise<{ source: Source; etag: string | null }> {
  const { body, headers } = await ctx.api.exchange<Source>("GET", `/api/reports/${segment(reportId)}/versions/${segment(version)}/source`);
  return { source: body, etag: version === "draft" ? headers.get("etag") : null };
}

function editor(ctx: PageContext, texts: EditorTexts, frame: HTMLElement, entry: ReportListEntry | null, loaded: { source: Source; etag: string | null }, versions: VersionEntry[], audit: Audit | null): HTMLElement {
  const state = {
    id: entry?.id ?? "",
    datasource: loaded.source.datasource,
    spec: loaded.source.spec,
    /** The draft this editing started from (its ETag), or null for none: a save must not overwrite another's. */
    basedOn: loaded.etag,
    exists: entry !== null,
    hasDraft: entry?.hasDraft ?? false,
    dirty: false,
    jsonBroken: false,
    problems: [] as PathProblem[],
  };
  const heading = frame.querySelector("h1")!;

  // --- report id and data source --------------------------------------------------------
  const idInput = el("input", { type: "text", value: state.id, required: true, readonly: state.exists, autocomplete: "off", spellcheck: "false" });
  const datasourceInput = el("input", { type: "text", value: state.datasource, autocomplete: "off", spellcheck: "false" });
  idInput.addEventListener("input", () => ((state.id = idInput.value.trim()), markInvalid(idInput, null)));
  datasourceInput.addEventListener("input", () => ((state.datasource = datasourceInput.value.trim() || "clinical"), dirty()));
  const identity = el("div", { class: "editor-identity" }, field("report-id", texts.reportId, idInput, state.exists ? undefined : texts.reportIdHint), field("report-datasource", texts.datasource, datasourceInput, texts.datasourceHint));

  // --- toolbar ----------------------------------------------------------------------------
  const status = el("p", { class: "editor-status muted", role: "status" }, state.hasDraft || !state.exists ? "" : texts.noDraftYet);
  const saveButton = el("button", { type: "button", class: "primary", "data-action": "save", onclick: () => void save() }, texts.save);
  const publishButton = el("button", { type: "button", "data-action": "publish", onclick: () => publish() }, texts.publish);
  const discardButton = el("button", { type: "button", class: "remove", "data-action": "discard", onclick: () => discard() }, texts.discard);
  const toolbarProblem = alertBox();
  const toolbar = el("div", { class: "editor-toolbar" }, saveButton, publishButton, discardButton, status);
  const refreshButtons = () => {
    publishButton.disabled = !state.exists || (!state.hasDraft && !state.dirty);
    discardButton.disabled = !state.hasDraft;
  };

  // --- problems and audit -----------------------------------------------------------------
  const problemsBox = el("div", { class: "editor-problems", role: "alert", hidden: true });
  // Another author saved, published or discarded the draft since this editing began.
  const conflictBox = el("div", { class: "editor-conflict", role: "alert", hidden: true });
  const showConflict = (sentence: string | null) => {
    conflictBox.hidden = sentence === null;
    conflictBox.replaceChildren(
      ...(sentence === null
        ? []
        : [
            el("p", {}, el("strong", {}, texts.conflictTitle), " ", sentence),
            el(
              "p",
              { class: "form-actions start" },
              el("button", { type: "button", "data-action": "load-theirs", onclick: () => void reload({ editorToo: true }).then(() => showConflict(null)) }, texts.loadTheirs),
              el("button", { type: "button", class: "remove", "data-action": "overwrite", onclick: () => void save({ overwrite: true }) }, texts.overwrite),
            ),
          ]),
    );
  };
  const auditBox = el("div", { class: "editor-audit" });

  // --- the two views ----------------------------------------------------------------------
  const formPanel = el("div", { class: "view-panel", id: "editor-form-panel", role: "tabpanel", "aria-labelledby": "editor-tab-form" });
  const jsonPanel = el("div", { class: "view-panel", id: "editor-json-panel", role: "tabpanel", "aria-labelledby": "editor-tab-json", hidden: true });
  const formTab = el("button", { type: "button", role: "tab", id: "editor-tab-form", "aria-controls": formPanel.id, "aria-selected": "true", onclick: () => showView("form") }, texts.formView);
  const jsonTab = el("button", { type: "button", role: "tab", id: "editor-tab-json", "aria-controls": jsonPanel.id, "aria-selected": "false", tabindex: "-1", onclick: () => showView("json") }, texts.jsonView);
  const tabs = el("div", { class: "view-tabs", role: "tablist", "aria-label": texts.views }, formTab, jsonTab);
  tabs.addEventListener("keydown", (event) => {
    // Arrow keys move between the tabs (the tablist pattern of WAI-ARIA).
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const next = document.activeElement === formTab ? jsonTab : formTab;
    next.focus();
    next.click();
  });
  let view: "form" | "json" = "form";
  let form: SpecForm | null = null;
  let json: JsonEditor | null = null;

  const binding: Binding = {
    spec: state.spec,
    texts,
    changed(structural) {
      dirty();
      if (structural) drawForm();
    },
  };

  function drawForm(): void {
    const scroll = window.scrollY;
    form?.destroy();
    form = specForm(binding);
    formPanel.replaceChildren(form.element);
    markForm();
    window.scrollTo({ top: scroll });
  }

  function showView(wanted: "form" | "json"): void {
    if (wanted === view) return;
    if (wanted === "form" && state.jsonBroken) {
      toolbarProblem.show(texts.jsonBroken);
      return;
    }
    toolbarProblem.show(null);
    view = wanted;
    formTab.setAttribute("aria-selected", String(view === "form"));
    jsonTab.setAttribute("aria-selected", String(view === "json"));
    formTab.tabIndex = view === "form" ? 0 : -1;
    jsonTab.tabIndex = view === "json" ? 0 : -1;
    formPanel.hidden = view !== "form";
    jsonPanel.hidden = view !== "json";
    if (view === "form") drawForm();
    else {
      json ??= makeJsonEditor();
      json.setText(JSON.stringify(state.spec, null, 2));
      json.showProblems(pathed(state.problems));
    }
  }

  function makeJsonEditor(): JsonEditor {
    const editor = jsonEditor("", texts.jsonView, (text) => {
      dirty();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        state.jsonBroken = true;
        return;
      }
      state.jsonBroken = typeof parsed !== "object" || parsed === null || Array.isArray(parsed);
      if (state.jsonBroken) return;
      // One spec object for both views: its members are replaced, not the object.
      for (const key of Object.keys(state.spec)) delete state.spec[key];
      Object.assign(state.spec, parsed);
    });
    jsonPanel.replaceChildren(el("p", { class: "hint" }, texts.jsonHint), editor.view.dom);
    return editor;
  }

  // --- where problems point -----------------------------------------------------------------
  const pathed = (problems: PathProblem[]) => problems.filter((p): p is { path: Segment[]; message: string } => p.path !== null);

  const placeIn = (path: Segment[]): HTMLElement | null => {
    const found = nearest(path, (text) => formPanel.querySelector(`[data-path="${CSS.escape(text)}"]`) !== null);
    return found === null ? null : formPanel.querySelector<HTMLElement>(`[data-path="${CSS.escape(found)}"]`);
  };

  function markForm(): void {
    for (const { path, message } of pathed(state.problems)) {
      const place = placeIn(path);
      if (!place) continue;
      if (place.matches("input, select, textarea, [contenteditable]")) markInvalid(place, message);
      else place.append(el("p", { class: "field-error" }, message));
    }
  }

  function goTo(path: Segment[]): void {
    if (view === "json" && json) return json.reveal(path);
    const place = placeIn(path);
    if (!place) return;
    // Details inside a closed card are opened; the control itself, else the first inside, gets focus.
    place.scrollIntoView({ block: "center" });
    const target = place.matches("input, select, textarea, button, [contenteditable]") ? place : place.querySelector<HTMLElement>("input, select, textarea, [contenteditable]");
    target?.focus();
  }

  const whereLink = (where: string) => {
    const path = parsePath(where);
    return path ? el("button", { type: "button", class: "link", "data-go": where, onclick: () => goTo(path) }, el("code", {}, where)) : el("code", {}, where);
  };

  function showProblems(problems: PathProblem[]): void {
    state.problems = problems;
    problemsBox.hidden = problems.length === 0;
    problemsBox.replaceChildren(
      el("p", {}, el("strong", {}, texts.problemsTitle(problems.length))),
      el("ul", {}, ...problems.map((problem) => el("li", {}, problem.path ? whereLink(renderPath(problem.path) || "spec") : null, " ", problem.message))),
    );
    if (view === "form") drawForm();
    else json?.showProblems(pathed(problems));
  }

  function showAudit(next: Audit | null): void {
    if (!next) return void auditBox.replaceChildren();
    auditBox.replaceChildren(
      el("p", {}, el("span", { class: `grade grade-${next.grade}` }, next.grade), " ", texts.auditTitle(next.grade, next.score)),
      next.findings.length === 0
        ? el("p", { class: "muted" }, texts.auditNone)
        : el(
            "ul",
            { class: "finding-list" },
            ...next.findings.map((finding) =>
              el("li", { "data-rule": finding.rule }, el("span", { class: `severity severity-${finding.severity}` }, ctx.texts.severities[finding.severity] ?? finding.severity), " ", whereLink(finding.where), " ", finding.message),
            ),
          ),
    );
  }

  // --- preview --------------------------------------------------------------------------------
  const preview = previewPane(ctx, texts);
  const showPreview = () => preview.show(state.id, state.hasDraft ? "draft" : (versionsShown.find((v) => v.current)?.no ?? null), String(state.spec.title ?? ""));

  // --- versions -----------------------------------------------------------------------------
  let versionsShown = versions;
  let panel: VersionsPanel | null = null;
  const versionsSlot = el("div", { class: "versions-slot" });
  const showVersions = (next: VersionEntry[]) => {
    versionsShown = next;
    panel ??= versionsPanel(ctx, texts, state.id, async (restored) => {
      ctx.announce(texts.restored(restored.no));
      // A restore leaves the draft alone; without one, the editor starts from the restored version.
      await reload({ editorToo: !state.hasDraft });
    });
    if (!panel.element.isConnected) versionsSlot.replaceChildren(panel.element);
    panel.show(next, state.hasDraft);
  };

  /**
   * The report as the service has it now: its versions, and with `editorToo` the draft (or, without
   * one, the current version, the starting point of the next draft) in the editor.
   */
  async function reload({ editorToo }: { editorToo: boolean }): Promise<void> {
    const base = `/api/reports/${segment(state.id)}`;
    const [list, nextVersions] = await Promise.all([ctx.api.get<ReportListEntry[]>("/api/reports"), ctx.api.get<VersionEntry[]>(`${base}/versions`)]);
    const head = list.find((report) => report.id === state.id);
    if (!head) return void (location.hash = "#reports");
    // Everything is read first and shown at once: the versions never show beside a stale editor.
    const version = head.hasDraft ? "draft" : head.publishedVersion!;
    const loaded = editorToo ? await sourceOf(ctx, state.id, version) : null;
    const nextAudit = loaded && version !== "draft" ? await ctx.api.get<Audit>(`${base}/versions/${segment(version)}/audit`) : null;
    state.hasDraft = head.hasDraft;
    if (loaded) {
      state.basedOn = loaded.etag;
      state.datasource = datasourceInput.value = loaded.source.datasource;
      replaceSpec(loaded.source.spec);
      showAudit(nextAudit);
      state.dirty = false;
      status.textContent = "";
    }
    showVersions(nextVersions);
    refreshButtons();
    showPreview();
  }

  function replaceSpec(next: Json): void {
    for (const key of Object.keys(state.spec)) delete state.spec[key];
    Object.assign(state.spec, next);
    state.problems = [];
    if (view === "form") drawForm();
    else json?.setText(JSON.stringify(state.spec, null, 2));
  }

  // --- actions --------------------------------------------------------------------------------
  function dirty(): void {
    state.dirty = true;
    status.textContent = texts.unsaved;
    refreshButtons();
  }

  /**
   * Saves the draft on condition that it is still the one this editing started from (or that there
   * is none); `overwrite` saves whatever is there now. True when the service took it; the preview shows it then.
   */
  async function save({ overwrite = false }: { overwrite?: boolean } = {}): Promise<boolean> {
    if (state.jsonBroken) {
      toolbarProblem.show(texts.jsonBroken);
      return false;
    }
    if (!state.exists && !REPORT_ID_PATTERN.test(state.id)) {
      markInvalid(idInput, texts.reportIdInvalid);
      idInput.focus();
      return false;
    }
    let saved = false;
    await whileSubmitting(saveButton, texts.saving, toolbarProblem, async () => {
      try {
        const condition: Record<string, string> = overwrite ? {} : state.basedOn ? { "if-match": state.basedOn } : { "if-none-match": "*" };
        const { body: answer, headers } = await ctx.api.exchange<{ audit: Audit }>("PUT", `/api/reports/${segment(state.id)}/draft`, { body: { datasource: state.datasource, spec: state.spec }, headers: condition });
        saved = true;
        state.basedOn = headers.get("etag");
        showConflict(null);
        showProblems([]);
        showAudit(answer.audit);
        if (!state.exists) {
          state.exists = true;
          idInput.readOnly = true;
          // The address names the report now, without opening the page again.
          history.replaceState(null, "", `#edit/${encodeURIComponent(state.id)}`);
          showVersions([]);
        }
        state.hasDraft = true;
        state.dirty = false;
        heading.textContent = texts.editReport(state.id);
        status.textContent = texts.saved(new Date().toTimeString().slice(0, 5));
        refreshButtons();
        panel?.show(versionsShown, true);
        showPreview();
      } catch (error) {
        // The page's calls are made by the staff bundle, whose ApiError is another class than this bundle's.
        const code = (error as Partial<ApiError>).status;
        if (code === 400) showProblems(problemsOf((error as Error).message));
        else if (code === 412) showConflict((error as Error).message);
        else toolbarProblem.show(error instanceof Error ? error.message : String(error));
      }
    });
    return saved;
  }

  /** Publish and discard act on the draft this editing is based on, not on one saved meanwhile. */
  const onTheDraft = (): Record<string, string> => (state.basedOn ? { "if-match": state.basedOn } : {});

  /** A 412: the editor says what happened, with the choices it offers (the dialog just closes). */
  function conflicted(error: unknown): boolean {
    if ((error as Partial<ApiError>).status !== 412) return false;
    showConflict((error as Error).message);
    return true;
  }

  function publish(): void {
    let published = "";
    publishDialog(ctx, texts, {
      async send(choice) {
        // What is published is what was previewed: unsaved changes are saved first.
        if (state.dirty && !(await save())) return false;
        const { body: entry } = await ctx.api.exchange<VersionEntry>("POST", `/api/reports/${segment(state.id)}/publish`, { body: choice, headers: onTheDraft() });
        published = entry.no;
        return true;
      },
      async done() {
        ctx.announce(texts.published(published));
        await reload({ editorToo: true });
        status.textContent = texts.published(published);
      },
      claimed: conflicted,
    });
  }

  function discard(): void {
    discardDialog(ctx, texts, {
      async send() {
        await ctx.api.exchange("DELETE", `/api/reports/${segment(state.id)}/draft`, { headers: onTheDraft() });
        state.dirty = false; // what was not saved went with the draft
        return true;
      },
      async done() {
        ctx.announce(texts.discarded);
        if (!versionsShown.some((v) => v.current)) return void (location.hash = "#reports");
        await reload({ editorToo: true });
      },
      claimed: conflicted,
    });
  }

  // Leaving with unsaved changes (closing the tab, reloading) asks first.
  const beforeUnload = (event: BeforeUnloadEvent) => {
    if (state.dirty) event.preventDefault();
  };
  window.addEventListener("beforeunload", beforeUnload);
  // Ctrl+S (⌘S) saves and previews, as in an editor, instead of the browser saving the page.
  const saveKey = (event: KeyboardEvent) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s" && frame.isConnected) {
      event.preventDefault();
      void save();
    }
  };
  document.addEventListener("keydown", saveKey);
  ctx.guardLeave(() => !state.dirty || window.confirm(texts.leaveUnsaved));
  ctx.onLeave(() => {
    window.removeEventListener("beforeunload", beforeUnload);
    document.removeEventListener("keydown", saveKey);
    form?.destroy();
    json?.view.destroy();
  });

  drawForm();
  showAudit(audit);
  if (state.exists) showVersions(versions);
  refreshButtons();
  showPreview();
  const editorPane = el("section", { class: "editor-pane", "aria-label": texts.views }, identity, toolbar, toolbarProblem.element, conflictBox, problemsBox, auditBox, tabs, formPanel, jsonPanel);
  return el("div", { class: "editor" }, el("div", { class: "editor-columns" }, editorPane, preview.element), versionsSlot);
}

/**
 * The editor brought up to date with the service: the report's versions, the preview and, when
 * asked, the draft (or the current version) in the editor.
 */
import { segment } from "../staffApi.ts";
import type { Audit, ReportListEntry, VersionEntry } from "../types.ts";
import type { EditorParts } from "./editorParts.ts";
import { draftAuditOf, refillSpec, sourceOf, type Json } from "./editorState.ts";
import { versionsPanel } from "./versionsPanel.ts";
import { loadResultColumns } from "./resultColumns.ts";
import { textOf } from "./localizedValue.ts";

/**
 * The report as the service has it now: its versions, and with `editorToo` the draft (or, without
 * one, the current version, the starting point of the next draft) in the editor.
 */
export async function reload(e: EditorParts, { editorToo }: { editorToo: boolean }): Promise<void> {
  const { ctx, state } = e;
  const base = `/api/reports/${segment(state.id)}`;
  const [list, nextVersions] = await Promise.all([
    ctx.api.all<ReportListEntry>("/api/reports"),
    ctx.api.all<VersionEntry>(`${base}/versions`),
  ]);
  const head = list.find((report) => report.id === state.id);
  if (!head) return void (location.hash = "#reports");
  // Everything is read first and shown at once: the versions never show beside a stale editor.
  const version = head.hasDraft ? "draft" : head.publishedVersion!;
  const loaded = editorToo ? await sourceOf(ctx, state.id, version) : null;
  const nextAudit = !loaded
    ? null
    : version === "draft"
      ? await draftAuditOf(ctx, state.id)
      : await ctx.api.get<Audit>(`${base}/versions/${segment(version)}/audit`);
  state.hasDraft = head.hasDraft;
  if (loaded) {
    state.basedOn = loaded.etag;
    state.draftAudit = version === "draft" ? nextAudit : null;
    state.datasource = e.identity.datasourceInput.value = loaded.source.datasource;
    replaceSpec(e, loaded.source.spec);
    e.findings.showAudit(nextAudit);
    state.dirty = false;
    e.toolbar.status.textContent = "";
  }
  showVersions(e, nextVersions);
  e.toolbar.refreshButtons();
  showPreview(e);
}

function replaceSpec(e: EditorParts, next: Json): void {
  refillSpec(e.state.spec, next);
  e.state.problems = [];
  e.state.queryProblems = [];
  e.views.specReplaced();
}

export function showVersions(e: EditorParts, next: VersionEntry[]): void {
  const { ctx, texts, state, versions } = e;
  versions.shown = next;
  versions.panel ??= versionsPanel(ctx, texts, state.id, async (restored) => {
    ctx.announce(texts.restored(restored.no));
    // A restore leaves the draft alone; without one, the editor starts from the restored version.
    await reload(e, { editorToo: !state.hasDraft });
  });
  if (!versions.panel.element.isConnected) versions.slot.replaceChildren(versions.panel.element);
  versions.panel.show(next, state.hasDraft);
}

/** The draft in the preview, else the current version, else nothing yet; the form offers its queries' columns. */
export function showPreview(e: EditorParts): void {
  const { preview, state, versions } = e;
  const version = state.hasDraft ? "draft" : (versions.shown.find((v) => v.current)?.no ?? null);
  preview.show(state.id, version, textOf(state.spec.title));
  if (version) void loadResultColumns(e, version);
}

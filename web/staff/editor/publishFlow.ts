/**
 * Publish and discard: each asks in its dialog, then acts on the draft this editing is based on,
 * and brings the editor up to date after.
 */
import { segment, type ApiError } from "../staffApi.ts";
import type { VersionEntry } from "../types.ts";
import { discardDialog, publishDialog } from "./draftDialogs.ts";
import type { EditorParts } from "./editorParts.ts";
import type { EditorState } from "./editorState.ts";
import { reload } from "./reportReload.ts";
import { save, showConflict } from "./saveFlow.ts";

/** Publish and discard act on the draft this editing is based on, not on one saved meanwhile. */
const onTheDraft = (state: EditorState): Record<string, string> => (state.basedOn ? { "if-match": state.basedOn } : {});

/** A 412: the editor says what happened, with the choices it offers (the dialog just closes). */
function conflicted(e: EditorParts, error: unknown): boolean {
  if ((error as Partial<ApiError>).status !== 412) return false;
  showConflict(e, (error as Error).message);
  return true;
}

/** The audit's findings of the draft's queries that failed when it was last saved. */
const failingQueries = (state: EditorState) =>
  state.draftAudit?.findings.filter((finding) => finding.rule === "query-fails") ?? [];

export async function publish(e: EditorParts): Promise<void> {
  const { ctx, texts, state } = e;
  // What is published is what was previewed: unsaved changes are saved first, and what that save
  // found of the queries decides whether the dialog asks for a confirmation.
  if (state.dirty && !(await save(e))) return;
  let published = "";
  publishDialog(
    ctx,
    texts,
    {
      async send(choice) {
        // What is published is what was previewed: unsaved changes are saved first.
        if (state.dirty && !(await save(e))) return false;
        const { body: entry } = await ctx.api.exchange<VersionEntry>(
          "POST",
          `/api/reports/${segment(state.id)}/publish`,
          { body: choice, headers: onTheDraft(state) },
        );
        published = entry.no;
        return true;
      },
      async done() {
        ctx.announce(texts.published(published));
        await reload(e, { editorToo: true });
        e.toolbar.status.textContent = texts.published(published);
      },
      claimed: (error) => conflicted(e, error),
    },
    failingQueries(state),
  );
}

export function discard(e: EditorParts): void {
  const { ctx, texts, state } = e;
  discardDialog(ctx, texts, {
    async send() {
      await ctx.api.exchange("DELETE", `/api/reports/${segment(state.id)}/draft`, { headers: onTheDraft(state) });
      state.dirty = false; // what was not saved went with the draft
      return true;
    },
    async done() {
      ctx.announce(texts.discarded);
      if (!e.versions.shown.some((v) => v.current)) return void (location.hash = "#reports");
      await reload(e, { editorToo: true });
    },
    claimed: (error) => conflicted(e, error),
  });
}

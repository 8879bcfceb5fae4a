import { createHash } from "node:crypto";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import type { Draft, Mode, PublishedVersion, ReportEvent } from "./events.ts";
import { versionLabel } from "./spec/specVocabulary.ts";

export interface ReportState {
  draft: Draft | null;
  /** When the draft was saved: its entity tag (draftEtag) for saves that must not overwrite another's. */
  draftSavedAt: Date | null;
  versions: PublishedVersion[];
  current: number | null;
}

/**
 * What a save expects of the draft it replaces (HTTP's conditional request): the entity tag of the
 * draft it was based on (`If-Match`), any draft (`If-Match: *`), or none (`If-None-Match: *`).
 */
export type DraftPrecondition = { draft: string } | { anyDraft: true } | { noDraft: true };

export type ReportCommand =
  | { type: "saveDraft"; draft: Draft; who: string; precondition?: DraftPrecondition }
  | { type: "discardDraft"; who: string; precondition?: DraftPrecondition }
  | {
      type: "publish";
      draftHash: string;
      mode: Mode;
      note: string;
      params: Record<string, unknown>;
      frozen: PublishedVersion["frozen"];
      /** A snapshot's scope and each ward's own freeze (PublishedVersion). */
      wardFreezes?: Pick<PublishedVersion, "frozenFor" | "frozenByWard">;
      who: string;
      precondition?: DraftPrecondition;
    }
  | { type: "restore"; from: number; note: string | undefined; who: string };

/** The entity tag of a draft: its save time to the millisecond, which the event and the read model both keep. */
export const draftEtag = (savedAt: Date): string => `"draft-${savedAt.getTime()}"`;

/** The refusal of a save, publish or discard based on another draft than the one there is now; null when it is (or when none was named). */
export function unmetPrecondition(
  precondition: DraftPrecondition | undefined,
  state: ReportState,
): CommandError | null {
  if (!precondition) return null;
  const etag = state.draft && state.draftSavedAt ? draftEtag(state.draftSavedAt) : null;
  if ("draft" in precondition && precondition.draft === etag) return null;
  if ("anyDraft" in precondition && etag !== null) return null;
  if ("noDraft" in precondition && etag === null) return null;
  const now =
    etag === null ? "there is no draft now (it was published or discarded)" : "the draft was saved again since";
  const sentence =
    `The draft is not the one this call was based on: ${now}. Load it again (GET ` +
    "/api/reports/{id}/versions/draft/source gives its ETag) and decide anew, or call without If-Match / " +
    "If-None-Match to act on the draft as it is.";
  return new CommandError("precondition-failed", sentence, etag === null ? "draft-gone" : "draft-saved-again");
}

/** A restore of a version the report does not have. */
export const noSuchVersion = (label: string) =>
  new CommandError("not-found", `There is no version ${label}; list them with GET /api/reports/{id}/versions.`);

export function draftHash(draft: Draft): string {
  return createHash("sha256")
    .update(JSON.stringify([draft.title, draft.datasource, draft.spec]))
    .digest("hex");
}

export const reportDecider: Decider<ReportState, ReportCommand, ReportEvent> = {
  initialState: () => ({ draft: null, draftSavedAt: null, versions: [], current: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case "ReportDraftSaved":
        return { ...state, draft: event.data, draftSavedAt: event.recordedAt };
      case "ReportDraftDiscarded":
        return { ...state, draft: null, draftSavedAt: null };
      case "ReportVersionPublished": {
        const version = event.data;
        // Publishing consumes the draft; restoring an old version leaves a draft alone.
        const consumed = version.restoredFrom === undefined;
        return {
          draft: consumed ? null : state.draft,
          draftSavedAt: consumed ? null : state.draftSavedAt,
          versions: [...state.versions, version],
          current: version.no,
        };
      }
    }
  },
  decide: (command, state) => {
    const unmet = command.type === "restore" ? null : unmetPrecondition(command.precondition, state);
    if (unmet) throw unmet;
    switch (command.type) {
      case "saveDraft":
        return [{ type: "ReportDraftSaved", data: { ...command.draft, who: command.who } }];
      case "discardDraft":
        if (!state.draft) throw new CommandError("not-found", "This report has no draft to discard.");
        return [{ type: "ReportDraftDiscarded", data: { who: command.who } }];
      case "publish": {
        if (!state.draft)
          throw new CommandError(
            "conflict",
            "There is no draft to publish; save one with PUT /api/reports/{id}/draft first.",
          );
        if (draftHash(state.draft) !== command.draftHash)
          throw new CommandError("conflict", "The draft changed while it was being published; publish again.");
        const version: PublishedVersion = {
          ...state.draft,
          no: state.versions.length + 1,
          mode: command.mode,
          note: command.note,
          params: command.params,
          frozen: command.frozen,
          ...command.wardFreezes,
          who: command.who,
        };
        return [{ type: "ReportVersionPublished", data: version }];
      }
      case "restore": {
        const source = state.versions.find((version) => version.no === command.from);
        if (!source) throw noSuchVersion(versionLabel(command.from));
        const version: PublishedVersion = {
          ...source,
          no: state.versions.length + 1,
          note: command.note ?? `restored from ${versionLabel(command.from)}`,
          who: command.who,
          restoredFrom: command.from,
        };
        return [{ type: "ReportVersionPublished", data: version }];
      }
    }
  },
};

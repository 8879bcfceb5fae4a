import { createHash } from "node:crypto";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { QueryOutcome } from "../../queries/reports/queryResult.ts";
import { CommandError } from "../commandError.ts";
import type { Decider } from "../handleCommand.ts";
import type { Audit } from "./audit.ts";
import type { ReportSpec } from "./specSchema.ts";

export { REPORT_ID_PATTERN } from "./specVocabulary.ts";
export const reportStream = (reportId: string) => `report:${reportId}`;

export type Mode = "dynamic" | "snapshot";

export interface Draft {
  title: string;
  datasource: string;
  spec: ReportSpec;
  audit: Audit;
}

export interface PublishedVersion extends Draft {
  no: number;
  mode: Mode;
  note: string;
  params: Record<string, unknown>;
  /** The frozen results of a snapshot version, exactly as the data call will return them. */
  frozen: Record<string, QueryOutcome> | null;
  who: string;
  restoredFrom?: number;
}

export interface ReportState {
  draft: Draft | null;
  versions: PublishedVersion[];
  current: number | null;
}

export type ReportCommand =
  | { type: "saveDraft"; draft: Draft; who: string }
  | { type: "discardDraft"; who: string }
  | { type: "publish"; draftHash: string; mode: Mode; note: string; params: Record<string, unknown>; frozen: PublishedVersion["frozen"]; who: string }
  | { type: "restore"; from: number; note: string | undefined; who: string };

export function draftHash(draft: Draft): string {
  return createHash("sha256").update(JSON.stringify([draft.title, draft.datasource, draft.spec])).digest("hex");
}

export const reportDecider: Decider<ReportState, ReportCommand> = {
  initialState: () => ({ draft: null, versions: [], current: null }),
  evolve: (state, event: StoredEvent) => {
    switch (event.type) {
      case "ReportDraftSaved":
        return { ...state, draft: event.data as Draft };
      case "ReportDraftDiscarded":
        return { ...state, draft: null };
      case "ReportVersionPublished": {
        const version = event.data as PublishedVersion;
        // Publishing consumes the draft; restoring an old version leaves a draft alone.
        return { draft: version.restoredFrom === undefined ? null : state.draft, versions: [...state.versions, version], current: version.no };
      }
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case "saveDraft":
        return [{ type: "ReportDraftSaved", data: { ...command.draft, who: command.who } }];
      case "discardDraft":
        if (!state.draft) throw new CommandError("not-found", "This report has no draft to discard.");
        return [{ type: "ReportDraftDiscarded", data: { who: command.who } }];
      case "publish": {
        if (!state.draft) throw new CommandError("conflict", "There is no draft to publish; save one with PUT /api/reports/{id}/draft first.");
        if (draftHash(state.draft) !== command.draftHash) throw new CommandError("conflict", "The draft changed while it was being published; publish again.");
        const version: PublishedVersion = {
          ...state.draft,
          no: state.versions.length + 1,
          mode: command.mode,
          note: command.note,
          params: command.params,
          frozen: command.frozen,
          who: command.who,
        };
        return [{ type: "ReportVersionPublished", data: version }];
      }
      case "restore": {
        const source = state.versions.find((version) => version.no === command.from);
        if (!source) throw new CommandError("not-found", `There is no version v${command.from}; list them with GET /api/reports/{id}/versions.`);
        const version: PublishedVersion = {
          ...source,
          no: state.versions.length + 1,
          note: command.note ?? `restored from v${command.from}`,
          who: command.who,
          restoredFrom: command.from,
        };
        return [{ type: "ReportVersionPublished", data: version }];
      }
    }
  },
};

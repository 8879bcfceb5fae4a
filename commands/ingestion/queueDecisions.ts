import { z } from "zod";
import type { StoredEvent } from "../../db/eventStore.ts";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import type { Match } from "./patientMatching.ts";
import type { ReportKind } from "./reportKinds.ts";

export const claimInput = z.object({
  patientRef: z.string({ error: "patientRef is required: the patient this report belongs to" }).trim().min(1, "patientRef must not be empty"),
});

export const dismissInput = z.object({
  reason: z.string({ error: "reason is required: say why the report is set aside, e.g. 'not a dialysis patient'" }).trim().min(1, "reason must not be empty").max(500),
});

export interface QueuedReport {
  exists: boolean;
  match: Match | null;
  dismissed: boolean;
}

export type QueueDecision =
  | { type: "claim"; patientRef: string; by: string; auto: boolean }
  | { type: "dismiss"; reason: string; by: string };

/** Claiming and dismissing a report waiting in the unmatched queue (contract C.4). */
export function queueDecider(kind: ReportKind): Decider<QueuedReport, QueueDecision> {
  return {
    initialState: () => ({ exists: false, match: null, dismissed: false }),
    evolve: (state, event: StoredEvent) => {
      const data = event.data as { match?: Match; patientRef?: string };
      if (event.type === kind.events.received) return { exists: true, match: data.match ?? null, dismissed: false };
      if (event.type === kind.events.claimed) return { ...state, match: { matched: true, patientRef: data.patientRef!, idCard: state.match?.idCard ?? null }, dismissed: false };
      if (event.type === kind.events.dismissed) return { ...state, dismissed: true };
      return state;
    },
    decide: (decision, state) => {
      if (!state.exists) throw new CommandError("not-found", `There is no ${kind.name} report with this externalId; check the id in GET /api/unmatched.`);
      if (state.match?.matched) {
        if (decision.type === "claim" && decision.patientRef === state.match.patientRef) return [];
        throw new CommandError("conflict", `This report is already matched to patient ${state.match.patientRef}; only reports awaiting claim can be claimed or dismissed.`);
      }
      if (decision.type === "dismiss") {
        return state.dismissed ? [] : [{ type: kind.events.dismissed, data: { reason: decision.reason, by: decision.by } }];
      }
      return [{ type: kind.events.claimed, data: { patientRef: decision.patientRef, idCard: state.match?.idCard ?? null, by: decision.by, auto: decision.auto } }];
    },
  };
}

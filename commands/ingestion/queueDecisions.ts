import { z } from "zod";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import type { ReportStreamEvent } from "./events.ts";
import type { ReportKind } from "./reportKinds.ts";
import { evolveReportStream, initialReportStreamState, type ReportStreamState } from "./reportStreamState.ts";

export const claimInput = z.object({
  patientRef: z.string({ error: "patientRef is required: the patient this report belongs to" }).trim().min(1, "patientRef must not be empty"),
});

export const dismissInput = z.object({
  reason: z.string({ error: "reason is required: say why the report is set aside, e.g. 'not a dialysis patient'" }).trim().min(1, "reason must not be empty").max(500),
});

export type QueueDecision =
  /** `idCard`: the one the claim matched by (auto-claim); a person's claim keeps the report's. */
  | { type: "claim"; patientRef: string; by: string; auto: boolean; idCard?: string }
  | { type: "dismiss"; reason: string; by: string };

/** Claiming and dismissing a report waiting in the unmatched queue (contract C.4). */
export function queueDecider(kind: ReportKind): Decider<ReportStreamState, QueueDecision, ReportStreamEvent> {
  return {
    initialState: initialReportStreamState,
    evolve: evolveReportStream,
    decide: (decision, state) => {
      // Auto-claim takes only a report that still waits, so a replay finds its earlier claims made and decides nothing.
      if (decision.type === "claim" && decision.auto && (!state.received || state.match?.matched || state.dismissed)) return [];
      if (!state.received) throw new CommandError("not-found", `There is no ${kind.name} report with this externalId; check the id in GET /api/unmatched.`, "report-not-found");
      if (state.match?.matched) {
        if (decision.type === "claim" && decision.patientRef === state.match.patientRef) return [];
        throw new CommandError("conflict", `This report is already matched to patient ${state.match.patientRef}; only reports awaiting claim can be claimed or dismissed.`, "report-already-matched");
      }
      if (decision.type === "dismiss") {
        return state.dismissed ? [] : [{ type: kind.events.dismissed, data: { reason: decision.reason, by: decision.by } }];
      }
      return [{ type: kind.events.claimed, data: { patientRef: decision.patientRef, idCard: decision.idCard ?? state.match?.idCard ?? null, by: decision.by, auto: decision.auto } }];
    },
  };
}

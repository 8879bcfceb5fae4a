import { z } from "zod";
import type { AppendResult } from "../../db/eventStore.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { handleCommand } from "../kit/handleCommand.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { evolveCriticalResults, initialCriticalResultsState, type CriticalResultsState } from "./criticalResults.ts";
import { criticalResultsStreams, type CriticalResultEvent } from "./events.ts";

/** `POST /api/alerts/{alertId}/acknowledge`: who saw the critical result, and what was done. */
export const acknowledgeInput = z.strictObject(
  {
    note: z
      .string({ error: "note is required: say what was done (e.g. 'Dr. Li informed, K repeated')" })
      .trim()
      .min(1, "note is required: say what was done (e.g. 'Dr. Li informed, K repeated')")
      .max(1000, "note has at most 1000 characters")
      .meta({ example: "Dr. Li informed at 10:40; potassium repeated, dialysate K lowered" }),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? "Send only { note }" : undefined) },
);

interface Acknowledge {
  alertId: string;
  note: string;
  by: string;
}

/** An alert is acknowledged once: acknowledging it again changes nothing and is no error (a second click, a second nurse). */
const acknowledgeDecider: Decider<CriticalResultsState, Acknowledge, CriticalResultEvent> = {
  initialState: initialCriticalResultsState,
  evolve: evolveCriticalResults,
  decide: ({ alertId, note, by }, state) => {
    const alert = state.alerts.find((candidate) => candidate.alertId === alertId);
    if (!alert)
      throw new CommandError("not-found", `No alert ${alertId}; GET /api/alerts lists them.`, "alert-not-found");
    if (alert.acknowledged) return [];
    // One result, one acknowledgement (contract F.3 as amended): a change carried by its result's
    // critical alert is acknowledged there; information asks for none.
    if (alert.handledAs)
      throw new CommandError(
        "conflict",
        alert.handledAs === "critical"
          ? `Alert ${alertId} is the change of a critical result: acknowledge the result's critical alert, which carries it (GET /api/alerts?kind=CRITICAL).`
          : `Alert ${alertId} is information (a value back inside the reference range): it needs no acknowledgement.`,
        "alert-needs-no-acknowledgement",
      );
    return [{ type: "CriticalResultAcknowledged", data: { alertId, note, by } }];
  },
};

/** Acknowledges an alert of the report `externalId` (the alert's stream); what was appended, or null when it was acknowledged already. */
export async function acknowledgeAlert(
  ctx: CommandContext,
  tenant: string,
  externalId: string,
  alertId: string,
  note: string,
): Promise<AppendResult | null> {
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: criticalResultsStreams.id(externalId) },
    acknowledgeDecider,
    { alertId, note, by: ctx.metadata.actor },
    ctx.metadata,
  );
  return appended;
}

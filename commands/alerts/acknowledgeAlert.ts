import { z } from "zod";
import type { AppendResult } from "../../db/eventStore.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { handleCommand } from "../kit/handleCommand.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { evolveCriticalResults, initialCriticalResultsState, type CriticalResultsState } from "./criticalResults.ts";
import {
  criticalResultsStreams,
  ESCALATION_POLICY_KEY,
  escalationPolicyStreams,
  type CriticalResultEvent,
  type EscalationPolicyEvent,
} from "./events.ts";
import { readStream } from "../../db/eventStore.ts";
import { foldEscalationPolicy } from "./setEscalationPolicy.ts";

/** `POST /api/alerts/{alertId}/acknowledge`: who saw the critical result, and what was done. */
export const acknowledgeInput = z.strictObject(
  {
    note: z
      .string({ error: "note is required: say what was done (e.g. 'Dr. Li informed, K repeated')" })
      .trim()
      .min(1, "note is required: say what was done (e.g. 'Dr. Li informed, K repeated')")
      .max(1000, "note has at most 1000 characters")
      .meta({ example: "Dr. Li informed at 10:40; potassium repeated, dialysate K lowered" }),
    notified: z
      .strictObject(
        {
          name: z
            .string({ error: "notified.name is the name of the person you told" })
            .trim()
            .min(1, "notified.name is the name of the person you told")
            .max(200, "notified.name has at most 200 characters"),
          role: z
            .string({ error: "notified.role is their role, e.g. doctor on call" })
            .trim()
            .min(1, "notified.role is their role, e.g. doctor on call")
            .max(100, "notified.role has at most 100 characters"),
        },
        { error: (issue) => (issue.code === "unrecognized_keys" ? "notified is { name, role }" : undefined) },
      )
      .optional()
      .meta({
        description: "Whom you told of the value (contract G.3)",
        example: { name: "Dr. Li", role: "doctor on call" },
      }),
    readBack: z
      .strictObject(
        {
          value: z
            .union([z.number(), z.string().trim().min(1).max(100)], {
              error: "readBack.value is the value as you read it back, e.g. 6.9",
            })
            .meta({ example: 6.9 }),
        },
        { error: (issue) => (issue.code === "unrecognized_keys" ? "readBack is { value }" : undefined) },
      )
      .optional()
      .meta({
        description:
          "The value as read back to whoever told you (contract G.3): it must equal the alert's value in its unit, else 422 read-back-mismatch (recorded). Required when the tenant's escalation policy has readBackRequired",
      }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "Send only { note, notified?: { name, role }, readBack?: { value } }"
        : undefined,
  },
);

type AcknowledgeBody = z.infer<typeof acknowledgeInput>;

interface Acknowledge extends AcknowledgeBody {
  alertId: string;
  by: string;
  readBackRequired: boolean;
}

/**
 * Whether a value read back is the alert's, in its unit: numbers by their value (6.90 is 6.9), a
 * text result (">100", "阳性") by its letters, ignoring case and surrounding spaces.
 */
export function readBackMatches(readBack: number | string, value: number | string): boolean {
  const number = (v: number | string) =>
    typeof v === "number" ? v : /^[+-]?(\d+\.?\d*|\.\d+)$/.test(v.trim()) ? Number(v) : null;
  const [said, raised] = [number(readBack), number(value)];
  if (said !== null && raised !== null) return Math.abs(said - raised) <= 1e-9 * Math.max(1, Math.abs(raised));
  return String(readBack).trim().toLowerCase() === String(value).trim().toLowerCase();
}

/** An alert is acknowledged once: acknowledging it again changes nothing and is no error (a second click, a second nurse). */
const acknowledgeDecider: Decider<CriticalResultsState, Acknowledge, CriticalResultEvent> = {
  initialState: initialCriticalResultsState,
  evolve: evolveCriticalResults,
  decide: ({ alertId, note, by, notified, readBack, readBackRequired }, state) => {
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
    if (!readBack && readBackRequired)
      throw new CommandError(
        "unprocessable",
        "This unit asks for a read-back: send readBack: { value } with the value as you read it back to whoever told you (e.g. 6.9), and notified: { name, role }.",
        "read-back-required",
      );
    if (readBack && !readBackMatches(readBack.value, alert.value))
      return [
        {
          type: "AlertReadBackRefused",
          data: { alertId, value: readBack.value, expected: alert.value, by, ...(notified ? { notified } : {}) },
        },
      ];
    return [
      {
        type: "CriticalResultAcknowledged",
        data: {
          alertId,
          note,
          by,
          ...(notified ? { notified } : {}),
          ...(readBack ? { readBack: { value: readBack.value, matched: true as const } } : {}),
        },
      },
    ];
  },
};

/**
 * Acknowledges an alert of the report `externalId` (the alert's stream); what was appended, or
 * null when it was acknowledged already. A value read back that is not the alert's is recorded
 * (AlertReadBackRefused) and then refused.
 */
export async function acknowledgeAlert(
  ctx: CommandContext,
  tenant: string,
  externalId: string,
  alertId: string,
  body: AcknowledgeBody,
): Promise<AppendResult | null> {
  const policy = await readStream<EscalationPolicyEvent>(
    ctx.store.db,
    tenant,
    escalationPolicyStreams.id(ESCALATION_POLICY_KEY),
  );
  const { readBackRequired } = policy.events.reduce(foldEscalationPolicy.evolve, foldEscalationPolicy.initialState())
    .policy ?? { readBackRequired: false };
  const { appended, events } = await handleCommand(
    ctx.store,
    { tenant, streamId: criticalResultsStreams.id(externalId) },
    acknowledgeDecider,
    { alertId, ...body, by: ctx.metadata.actor, readBackRequired },
    ctx.metadata,
  );
  const refused = events.find((event) => event.type === "AlertReadBackRefused");
  if (refused)
    throw new CommandError(
      "unprocessable",
      `The value read back, ${JSON.stringify(refused.data.value)}, does not match the alert's ${refused.data.expected}` +
        ` (in its unit): read the result again from the report and read back that value. The attempt is recorded.`,
      "read-back-mismatch",
    );
  return appended;
}

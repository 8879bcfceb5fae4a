import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { WARD_PATTERN } from "../../db/wardScope.ts";
import type { AppendResult } from "../../db/eventStore.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { handleCommand, type Decider } from "../kit/handleCommand.ts";
import {
  ESCALATION_POLICY_KEY,
  escalationPolicyStreams,
  type EscalationPolicy,
  type EscalationPolicyEvent,
} from "./events.ts";

/*
 * Contract G.3: whom a critical value is told to, and after how many minutes without an
 * acknowledgement, per ward and `*` (every ward without steps of its own); and whether an
 * acknowledgement must read the value back. The PUT replaces the whole policy; an alert keeps the
 * steps in force when it was raised.
 */

/** A week: a step later than that is a typing mistake (minutes for hours), not an escalation. */
export const MAX_AFTER_MINUTES = 7 * 24 * 60;
const MAX_STEPS = 10;
const MAX_TARGETS = 20;
const MAX_WARDS = 500;

const emailTarget = z.strictObject(
  {
    channel: z.literal("email"),
    to: z
      .email({ error: "to is one mail address, e.g. nurse.station@hospital.example" })
      .max(254, "to has at most 254 characters")
      .meta({ example: "ward-a-nurses@hospital.example" }),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? 'A mail target is { channel: "email", to }' : undefined) },
);

const webhookTarget = z.strictObject(
  {
    channel: z.literal("webhook"),
    url: z
      .url({
        protocol: /^https?$/,
        error: "url is an http:// or https:// address, e.g. https://pager.hospital.example/hooks",
      })
      .max(2000, "url has at most 2000 characters")
      .meta({ example: "https://pager.hospital.example/hooks/critical" }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? 'A webhook target is { channel: "webhook", url }' : undefined,
  },
);

export const notifyTargetSchema = z.discriminatedUnion("channel", [emailTarget, webhookTarget], {
  error: 'channel is "email" (with to) or "webhook" (with url)',
});

export const escalationStepSchema = z.strictObject(
  {
    afterMinutes: z
      .number({ error: "afterMinutes is a number of minutes without an acknowledgement, 0 for at once" })
      .min(0, "afterMinutes is 0 (at once) or more")
      .max(MAX_AFTER_MINUTES, `afterMinutes is at most ${MAX_AFTER_MINUTES} (a week)`)
      .meta({
        description: "Minutes after the alert was raised, if nobody acknowledged it; fractions allowed",
        example: 15,
      }),
    notify: z
      .array(notifyTargetSchema, {
        error: 'notify is a list of targets: { channel: "email", to } or { channel: "webhook", url }',
      })
      .min(1, "notify names at least one target")
      .max(MAX_TARGETS, `notify names at most ${MAX_TARGETS} targets`),
  },
  {
    error: (issue) => (issue.code === "unrecognized_keys" ? "A step is { afterMinutes, notify: [ … ] }" : undefined),
  },
);

const wardKey = z
  .string()
  .refine(
    (ward) => ward === "*" || WARD_PATTERN.test(ward),
    "a ward has 1 to 64 characters and no control characters; * is every other ward",
  );

const stepsSchema = z
  .array(escalationStepSchema, { error: "a ward's steps are a list: [ { afterMinutes, notify } ]" })
  .max(MAX_STEPS, `a ward has at most ${MAX_STEPS} steps`)
  .refine(
    (steps) => steps.every((step, i) => i === 0 || steps[i - 1]!.afterMinutes <= step.afterMinutes),
    "list a ward's steps in the order of their afterMinutes, the first to be sent first",
  );

export const escalationPolicyInput = z.strictObject(
  {
    wards: z
      .record(wardKey, stepsSchema, { error: 'wards is an object: { "<ward>" or "*": [ steps ] }' })
      .refine((wards) => Object.keys(wards).length <= MAX_WARDS, `wards names at most ${MAX_WARDS} wards`)
      .default({})
      .meta({
        description:
          "Steps per ward; `*` for every ward without steps of its own (and patients without a ward). An empty list: no escalation for that ward",
        example: {
          A: [
            { afterMinutes: 0, notify: [{ channel: "email", to: "ward-a-nurses@hospital.example" }] },
            { afterMinutes: 15, notify: [{ channel: "email", to: "doctor-on-call@hospital.example" }] },
          ],
          "*": [
            { afterMinutes: 5, notify: [{ channel: "webhook", url: "https://pager.hospital.example/hooks/critical" }] },
          ],
        },
      }),
    readBackRequired: z.boolean({ error: "readBackRequired is true or false" }).default(false).meta({
      description: "true: an acknowledgement must read the value back (readBack.value), and a wrong one is refused",
    }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "Send { wards, readBackRequired }: the whole policy, which replaces the one in force"
        : undefined,
  },
);

export interface EscalationPolicyState {
  policy: EscalationPolicy | null;
}

const policyDecider: Decider<EscalationPolicyState, { policy: EscalationPolicy; by: string }, EscalationPolicyEvent> = {
  initialState: () => ({ policy: null }),
  evolve: (_state, event) => ({ policy: { wards: event.data.wards, readBackRequired: event.data.readBackRequired } }),
  // Putting the policy in force again changes nothing: no event.
  decide: ({ policy, by }, state) =>
    state.policy && isDeepStrictEqual(state.policy, policy)
      ? []
      : [{ type: "EscalationPolicySet", data: { ...policy, by } }],
};

/** Replaces the tenant's escalation policy; what was appended, or null when it was in force already. */
export async function setEscalationPolicy(
  ctx: CommandContext,
  tenant: string,
  policy: EscalationPolicy,
): Promise<AppendResult | null> {
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: escalationPolicyStreams.id(ESCALATION_POLICY_KEY) },
    policyDecider,
    { policy, by: ctx.metadata.actor },
    ctx.metadata,
  );
  return appended;
}

/** The policy in force as the stream's events fold it (the acknowledgement's read-back rule reads it). */
export const foldEscalationPolicy = policyDecider;

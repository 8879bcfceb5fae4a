import { z } from "zod";
import {
  ESCALATION_POLICY_KEY,
  escalationPolicyStreams,
  type EscalationPolicy,
  type EscalationPolicySet,
} from "../../commands/alerts/events.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";
import type { Queryable } from "../../db/eventStore.ts";

/** `GET /api/alerts/escalation` (contract G.3): the policy in force, and who put it there when. */
export const escalationPolicyAnswer = z.object({
  wards: z.record(
    z.string(),
    z.array(
      z.object({
        afterMinutes: z.number(),
        notify: z.array(
          z.union([
            z.object({ channel: z.literal("email"), to: z.string() }),
            z.object({ channel: z.literal("webhook"), url: z.string() }),
          ]),
        ),
      }),
    ),
  ),
  readBackRequired: z.boolean(),
  setAt: localIsoDateTimeText.optional().meta({ description: "When the policy was put in force; absent: never set" }),
  setBy: z.string().optional().meta({ description: "Who put it in force" }),
});
export type EscalationPolicyAnswer = z.infer<typeof escalationPolicyAnswer>;

/** No policy set: nobody is told by mail or webhook, and no read-back is asked for. */
export const NO_POLICY: EscalationPolicy = { wards: {}, readBackRequired: false };

/**
 * The tenant's policy in force: the last one put, read from its stream in the store (one small
 * stream a tenant, as a report's history is read), so that it is in force the moment it is put.
 */
export async function escalationPolicy(db: Queryable, tenant: string): Promise<EscalationPolicyAnswer> {
  const { rows } = await db.query<{ data: EscalationPolicySet["data"]; recorded_at: Date }>(
    "select data, recorded_at from events where tenant = $1 and stream_id = $2 order by stream_version desc limit 1",
    [tenant, escalationPolicyStreams.id(ESCALATION_POLICY_KEY)],
  );
  const last = rows[0];
  if (!last) return { ...NO_POLICY };
  return {
    wards: last.data.wards,
    readBackRequired: last.data.readBackRequired,
    setAt: localIsoDateTime(last.recorded_at),
    setBy: last.data.by,
  };
}

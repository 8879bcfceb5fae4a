import Router from "@koa/router";
import { escalationPolicyInput, setEscalationPolicy } from "../../commands/alerts/setEscalationPolicy.ts";
import type { EscalationPolicy } from "../../commands/alerts/events.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { escalationPolicy } from "../../queries/alerts/escalationPolicy.ts";
import { timeliness } from "../../queries/alerts/timeliness.ts";
import { wardKnown } from "../../queries/quality/monthFacts.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { MONTH_PATTERN } from "../../commands/quality/events.ts";
import { z } from "zod";
import { currentMonth, noSuchWard, wardAsked } from "../quality/qualityParams.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { commandContextOf } from "../http/requestState.ts";
import { parseBody } from "../http/validate.ts";
import { refusedTargetReason, resolvesToRefused } from "./webhookTarget.ts";

export interface EscalationRouteDeps {
  store: EventStore;
  adminToken: string | undefined;
  /** ALERT_WEBHOOK_ALLOW_PRIVATE=1: a receiver on this host or a link-local address is meant. */
  allowPrivateWebhooks: boolean;
  /** Whether ALERT_WEBHOOK_SECRET is set: escalation webhooks are signed with it (contract G.3). */
  webhookSecretSet: boolean;
}

/** `GET /api/alerts/timeliness?month=&ward=`: the month and, left out, the whole tenant. */
export const timelinessQuery = z.strictObject(
  {
    month: z
      .string({ error: "month is required: yyyy-MM, e.g. 2026-10" })
      .regex(MONTH_PATTERN, "month is written yyyy-MM, e.g. 2026-10")
      .meta({ description: "The month the alerts were raised in (the service's time zone)", example: "2026-10" }),
    ward: z
      .string({ error: "ward is one ward's name, sent once" })
      .min(1)
      .max(64)
      .optional()
      .meta({ description: "The alerts of the patients now in this ward; left out, the whole tenant's" }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? "The query parameters are month (yyyy-MM) and ward" : undefined,
  },
);

/** Contract G.3: the tenant's escalation policy (admin), and the month's timeliness (clinician). */
export function escalationRoutes(deps: EscalationRouteDeps): Router {
  const router = new Router({ prefix: "/api/alerts" });
  const admin = requireRole(deps.adminToken, "admin");

  router.get("/escalation", admin, async (ctx) => {
    ctx.body = await escalationPolicy(deps.store.db, ctx.state.tenant);
  });

  router.get("/timeliness", requireRole(deps.adminToken, "clinician"), async (ctx) => {
    const query = parseBody(timelinessQuery, ctx.query);
    if (query.month > currentMonth())
      throw new HttpError(
        400,
        `month ${query.month} has not begun; ask for ${currentMonth()} or an earlier one.`,
        {},
        "month-invalid",
      );
    const ward = wardAsked(ctx, query.ward);
    ctx.body = await readAsTenant(deps.store.db, ctx.state.tenant, async (reader) => {
      if (ward !== null && !(await wardKnown(reader, ward))) throw noSuchWard(ward);
      return timeliness(reader, { month: query.month, ward });
    });
  });

  router.put("/escalation", admin, async (ctx) => {
    const policy: EscalationPolicy = parseBody(escalationPolicyInput, ctx.request.body);
    await checkWebhooks(policy, deps);
    await setEscalationPolicy(commandContextOf(ctx, deps.store), ctx.state.tenant, policy);
    ctx.body = await escalationPolicy(deps.store.db, ctx.state.tenant);
  });
  return router;
}

/**
 * The alert webhook's address rules (contract G.3), when the policy is saved: a signed body with a
 * patient's name and value goes to no address of this machine, link-local or a cloud's metadata
 * service, as written or as its name resolves now (delivery checks again).
 */
async function checkWebhooks(policy: EscalationPolicy, deps: EscalationRouteDeps): Promise<void> {
  for (const [ward, steps] of Object.entries(policy.wards)) {
    for (const [i, step] of steps.entries()) {
      for (const [j, target] of step.notify.entries()) {
        if (target.channel !== "webhook") continue;
        const where = `wards[${JSON.stringify(ward)}][${i}].notify[${j}].url`;
        if (!deps.webhookSecretSet)
          throw new HttpError(
            400,
            `${where}: webhooks are signed with the service's ALERT_WEBHOOK_SECRET, which is not set; ask the operator to set it, or notify by email`,
          );
        if (deps.allowPrivateWebhooks) continue;
        const refused = refusedTargetReason(target.url) ?? (await resolvesToRefused(target.url));
        if (refused)
          throw new HttpError(
            400,
            `${where}: points at this machine, a link-local address or a cloud's metadata service (${refused}); ` +
              "a webhook goes to another system's receiver (the operator's ALERT_WEBHOOK_ALLOW_PRIVATE=1 allows one on this host)",
          );
      }
    }
  }
}

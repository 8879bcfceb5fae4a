import Router from "@koa/router";
import { z } from "zod";
import { STAFF_ROLES, isStaffRole } from "../../commands/credentials/staffRoles.ts";
import { requireRole } from "../http/authorAuth.ts";
import { principalOf } from "../http/requestState.ts";

/** What `GET /api/me` answers: the caller as the service sees it, so a page can offer what its roles allow. */
export const callerAnswer = z.object({
  who: z.string().meta({ description: "The name every event and access record of the caller shows" }),
  credential: z.enum(["admin-token", "author-token", "staff-session"]),
  tenant: z
    .string()
    .meta({ description: "The tenant the caller acts in (the credential's, or X-Service-Tenant for the operator)" }),
  roles: z.array(z.enum(STAFF_ROLES)),
  wards: z
    .array(z.string())
    .nullable()
    .meta({ description: "The wards whose patients the caller sees; null: every ward" }),
});

/**
 * `GET /api/me`: who the credential of the call is (contract E.2). Not in the contract; the staff
 * pages read it after a token sign-in, to show the person's name and roles and to hide what the
 * roles do not allow (the server still refuses it). Any role may ask.
 */
export function callerRoutes(adminToken: string | undefined): Router {
  const router = new Router();
  router.get("/api/me", requireRole(adminToken, "viewer"), (ctx) => {
    const caller = principalOf(ctx);
    if (caller.credential === "client-key") throw new Error("a client key cannot pass requireRole");
    ctx.set("Cache-Control", "no-store");
    ctx.body = {
      who: caller.who,
      credential: caller.credential,
      tenant: caller.tenant ?? ctx.state.tenant,
      roles: caller.roles.filter(isStaffRole),
      wards: caller.wards === null ? null : [...caller.wards],
    } satisfies z.infer<typeof callerAnswer>;
  });
  return router;
}

import type { Middleware } from "koa";
import type { Db } from "../../../db/pool.ts";
import { clientByKey } from "../../../queries/credentials/credentials.ts";
import { bearerToken } from "../../http/adminAuth.ts";
import { HttpError } from "../../http/httpError.ts";

/**
 * The sending system's key decides the tenant; an X-Service-Tenant header, when the proxy sets
 * one, must agree with it. The client is looked up on every call, so a revoked key fails at once.
 */
export function requireClient(db: Db): Middleware {
  return async (ctx, next) => {
    const key = bearerToken(ctx.get("authorization"));
    if (!key) throw new HttpError(401, "Send your client key as 'Authorization: Bearer <key>'; the administrator issues keys.");
    const client = await clientByKey(db, key);
    if (!client) throw new HttpError(401, "This client key is unknown or revoked; ask the administrator for a valid key.");
    const header = ctx.get("x-service-tenant");
    if (header && header !== client.tenant) {
      throw new HttpError(403, "This key belongs to another tenant than X-Service-Tenant; use the key issued for this tenant.");
    }
    ctx.state.principal = { credential: "client-key", who: client.name, tenant: client.tenant, roles: ["sender"], client };
    ctx.state.tenant = client.tenant;
    await next();
  };
}

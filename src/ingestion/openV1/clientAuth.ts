import type { Middleware } from "koa";
import { credentialCheckOf, endedCredential } from "../../credentials/credentialCheck.ts";
import { bearerToken } from "../../http/adminAuth.ts";
import { HttpError } from "../../http/httpError.ts";

/**
 * The sending system's key decides the tenant; an X-Service-Tenant header, when the proxy sets
 * one, must agree with it. The client is looked up on every call, so a revoked key fails at once.
 */
export function requireClient(): Middleware {
  return async (ctx, next) => {
    const key = bearerToken(ctx.get("authorization"));
    if (!key)
      throw new HttpError(401, "Send your client key as 'Authorization: Bearer <key>'; the administrator issues keys.");
    const found = await credentialCheckOf(ctx).client(key);
    if (found.status === "expired" || found.status === "replaced")
      throw new HttpError(401, endedCredential(found, "client key"));
    if (found.status === "unknown")
      throw new HttpError(401, "This client key is unknown or revoked; ask the administrator for a valid key.");
    const client = found.credential;
    const header = ctx.get("x-service-tenant");
    if (header && header !== client.tenant) {
      throw new HttpError(
        403,
        "This key belongs to another tenant than X-Service-Tenant; use the key issued for this tenant.",
      );
    }
    ctx.state.principal = {
      credential: "client-key",
      who: client.name,
      tenant: client.tenant,
      roles: ["sender"],
      wards: null,
      client,
    };
    ctx.state.tenant = client.tenant;
    await next();
  };
}

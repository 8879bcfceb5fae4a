import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, Middleware } from "koa";
import type { Db } from "../../db/pool.ts";
import { authorByToken } from "../../queries/credentials/credentials.ts";
import { bearerToken } from "./adminAuth.ts";
import { HttpError } from "./httpError.ts";
import { OPERATOR, type Principal } from "./requestState.ts";

/** Who a bearer token names: the operator, an author, or nobody. */
function callerIdentifier(db: Db, adminToken: string | undefined): (token: string) => Promise<Principal | null> {
  const adminDigest = adminToken ? createHash("sha256").update(adminToken).digest() : null;
  return async (token) => {
    if (adminDigest && timingSafeEqual(createHash("sha256").update(token).digest(), adminDigest)) return OPERATOR;
    const author = await authorByToken(db, token);
    return author ? { credential: "author-token", who: author.name, tenant: author.tenant, roles: ["author"] } : null;
  };
}

/**
 * On a route anyone may call (viewing): the author of the request's tenant (or the operator) when
 * the request carries their token, else null. A missing, wrong or other tenant's token only means
 * the caller is a viewer: viewing never fails for a token.
 */
export function authorIfAny(db: Db, adminToken: string | undefined): (ctx: Context) => Promise<Principal | null> {
  const identify = callerIdentifier(db, adminToken);
  return async (ctx) => {
    const token = bearerToken(ctx.get("authorization"));
    const caller = token ? await identify(token) : null;
    return caller && (caller.tenant === null || caller.tenant === ctx.state.tenant) ? caller : null;
  };
}

/**
 * Authoring and patient calls: an author token of the request's tenant, or the ADMIN_TOKEN.
 * `ctx.state.principal` names who acts, for the events' metadata (requestState.ts).
 */
export function requireAuthor(db: Db, adminToken: string | undefined): Middleware {
  const identify = callerIdentifier(db, adminToken);
  return async (ctx, next) => {
    const token = bearerToken(ctx.get("authorization"));
    if (!token) throw new HttpError(401, "Send an author token (or the ADMIN_TOKEN) as 'Authorization: Bearer <token>'.");
    const caller = await identify(token);
    if (!caller) throw new HttpError(401, "The token is not valid; ask the administrator for an author token.");
    if (caller.tenant !== null && caller.tenant !== ctx.state.tenant) {
      throw new HttpError(403, `This token belongs to another tenant; send X-Service-Tenant: ${caller.tenant} or use a token of tenant ${ctx.state.tenant}.`);
    }
    ctx.state.principal = caller;
    await next();
  };
}

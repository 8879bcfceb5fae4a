import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, Middleware } from "koa";
import type { Db } from "../../db/pool.ts";
import { credentialCheckOf, endedCredential } from "../credentials/credentialCheck.ts";
import { bearerToken } from "./adminAuth.ts";
import { HttpError } from "./httpError.ts";
import { OPERATOR, type Principal } from "./requestState.ts";

/** Who a bearer token names: the operator, an author, or nobody (with the sentence for an author token that no longer works). */
function callerIdentifier(adminToken: string | undefined): (ctx: Context, token: string) => Promise<Principal | { refused: string | null }> {
  const adminDigest = adminToken ? createHash("sha256").update(adminToken).digest() : null;
  return async (ctx, token) => {
    if (adminDigest && timingSafeEqual(createHash("sha256").update(token).digest(), adminDigest)) return OPERATOR;
    const found = await credentialCheckOf(ctx).author(token);
    switch (found.status) {
      case "valid":
        return { credential: "author-token", who: found.credential.name, tenant: found.credential.tenant, roles: ["author"] };
      case "expired":
      case "replaced":
        return { refused: endedCredential(found, "author token") };
      case "unknown":
        return { refused: null };
    }
  };
}

/*
 * Both take the database for their callers' sake only: since contract E.3 the look-up comes with
 * the request (ctx.state.credentials, offered by the interface's chain), as it needs the
 * deployment's hasher and notes each use. The parameter goes once every caller stops passing it.
 */

/**
 * On a route anyone may call (viewing): the author of the request's tenant (or the operator) when
 * the request carries their token, else null. A missing, wrong, expired or other tenant's token
 * only means the caller is a viewer: viewing never fails for a token.
 */
export function authorIfAny(_db: Db, adminToken: string | undefined): (ctx: Context) => Promise<Principal | null> {
  const identify = callerIdentifier(adminToken);
  return async (ctx) => {
    const token = bearerToken(ctx.get("authorization"));
    const caller = token ? await identify(ctx, token) : null;
    return caller && !("refused" in caller) && (caller.tenant === null || caller.tenant === ctx.state.tenant) ? caller : null;
  };
}

/**
 * Authoring and patient calls: an author token of the request's tenant, or the ADMIN_TOKEN.
 * `ctx.state.principal` names who acts, for the events' metadata (requestState.ts).
 */
export function requireAuthor(_db: Db, adminToken: string | undefined): Middleware {
  const identify = callerIdentifier(adminToken);
  return async (ctx, next) => {
    const token = bearerToken(ctx.get("authorization"));
    if (!token) throw new HttpError(401, "Send an author token (or the ADMIN_TOKEN) as 'Authorization: Bearer <token>'.");
    const caller = await identify(ctx, token);
    if ("refused" in caller) throw new HttpError(401, caller.refused ?? "The token is not valid; ask the administrator for an author token.");
    if (caller.tenant !== null && caller.tenant !== ctx.state.tenant) {
      throw new HttpError(403, `This token belongs to another tenant; send X-Service-Tenant: ${caller.tenant} or use a token of tenant ${ctx.state.tenant}.`);
    }
    ctx.state.principal = caller;
    await next();
  };
}

import { createHash, timingSafeEqual } from "node:crypto";
import type { Middleware } from "koa";
import type { Db } from "../../db/pool.ts";
import { authorByToken } from "../../queries/credentials.ts";
import { bearerToken } from "./adminAuth.ts";
import { HttpError } from "./httpError.ts";

export interface Caller {
  name: string;
  /** The tenant the credential belongs to; null for the operator's ADMIN_TOKEN (any tenant). */
  tenant: string | null;
}

/**
 * Authoring and patient calls: an author token of the request's tenant, or the ADMIN_TOKEN.
 * `ctx.state.caller` names who acts, for the events' metadata.
 */
export function requireAuthor(db: Db, adminToken: string | undefined): Middleware {
  const adminDigest = adminToken ? createHash("sha256").update(adminToken).digest() : null;
  return async (ctx, next) => {
    const token = bearerToken(ctx.get("authorization"));
    if (!token) throw new HttpError(401, "Send an author token (or the ADMIN_TOKEN) as 'Authorization: Bearer <token>'.");
    let caller: Caller | null = null;
    if (adminDigest && timingSafeEqual(createHash("sha256").update(token).digest(), adminDigest)) {
      caller = { name: "admin", tenant: null };
    } else {
      const author = await authorByToken(db, token);
      if (author) caller = { name: author.name, tenant: author.tenant };
    }
    if (!caller) throw new HttpError(401, "The token is not valid; ask the administrator for an author token.");
    if (caller.tenant !== null && caller.tenant !== ctx.state.tenant) {
      throw new HttpError(403, `This token belongs to another tenant; send X-Service-Tenant: ${caller.tenant} or use a token of tenant ${ctx.state.tenant}.`);
    }
    ctx.state.caller = caller;
    await next();
  };
}

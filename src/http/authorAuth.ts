import type { Context, Middleware } from "koa";
import { isStaffRole, rolesAllow, STAFF_ROLES, type StaffRole } from "../../commands/credentials/staffRoles.ts";
import type { ApiErrorCode } from "../../commands/kit/errorCodes.ts";
import { withWardScope } from "../../db/wardScope.ts";
import { credentialCheckOf, endedCredential } from "../credentials/credentialCheck.ts";
import { sessionCookieOf } from "../staffSessions/staffSessionRoutes.ts";
import type { SessionStore } from "../staffSessions/sessionStore.ts";
import { bearerToken, digest, sameSecret } from "./adminAuth.ts";
import { HttpError } from "./httpError.ts";
import { OPERATOR, type Principal } from "./requestState.ts";

/*
 * Who a staff call comes from, and whether they may make it (contract E.1, E.2), decided here
 * once for every route: a bearer token (the ADMIN_TOKEN or an author token), else a staff session
 * cookie. A route names the least role it needs (requireRole); the principal's wards scope every
 * read of the request (db/wardScope.ts), so no route has to remember them.
 */

type Identified = Principal | { refused: string | null; code: ApiErrorCode };

/** Who a bearer token names: the operator, an author, or nobody (with the sentence for an author token that no longer works). */
function tokenIdentifier(adminToken: string | undefined): (ctx: Context, token: string) => Promise<Identified> {
  const adminDigest = adminToken ? digest(adminToken) : null;
  return async (ctx, token) => {
    if (adminDigest && sameSecret(token, adminDigest)) return OPERATOR;
    const found = await credentialCheckOf(ctx).author(token);
    switch (found.status) {
      case "valid": {
        const { authorId, name, tenant, roles, wards } = found.credential;
        ctx.state.held = { kind: "secret", digests: credentialCheckOf(ctx).digestsOf(token) };
        return { credential: "author-token", who: name, tenant, roles: roles.filter(isStaffRole), wards, authorId };
      }
      case "expired":
      case "replaced":
        return { refused: endedCredential(found, "author token"), code: "token-expired" };
      case "unknown":
        return { refused: null, code: "token-invalid" };
    }
  };
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The person of the request's session cookie, or null. A state-changing call made with the
 * cookie must carry the session's CSRF token: a page of another site can make the browser send
 * the cookie, but cannot read the token (contract E.1).
 */
async function sessionCaller(ctx: Context, checkCsrf: boolean): Promise<Identified | null> {
  const cookie = sessionCookieOf(ctx);
  const sessions: SessionStore | undefined = ctx.state.sessions;
  if (!sessions) return null;
  // Without a cookie, an embed page's viewing call from a sandboxed frame may name the session that
  // opened the page (its embed token, checked by embedCors); never for a call that changes anything.
  const id = cookie ? sessions.idOf(cookie) : checkCsrf ? undefined : ctx.state.embedSession;
  if (!id) return null;
  const session = await sessions.touchById(id);
  if (!session)
    return {
      refused: "The session ended (idle too long, signed out, or past its hours); sign in again at /staff/login.",
      code: "session-ended",
    };
  if (checkCsrf && STATE_CHANGING.has(ctx.method) && ctx.get("x-csrf-token") !== session.csrf) {
    throw new HttpError(
      403,
      "A call made with the session cookie that changes something must send the session's csrf (GET /staff/session) as the X-CSRF-Token header.",
      {},
      "csrf-missing",
    );
  }
  ctx.state.held = { kind: "session", id };
  return {
    credential: "staff-session",
    who: session.name,
    tenant: session.tenant,
    roles: session.roles.filter(isStaffRole),
    wards: session.wards,
    sub: session.sub,
  };
}

/** Who a staff call comes from: its bearer token, else its session cookie; null when it carries neither. */
function callerIdentifier(
  adminToken: string | undefined,
): (ctx: Context, checkCsrf: boolean) => Promise<Identified | null> {
  const byToken = tokenIdentifier(adminToken);
  return async (ctx, checkCsrf) => {
    const token = bearerToken(ctx.get("authorization"));
    return token ? byToken(ctx, token) : sessionCaller(ctx, checkCsrf);
  };
}

/** The roles a route's caller may hold for it, for the sentence of a 403. */
function neededSentence(needed: StaffRole, held: readonly string[]): string {
  // integrator stands beside the ranks: only admin holds it besides (staffRoleRanks.ts).
  const enough =
    needed === "integrator" ? ["admin", "integrator"] : STAFF_ROLES.slice(0, STAFF_ROLES.indexOf(needed) + 1);
  return (
    `This call needs the role ${needed}${enough.length > 1 ? ` (or ${enough.slice(0, -1).join(" or ")})` : ""}; ` +
    `this caller has ${held.length ? held.join(", ") : "no role"}. Ask the administrator for it.`
  );
}

/**
 * A staff route's door: a caller of the request's tenant holding at least `needed` (contract
 * E.2), or the ADMIN_TOKEN. `ctx.state.principal` names who acts, for the events' metadata, and
 * the rest of the request reads only the patients of the caller's wards.
 */
export function requireRole(
  adminToken: string | undefined,
  needed: StaffRole,
  options: { checkCsrf: boolean } = { checkCsrf: true },
): Middleware {
  const identify = callerIdentifier(adminToken);
  return async (ctx, next) => {
    const caller = await identify(ctx, options.checkCsrf);
    if (!caller)
      throw new HttpError(
        401,
        "Send an author token (or the ADMIN_TOKEN) as 'Authorization: Bearer <token>', or sign in at /staff/login.",
        {},
        "credentials-missing",
      );
    if ("refused" in caller)
      throw new HttpError(
        401,
        caller.refused ?? "The token is not valid; ask the administrator for an author token.",
        {},
        caller.code,
      );
    if (caller.tenant !== null && caller.tenant !== ctx.state.tenant) {
      throw new HttpError(
        403,
        `This credential belongs to another tenant; send X-Service-Tenant: ${caller.tenant} or use one of tenant ${ctx.state.tenant}.`,
        {},
        "tenant-mismatch",
      );
    }
    if (!rolesAllow(caller.roles, needed))
      throw new HttpError(403, neededSentence(needed, caller.roles), {}, "role-needed");
    ctx.state.principal = caller;
    await withWardScope(caller.wards, next);
  };
}

/**
 * On a route anyone may call (viewing): the caller of the request's tenant (or the operator) when
 * the request carries a working token or session, else null. A missing, wrong, expired or other
 * tenant's credential only means the caller is a viewer: viewing never fails for a credential.
 */
export function authorIfAny(adminToken: string | undefined): (ctx: Context) => Promise<Principal | null> {
  const identify = callerIdentifier(adminToken);
  return async (ctx) => {
    const caller = await identify(ctx, false).catch(() => null);
    if (caller && !("refused" in caller) && (caller.tenant === null || caller.tenant === ctx.state.tenant))
      return caller;
    ctx.state.held = undefined; // a credential that does not count here is not one the answer holds
    return null;
  };
}

/** VIEWING_AUTH (contract G.1): `proxy`, the host's proxy guards viewing; `required`, a session or token. */
export type ViewingAuth = "proxy" | "required";

/**
 * The viewing calls' door (contract A.3, G.1). The caller a working session cookie or token names
 * (of this tenant, or the operator) is the request's principal in either mode: the access log
 * names the person and the report queries keep to their wards. With `required` a caller is needed,
 * holding a role that may view (401 or 403 otherwise); with `proxy` a call without one is answered
 * as before, for every ward, and a credential that no longer works only means no caller.
 */
export function viewingCaller(adminToken: string | undefined, mode: ViewingAuth): Middleware {
  const identify = callerIdentifier(adminToken);
  // Viewing calls change nothing (their POST bodies only carry filters), so a session cookie needs no CSRF token on them.
  // Every role may make them; a researcher only for reports of the research source (refuseBeyondResearch).
  const required = requireRole(adminToken, "researcher", { checkCsrf: false });
  return async (ctx, next) => {
    if (mode === "required") return required(ctx, next);
    const caller = await identify(ctx, false).catch(() => null);
    if (!caller || "refused" in caller || (caller.tenant !== null && caller.tenant !== ctx.state.tenant)) {
      ctx.state.held = undefined; // a credential that does not count here is not one the answer holds
      return next();
    }
    ctx.state.principal = caller;
    await withWardScope(caller.wards, next);
  };
}

/** Authoring calls (contract C.3): requireRole(…, "author"). */
export function requireAuthor(adminToken: string | undefined): Middleware {
  return requireRole(adminToken, "author");
}

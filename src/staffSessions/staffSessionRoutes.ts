import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { z } from "zod";
import { isStaffRole, STAFF_ROLES } from "../../commands/credentials/staffRoles.ts";
import { TENANT_PATTERN } from "../../db/tenantScope.ts";
import { WARD_PATTERN } from "../../db/wardScope.ts";
import { resolveTenant } from "../http/tenant.ts";
import { SignInRefused, type OidcRelyingParty } from "./oidcRelyingParty.ts";
import type { SessionStore, StaffSession } from "./sessionStore.ts";
import { SIGN_IN_COOKIE, SIGN_IN_COOKIE_PATH, SIGN_IN_MINUTES, type SignInSeal } from "./signInSeal.ts";
import { signInTenant } from "./signInTenant.ts";

export const SESSION_COOKIE = "dh_session";

/** What GET /staff/session answers. */
export const staffSessionAnswer = z.object({
  sub: z.string().meta({ description: "The provider's subject of the person" }),
  name: z.string().meta({ description: "Who, as every event and log record of the session names them" }),
  tenant: z.string(),
  roles: z.array(z.enum(STAFF_ROLES)),
  wards: z.array(z.string()).nullable().meta({ description: "null: every ward of the tenant" }),
  expiresAt: z.string().meta({
    description: "When the session ends if it stays idle (or at its absolute end)",
    example: "2026-11-27T09:30:00.000Z",
  }),
  csrf: z.string().meta({
    description:
      "Send as X-CSRF-Token with every state-changing call (POST, PUT, PATCH, DELETE) made with the session cookie",
  }),
});

function sessionAnswer(session: StaffSession): z.infer<typeof staffSessionAnswer> {
  const { sub, name, tenant, roles, wards, expiresAt, csrf } = session;
  return { sub, name, tenant, roles: roles.filter(isStaffRole), wards, expiresAt: expiresAt.toISOString(), csrf };
}

/**
 * Hands the sessions to the authentication of the routes below (src/http/authorAuth.ts): a session
 * cookie works where an author token does, within its roles.
 */
export function offerStaffSessions(sessions: SessionStore): Middleware {
  return (ctx, next) => {
    ctx.state.sessions = sessions;
    return next();
  };
}

/** The session cookie's value, when the request carries one. */
export function sessionCookieOf(ctx: Context): string | null {
  const value = ctx.cookies.get(SESSION_COOKIE);
  return value && /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : null;
}

/** What the sign-in routes need besides the log. */
export interface StaffSessionDeps {
  /** null: sign-in with a provider is not configured. */
  relyingParty: OidcRelyingParty | null;
  sessions: SessionStore;
  /** Seals a sign-in under way into its browser's pre-sign-in cookie. */
  signIns: SignInSeal;
  /** Whether the store holds a tenant besides this one (queries/tenants/storeTenants.ts). */
  holdsAnotherTenant: (tenant: string) => Promise<boolean>;
}

/**
 * Staff sign-in with the hospital's OpenID Provider (contract E.1): `/staff/login` sends the
 * browser there, `/staff/callback` takes it back with a session cookie, `/staff/session` says who
 * is signed in, `/staff/logout` ends it. Without a provider configured, sign-in stays the token of
 * the staff pages, and these answer so.
 */
export function staffSessionRoutes(deps: StaffSessionDeps & { log: Logger }): Router {
  const { relyingParty, sessions, signIns, log } = deps;
  const router = new Router({ prefix: "/staff" });
  const secure = relyingParty ? new URL(relyingParty.settings.publicUrl).protocol === "https:" : false;

  router.get("/login", resolveTenant(), async (ctx) => {
    if (!relyingParty) return refusePage(ctx, 404, NOT_CONFIGURED);
    // A link of the staff pages cannot send X-Service-Tenant: without the proxy's header, ?tenant= names it, as for GET /staff.
    const asked = ctx.get("x-service-tenant") === "" && typeof ctx.query.tenant === "string" ? ctx.query.tenant : null;
    if (asked !== null && !TENANT_PATTERN.test(asked)) return refusePage(ctx, 400, BAD_LINK_TENANT);
    const { url, pending } = await relyingParty.begin();
    // Nothing is written before the provider answers: the sign-in is kept by the browser that starts it.
    const sealed = signIns.seal({ ...pending, asked: asked ?? ctx.state.tenant });
    ctx.append(
      "Set-Cookie",
      cookieHeader(SIGN_IN_COOKIE, sealed, { path: SIGN_IN_COOKIE_PATH, secure, maxAgeSeconds: SIGN_IN_MINUTES * 60 }),
    );
    ctx.set("Cache-Control", "no-store");
    ctx.redirect(url);
  });

  router.get("/callback", async (ctx) => {
    if (!relyingParty) return refusePage(ctx, 404, NOT_CONFIGURED);
    ctx.set("Cache-Control", "no-store");
    const state = typeof ctx.query.state === "string" ? ctx.query.state : "";
    if (!state) return refusePage(ctx, 400, STALE_SIGN_IN);
    const pending = signIns.open(ctx.cookies.get(SIGN_IN_COOKIE), state);
    // Left in place: a link someone else sent must not end this browser's own sign-in under way.
    if (pending === "not-this-browser") return refusePage(ctx, 400, NOT_THIS_BROWSER);
    // Spent from here on, whatever the outcome: a state works once.
    ctx.append("Set-Cookie", cookieHeader(SIGN_IN_COOKIE, "", { path: SIGN_IN_COOKIE_PATH, secure, maxAgeSeconds: 0 }));
    if (pending === "stale") return refusePage(ctx, 400, STALE_SIGN_IN);
    let person;
    try {
      // The URL the provider sent the browser to, as the provider knows it (behind a proxy ctx.href is the internal one).
      person = await relyingParty.finish(new URL(`${relyingParty.redirectUri}?${ctx.querystring}`), pending);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      log.warn({ reason: error.message }, "a staff sign-in was refused");
      return refusePage(ctx, 400, REFUSED_SIGN_IN);
    }
    if (person.tenant !== null && !TENANT_PATTERN.test(person.tenant)) return refusePage(ctx, 400, BAD_TENANT);
    const tenant = await signInTenant({
      claimed: person.tenant,
      configured: relyingParty.settings.tenant,
      asked: pending.asked,
      holdsAnotherTenant: deps.holdsAnotherTenant,
    });
    if (tenant === null) {
      log.warn(
        { who: person.name, asked: pending.asked },
        "a staff sign-in was refused: the provider names no tenant, OIDC_TENANT is not set, and the store holds several tenants",
      );
      return refusePage(ctx, 400, NO_TENANT);
    }
    const roles = (person.roles ?? ["viewer"]).filter(isStaffRole);
    // A ward no patient could carry (too long, control characters) names none.
    const wards = person.wards?.filter((ward) => WARD_PATTERN.test(ward)) ?? null;
    const { cookie } = await sessions.open({
      sub: person.sub,
      name: person.name,
      tenant,
      roles,
      wards,
      idToken: person.idToken,
    });
    log.info({ who: person.name, tenant, roles }, "staff signed in");
    ctx.append("Set-Cookie", cookieHeader(SESSION_COOKIE, cookie, { path: "/", secure }));
    ctx.redirect(`${new URL(relyingParty.redirectUri).pathname.replace(/\/callback$/, "")}`);
  });

  router.get("/session", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    const cookie = sessionCookieOf(ctx);
    const session = cookie ? await sessions.touch(cookie) : null;
    if (!session) {
      ctx.status = 401;
      ctx.body = {
        error: relyingParty
          ? "Not signed in, or the session ended; sign in again at /staff/login."
          : "Sign-in with an identity provider is not configured; the staff pages take an author token.",
      };
      return;
    }
    ctx.body = sessionAnswer(session);
  });

  router.post("/logout", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    const cookie = sessionCookieOf(ctx);
    const session = cookie ? await sessions.touch(cookie) : null;
    if (!cookie || !session) {
      ctx.status = 401;
      ctx.body = { error: "Not signed in, or the session ended already." };
      return;
    }
    if (ctx.get("x-csrf-token") !== session.csrf) {
      ctx.status = 403;
      ctx.body = { error: "Send the session's csrf (GET /staff/session) as the X-CSRF-Token header." };
      return;
    }
    await sessions.end(cookie);
    log.info({ who: session.name, tenant: session.tenant }, "staff signed out");
    ctx.append("Set-Cookie", cookieHeader(SESSION_COOKIE, "", { path: "/", secure, maxAgeSeconds: 0 }));
    const endSession = relyingParty ? await relyingParty.endSessionUrl(session.idToken).catch(() => null) : null;
    if (endSession) ctx.set("Location", endSession);
    ctx.status = 204;
  });

  return router;
}

/** HttpOnly and SameSite=Lax (the provider's redirect back is a top-level GET, which Lax lets the cookie ride along). */
function cookieHeader(
  name: string,
  value: string,
  options: { path: string; secure: boolean; maxAgeSeconds?: number },
): string {
  const { path, secure, maxAgeSeconds } = options;
  return [
    `${name}=${value}`,
    `Path=${path}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
    ...(maxAgeSeconds !== undefined ? [`Max-Age=${maxAgeSeconds}`] : []),
  ].join("; ");
}

/** A short page in both languages: a person's browser lands on it, not a program. */
interface PageText {
  zh: string;
  en: string;
}
const NOT_CONFIGURED: PageText = {
  zh: "未配置身份提供方登录；请在员工页面使用令牌登录。",
  en: "Sign-in with an identity provider is not configured; sign in on the staff pages with a token.",
};
const STALE_SIGN_IN: PageText = {
  zh: "此登录链接已使用或已过期，请重新登录。",
  en: "This sign-in link was already used or has expired. Please sign in again.",
};
const NOT_THIS_BROWSER: PageText = {
  zh: "此登录不是在此浏览器中开始的（或已在此浏览器中重新开始、或已超过 15 分钟），未登录。请在此处重新登录。",
  en:
    "This sign-in was not started in this browser (or was started again here since, or took longer than 15 " +
    "minutes), so you are not signed in. Please sign in again here.",
};
const NO_TENANT: PageText = {
  zh: "身份提供方未给出所属机构，而本服务有多个机构，未登录。请管理员让身份提供方发送机构声明（OIDC_TENANT_CLAIM），或设置 OIDC_TENANT。",
  en:
    "The identity provider names no tenant for you and this service holds several, so you are not signed in. Ask " +
    "the administrator to have the provider send the tenant claim (OIDC_TENANT_CLAIM) or to set OIDC_TENANT.",
};
const REFUSED_SIGN_IN: PageText = {
  zh: "身份提供方的应答未通过验证，未登录。请重新登录；如仍失败请联系管理员。",
  en: "The identity provider's answer could not be verified, so you are not signed in. Please sign in again, or ask the administrator if it keeps failing.",
};
const BAD_LINK_TENANT: PageText = {
  zh: "登录链接中的机构标识无效（1–64 个字母、数字、_ 或 -）。",
  en: "The tenant in the sign-in link is not valid (1 to 64 letters, digits, '_' or '-').",
};
const BAD_TENANT: PageText = {
  zh: "身份提供方给出的机构标识无效，请联系管理员。",
  en: "The identity provider named a tenant this service cannot use; please ask the administrator.",
};

function refusePage(ctx: Context, status: number, text: PageText): void {
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.set("Cache-Control", "no-store");
  ctx.body =
    `<!doctype html><html lang="zh"><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width, initial-scale=1"><title>登录 Sign in</title></head><body><main><h1>登录 · Sign ` +
    `in</h1><p>${text.zh}</p><p lang="en">${text.en}</p><p><a href="/staff/login">重新登录 · Sign in ` +
    "again</a></p></main></body></html>";
}

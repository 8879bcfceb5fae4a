import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Middleware } from "koa";

/**
 * The embed page inside a sandboxed iframe (`sandbox="allow-scripts allow-downloads"`, without
 * `allow-same-origin`) runs in an opaque origin: its calls to `/api/reports/…` are cross-origin
 * requests with `Origin: null` and a CORS preflight (JSON body, `X-Service-Tenant`).
 *
 * Answering `Access-Control-Allow-Origin: null` to everyone would let any page anywhere (every
 * sandboxed frame and `data:` document has the origin `null`) read the viewing calls through a
 * visitor's browser — e.g. a service reachable only from the hospital network. So the page
 * carries an embed token, issued when the page is served (a page that no other origin can read)
 * and bound to the tenant, the report and an expiry, and sends it as `X-Embed-Token`. The actual
 * response is readable by the `null` origin only when that token is valid for the call's tenant
 * and report. Preflights reveal nothing and are answered for the embed calls' paths only.
 * No credentials (cookies) are ever allowed cross-origin.
 */

export const EMBED_TOKEN_HEADER = "x-embed-token";
/** How long a served page can call the API from a sandboxed frame (reloading issues a new token). */
export const EMBED_TOKEN_TTL_SECONDS = 12 * 60 * 60;

/** The viewing calls the page makes; the report id is group 1. */
const EMBED_CALL = /^\/api\/reports\/([a-z0-9][a-z0-9-]{0,63})\/(?:view|data|drill|export\/xlsx|export\/docx)$/;

export class EmbedTokens {
  private readonly key: Buffer;

  /**
   * The key is derived from ADMIN_TOKEN when there is one (so every replica of the service
   * accepts the tokens of the others), else random for this process.
   */
  constructor(secret: string | undefined) {
    this.key = secret ? createHmac("sha256", secret).update("dialysis-hub embed token v1").digest() : randomBytes(32);
  }

  /**
   * A token for the page of this tenant's report. With `session` (what the database keeps of the
   * session cookie that opened the page, never the cookie itself), the page's calls are that
   * person's, also from a sandboxed frame that sends no cookie, for as long as both the token and
   * the session last (contract G.1).
   */
  issue(tenant: string, reportId: string, nowMs = Date.now(), session?: string): string {
    const expires = Math.floor(nowMs / 1000) + EMBED_TOKEN_TTL_SECONDS;
    const payload = session ? `v2.${tenant}.${reportId}.${expires}.${session}` : `v1.${tenant}.${reportId}.${expires}`;
    return `${payload}.${this.sign(payload)}`;
  }

  valid(token: string, tenant: string, reportId: string, nowMs = Date.now()): boolean {
    return this.opened(token, tenant, reportId, nowMs) !== null;
  }

  /** The session a valid token names (v2), or null. */
  sessionOf(token: string, tenant: string, reportId: string, nowMs = Date.now()): string | null {
    return this.opened(token, tenant, reportId, nowMs)?.session ?? null;
  }

  private opened(token: string, tenant: string, reportId: string, nowMs: number): { session: string | null } | null {
    const parts = token.split(".");
    const version = parts[0];
    const length = version === "v1" ? 5 : version === "v2" ? 6 : 0;
    if (parts.length !== length || parts[1] !== tenant || parts[2] !== reportId) return null;
    const expires = Number(parts[3]);
    if (!Number.isInteger(expires) || expires * 1000 < nowMs) return null;
    const expected = Buffer.from(this.sign(parts.slice(0, -1).join(".")));
    const sent = Buffer.from(parts.at(-1)!);
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) return null;
    return { session: version === "v2" ? parts[4]! : null };
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.key).update(payload).digest("base64url");
  }
}

/** CORS for the embed page's calls from a sandboxed (opaque-origin) frame; mounted before `/api`. */
export function embedCors(tokens: EmbedTokens): Middleware {
  return async (ctx, next) => {
    const match = EMBED_CALL.exec(ctx.path);
    if (!match || ctx.get("origin") !== "null") return next();
    ctx.vary("Origin");
    if (ctx.method === "OPTIONS" && ctx.get("access-control-request-method")) {
      ctx.status = 204;
      ctx.set({
        "Access-Control-Allow-Origin": "null",
        "Access-Control-Allow-Methods": "GET, POST",
        "Access-Control-Allow-Headers": `content-type, x-service-tenant, ${EMBED_TOKEN_HEADER}`,
        "Access-Control-Max-Age": "600",
      });
      return;
    }
    const tenant = ctx.get("x-service-tenant") || "default";
    const token = ctx.get(EMBED_TOKEN_HEADER);
    if (tokens.valid(token, tenant, match[1]!)) {
      ctx.set({ "Access-Control-Allow-Origin": "null", "Access-Control-Expose-Headers": "Content-Disposition" });
      ctx.state.embedSession = tokens.sessionOf(token, tenant, match[1]!) ?? undefined;
    }
    await next();
  };
}

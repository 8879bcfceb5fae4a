/**
 * The page for the inline frame (contract C.7): `GET /embed/reports/{id}?version=&lang=zh|en`.
 *
 * The version is resolved here, on the server, so an unknown report or version answers 404 and a
 * never-published report opened without `version` answers 409 — both as a short HTML page. The
 * page itself is a shell: the bundle (`web/dist`, served from `/embed/assets/` with a content
 * hash) calls the viewing API (`/api/reports/{id}/view|data|drill|export/*`) on the same origin.
 *
 * Tenant: `X-Service-Tenant` of the page request (set by the reverse proxy), else the `tenant`
 * query parameter (an iframe cannot send headers; behind the proxy the header wins), else
 * `default`. It is written into the page (`data-tenant`) and the page sends it as
 * `X-Service-Tenant` on every API call.
 *
 * Headers: a Content-Security-Policy whose `frame-ancestors` comes from EMBED_FRAME_ANCESTORS
 * (default `'self'`; no X-Frame-Options, the CSP governs framing), `X-Content-Type-Options:
 * nosniff`, `Referrer-Policy: same-origin`.
 */
import Router from "@koa/router";
import type { Context } from "koa";
import type { Logger } from "pino";
import { REPORT_ID_PATTERN } from "../../../commands/reports/spec/specVocabulary.ts";
import type { Db } from "../../../db/pool.ts";
import { TENANT_PATTERN } from "../../../db/tenantScope.ts";
import { EmbedTokens, embedCors } from "./embedAccess.ts";
import { bundleAssetRoute, loadEmbedAssets, WEB_DIST_DIR } from "../../http/bundleAssets.ts";
import { HttpError } from "../../http/httpError.ts";
import { versionToView } from "../../../queries/reports/viewing.ts";
import { shownTitle } from "../../../commands/reports/spec/localizedText.ts";
import { asHttpError } from "./reportRequests.ts";
import { viewingCaller, type ViewingAuth } from "../../http/authorAuth.ts";
import type { SessionStore } from "../../staffSessions/sessionStore.ts";
import type { CredentialCheck } from "../../credentials/credentialCheck.ts";

export interface EmbedRoutesDeps {
  db: Db;
  log: Logger;
  /** Derives the embed-token key (see embedAccess.ts); random per process when absent. */
  adminToken: string | undefined;
  /** `frame-ancestors` sources; default: EMBED_FRAME_ANCESTORS of the environment, else `'self'`. */
  frameAncestors?: string;
  /** Where the built bundle is (tests). */
  assetsDir?: string;
  /** VIEWING_AUTH (contract G.1): with `required`, the page opens only for a signed-in person who may view. */
  viewingAuth?: ViewingAuth;
  /** Where the person signs in (the provider's `/staff/login`, else the staff pages' token sign-in). */
  signInUrl?: string;
  /** How the page's caller is identified with `required`: the staff sessions and the credential check of /api. */
  callers?: { sessions: SessionStore; credentials: CredentialCheck };
}

export const DEFAULT_FRAME_ANCESTORS = "'self'";

/**
 * Sources of `frame-ancestors`, separated by spaces: `'self'`, `'none'`, `https://his.example.org`,
 * `https://*.example.org`, `http://localhost:3000`. Anything that could end the directive or the
 * header (`;`, `,`, quotes other than the keywords, control characters) is refused at start-up.
 */
export function frameAncestorsFrom(value: string | undefined): string {
  const text = (value ?? "").trim();
  if (text === "") return DEFAULT_FRAME_ANCESTORS;
  const sources = text.split(/\s+/);
  const keyword = /^'(self|none)'$/;
  const host =
    /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[A-Za-z0-9.-]+(?::(?:[0-9]{1,5}|\*))?(?:\/[A-Za-z0-9._~%!$&()*+=:@/-]*)?$/;
  const scheme = /^[a-z][a-z0-9+.-]*:$/;
  for (const source of sources) {
    if (!keyword.test(source) && !host.test(source) && !scheme.test(source) && source !== "*") {
      throw new Error(
        `EMBED_FRAME_ANCESTORS: ${JSON.stringify(source)} is not a frame-ancestors source; use 'self', 'none' ` +
          "or origins such as https://his.example.org, separated by spaces.",
      );
    }
  }
  if (sources.includes("'none'") && sources.length > 1)
    throw new Error("EMBED_FRAME_ANCESTORS: 'none' must stand alone.");
  return sources.join(" ");
}

export function contentSecurityPolicy(frameAncestors: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    // default-src does not cover these: no plugin content, and no <base> that would move the page's scripts.
    "object-src 'none'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join("; ");
}

type Lang = "zh" | "en";

const MESSAGES: Record<Lang, Record<number, string>> = {
  zh: {
    400: "请求无效",
    401: "请先登录",
    403: "无权查看此报表",
    404: "找不到该报表",
    409: "该报表尚未发布",
    500: "报表页面暂时无法打开",
    503: "报表页面尚未构建",
  },
  en: {
    400: "Bad request",
    401: "Sign in to see this report",
    403: "You may not view this report",
    404: "Report not found",
    409: "This report has not been published yet",
    500: "The report page cannot be opened right now",
    503: "The report page has not been built",
  },
};

/**
 * What the reader of a page that cannot be shown may do (issue #54): the page's own words, never
 * the API's sentence (which names API calls a reader cannot make).
 */
const DETAILS: Record<Lang, Record<number, string>> = {
  zh: {
    400: "链接中的医院（租户）标识无效，请检查链接。",
    403: "您的账号无权查看此报表，如需查看请联系管理员。",
    404: "请检查链接中的报表编号与版本，或请报表作者提供正确的链接。",
    409: "请报表作者先发布这份报表，或打开它的草稿。",
    500: "请稍后重试。",
    503: "请联系管理员构建报表页面。",
  },
  en: {
    400: "The hospital (tenant) named in the link is not valid; check the link.",
    403: "Your account may not view this report; ask the administrator if you need it.",
    404: "Check the report id and version in the link, or ask the report's author for the right link.",
    409: "Ask the report's author to publish it, or open its draft.",
    500: "Try again in a moment.",
    503: "Ask the administrator to build the report page.",
  },
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A query parameter's first value. */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The sign-in offer of a page that needs a signed-in person (VIEWING_AUTH=required). */
const SIGN_IN: Record<Lang, { detail: string; link: string }> = {
  zh: { detail: "查看此报表需要登录。请在新窗口中登录，然后刷新本页。", link: "登录" },
  en: {
    detail: "This report is shown to signed-in staff. Sign in in a new window, then reload this page.",
    link: "Sign in",
  },
};

/** The message page's own style (it loads no stylesheet). */
const MESSAGE_PAGE_STYLE =
  'body{font:15px/1.5 system-ui,"PingFang SC","Microsoft YaHei","Noto Sans CJK SC",sans-serif;color:#333;margin:0;' +
  "display:flex;min-height:100vh;align-items:center;justify-content:center;background:#f6f7f9}" +
  "main{max-width:36rem;padding:1.5rem 2rem;background:#fff;border:1px solid #e3e6ea;border-radius:8px}" +
  "h1{font-size:1.15rem;margin:0 0 .5rem}" +
  "p{margin:0;color:#666}" +
  "a.sign-in{display:inline-block;margin-top:1rem;padding:.5rem 1rem;border-radius:6px;background:#1f5fa8;color:#fff;text-decoration:none}";

function messagePage(lang: Lang, status: number, detail: string, signInUrl?: string): string {
  const headline = MESSAGES[lang][status] ?? MESSAGES[lang][status >= 500 ? 500 : 400]!;
  // A sandboxed frame may not navigate its host page: the sign-in opens beside it.
  const signIn = signInUrl
    ? `<p><a class="sign-in" href="${escapeHtml(signInUrl)}" target="_blank" rel="noopener">${escapeHtml(SIGN_IN[lang].link)}</a></p>`
    : "";
  return `<!doctype html>
<html lang="${lang === "zh" ? "zh-CN" : "en"}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(headline)}</title>
<style>${MESSAGE_PAGE_STYLE}</style>
</head>
<body><main class="embed-message" data-status="${status}"><h1>${escapeHtml(headline)}</h1><p>${escapeHtml(detail)}</p>${signIn}</main></body>
</html>
`;
}

export function embedRoutes(deps: EmbedRoutesDeps): {
  routes(): ReturnType<Router["routes"]>;
  cors(): ReturnType<typeof embedCors>;
} {
  const frameAncestors = frameAncestorsFrom(deps.frameAncestors ?? process.env.EMBED_FRAME_ANCESTORS);
  const csp = contentSecurityPolicy(frameAncestors);
  const tokens = new EmbedTokens(deps.adminToken);
  const assetsDir = deps.assetsDir ?? WEB_DIST_DIR;
  const router = new Router({ prefix: "/embed" });
  // The page's caller: needed with VIEWING_AUTH=required; in either mode a signed-in person's
  // session is named in the page's embed token, so its calls are theirs even from a sandboxed frame.
  const viewer = deps.callers ? viewingCaller(deps.adminToken, deps.viewingAuth ?? "proxy") : null;

  const secure = (ctx: Context) => {
    ctx.set("Content-Security-Policy", csp);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "same-origin");
  };
  const html = (ctx: Context, status: number, body: string) => {
    secure(ctx);
    ctx.status = status;
    ctx.type = "text/html; charset=utf-8";
    ctx.set("Cache-Control", "no-store");
    ctx.body = body;
  };

  router.get("/reports/:id", async (ctx) => {
    const lang: Lang = single(ctx.query.lang) === "en" ? "en" : "zh";
    try {
      // The proxy's header wins; `?tenant=` only stands in where no header can be sent (an iframe without a proxy).
      const tenant = ctx.get("x-service-tenant") || single(ctx.query.tenant) || "default";
      if (!TENANT_PATTERN.test(tenant))
        throw new HttpError(400, "The tenant must be 1 to 64 letters, digits, '_' or '-'.");
      ctx.state.tenant = tenant;
      if (viewer) {
        ctx.state.sessions = deps.callers!.sessions;
        ctx.state.credentials = deps.callers!.credentials;
        await viewer(ctx, async () => {});
      }
      const reportId = ctx.params.id!;
      if (!REPORT_ID_PATTERN.test(reportId)) throw new HttpError(404, `There is no report ${reportId}.`);
      // `?version=` (empty) is the same as no version: the current published one.
      const version = await versionToView(
        deps.db,
        tenant,
        reportId,
        ctx.query.version === "" ? undefined : ctx.query.version,
      );
      const assets = loadEmbedAssets(assetsDir);
      if (!assets)
        throw new HttpError(503, "The embed bundle is missing: run `npm run build:web` (npm install runs it).");
      const attrs: Record<string, string> = {
        report: reportId,
        version: version.version,
        mode: version.mode,
        tenant,
        lang,
        token: tokens.issue(
          tenant,
          reportId,
          Date.now(),
          ctx.state.principal?.credential === "staff-session" && ctx.state.held?.kind === "session"
            ? ctx.state.held.id
            : undefined,
        ),
      };
      const data = Object.entries(attrs)
        .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
        .join("");
      const loading = lang === "zh" ? "正在加载报表…" : "Loading the report…";
      const noscript = lang === "zh" ? "此报表需要启用 JavaScript。" : "This report needs JavaScript.";
      html(
        ctx,
        200,
        `<!doctype html>
<html lang="${lang === "zh" ? "zh-CN" : "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(shownTitle(version.title, version.spec, lang))}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.urls["embed.css"]}">
<script defer src="${assets.urls["boot.js"]}"></script>
<script defer src="${assets.urls["embed.js"]}"></script>
</head>
<body class="embed"${data}>
<div id="app"><p class="boot">${loading}</p></div>
<noscript><p class="boot">${noscript}</p></noscript>
</body>
</html>
`,
      );
    } catch (thrown) {
      const error = asHttpError(thrown);
      if (error instanceof HttpError) {
        if (error.status === 401)
          html(ctx, 401, messagePage(lang, 401, SIGN_IN[lang].detail, deps.signInUrl ?? "/staff/"));
        else
          html(
            ctx,
            error.status,
            messagePage(
              lang,
              error.status,
              DETAILS[lang][error.status] ?? DETAILS[lang][error.status >= 500 ? 500 : 400]!,
            ),
          );
        return;
      }
      deps.log.error({ err: error }, "embed page failed");
      html(ctx, 500, messagePage(lang, 500, DETAILS[lang][500]!));
    }
  });

  router.get("/assets/:name", bundleAssetRoute(loadEmbedAssets, assetsDir, { "Referrer-Policy": "same-origin" }));

  return { routes: () => router.routes(), cors: () => embedCors(tokens) };
}

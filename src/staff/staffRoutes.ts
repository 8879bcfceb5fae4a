/**
 * The staff pages: `GET /staff?lang=zh|en&tenant=` — reports with their versions and audit grades
 * and the report editor, the critical-result alerts, the unmatched queue (claim, dismiss), the
 * patients with their charts and the bulk jobs, for people holding an author token.
 *
 * The page is a shell like the embed page's: the bundle (`web/staff.ts`, served from
 * `/staff/assets/` with a content hash) signs in with an author token and calls the `/api`
 * endpoints with `Authorization: Bearer` and `X-Service-Tenant`. Serving the shell needs no
 * credential: it holds no data; every call it makes is authorised by the API itself.
 *
 * Tenant: `X-Service-Tenant` of the page request (the reverse proxy's; then the page shows it
 * fixed), else `?tenant=`, else `default`; the person may change it at sign-in unless it is fixed.
 *
 * Headers: a strict Content-Security-Policy (scripts and styles from this origin only, no inline
 * code, frames only of this origin (the editor's preview), no framing of the page itself: a page
 * that acts with a token must not be clickjacked), `X-Frame-Options`
 * for browsers without `frame-ancestors`, `nosniff`, no caching of the shell.
 */
import { randomBytes } from "node:crypto";
import Router from "@koa/router";
import type { Context } from "koa";
import { TENANT_PATTERN } from "../../db/tenantScope.ts";
import { bundleAssetRoute, loadStaffAssets, WEB_DIST_DIR } from "../http/bundleAssets.ts";
import { escapeHtml, single } from "../reports/http/embedRoutes.ts";

export interface StaffRoutesDeps {
  /** Where the built bundle is (tests). */
  assetsDir?: string;
  /** The identity provider's name when staff sign in through one (contract E.1): the page offers "Sign in with <name>". */
  signInProvider?: string | null;
}

/**
 * `styleNonce`: the report editor's code fields (CodeMirror) write their theme into a `<style>`
 * element; the page's nonce admits exactly those (`<body data-style-nonce>`), never a style attribute.
 */
export const staffCsp = (styleNonce: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    // The report editor previews the draft in the embed page, in a sandboxed frame of this origin.
    "frame-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

type Lang = "zh" | "en";

const WORDS: Record<Lang, { title: string; loading: string; noscript: string; badTenant: string; unbuilt: string }> = {
  zh: {
    title: "透析中心 · 工作台",
    loading: "正在加载…",
    noscript: "工作台需要启用 JavaScript。",
    badTenant: "租户名称须为 1 至 64 个字母、数字、'_' 或 '-'。",
    unbuilt: "工作台页面尚未构建：请运行 `npm run build:web`。",
  },
  en: {
    title: "Dialysis Hub · Staff",
    loading: "Loading…",
    noscript: "The staff pages need JavaScript.",
    badTenant: "The tenant must be 1 to 64 letters, digits, '_' or '-'.",
    unbuilt: "The staff pages have not been built: run `npm run build:web`.",
  },
};

function secure(ctx: Context, styleNonce: string): void {
  ctx.set("Content-Security-Policy", staffCsp(styleNonce));
  ctx.set("X-Frame-Options", "DENY");
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Referrer-Policy", "same-origin");
  ctx.set("Cross-Origin-Opener-Policy", "same-origin");
}

function page(lang: Lang, title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="${lang === "zh" ? "zh-CN" : "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
${head}</head>
${body}
</html>
`;
}

export function staffRoutes(deps: StaffRoutesDeps = {}): Router {
  const assetsDir = deps.assetsDir ?? WEB_DIST_DIR;
  const router = new Router();

  const shell = (ctx: Context) => {
    const lang: Lang = single(ctx.query.lang) === "en" ? "en" : "zh";
    const words = WORDS[lang];
    const styleNonce = randomBytes(16).toString("base64");
    secure(ctx, styleNonce);
    ctx.type = "text/html; charset=utf-8";
    ctx.set("Cache-Control", "no-store");
    const fromProxy = ctx.get("x-service-tenant");
    const tenant = fromProxy || single(ctx.query.tenant) || "default";
    const assets = loadStaffAssets(assetsDir);
    const problem = !TENANT_PATTERN.test(tenant)
      ? { status: 400, text: words.badTenant }
      : !assets
        ? { status: 503, text: words.unbuilt }
        : null;
    if (problem || !assets) {
      ctx.status = problem?.status ?? 503;
      const style = assets ? `<link rel="stylesheet" href="${assets.urls["staff.css"]}">\n` : "";
      ctx.body = page(
        lang,
        words.title,
        style,
        `<body class="staff-message"><main><h1>${escapeHtml(words.title)}</h1><p role="alert">${escapeHtml(problem?.text ?? words.unbuilt)}</p></main></body>`,
      );
      return;
    }
    const provider = deps.signInProvider ? { signInProvider: deps.signInProvider } : {};
    const data = Object.entries({
      tenant,
      tenantFixed: fromProxy ? "true" : "false",
      lang,
      editorScript: assets.urls["staffEditor.js"],
      chartScript: assets.urls["staffChart.js"],
      styleNonce,
      ...provider,
    })
      .map(([name, value]) => ` data-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${escapeHtml(value)}"`)
      .join("");
    ctx.status = 200;
    ctx.body = page(
      lang,
      words.title,
      `<link rel="stylesheet" href="${assets.urls["staff.css"]}">\n<script defer src="${assets.urls["staff.js"]}"></script>\n`,
      `<body class="staff"${data}>
<div id="app"><p class="boot">${escapeHtml(words.loading)}</p></div>
<noscript><p class="boot">${escapeHtml(words.noscript)}</p></noscript>
</body>`,
    );
  };
  router.get("/staff", shell);
  router.get("/staff/", shell);

  router.get("/staff/assets/:name", bundleAssetRoute(loadStaffAssets, assetsDir));
  return router;
}

/**
 * One call of the viewing API, as sent by the page: on the page's own server, with the tenant
 * the page was served for (`X-Service-Tenant`) and the page's embed token (`X-Embed-Token`, which
 * lets a sandboxed, opaque-origin frame read the answer; see src/reports/http/embedAccess.ts).
 * Shared by the boot script (which starts the first calls while the main bundle loads) and the page.
 */
import type { Boot } from "./types.ts";

export function request(
  boot: Pick<Boot, "report" | "tenant" | "token" | "lang">,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<Response> {
  const headers: Record<string, string> = {
    accept: "application/json",
    "x-service-tenant": boot.tenant,
    "x-embed-token": boot.token,
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`/api/reports/${encodeURIComponent(boot.report)}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    cache: "no-store",
  });
}

/** What the server wrote into the page (`<body data-…>`). */
export function bootOf(body: HTMLElement): Boot {
  const d = body.dataset;
  return {
    report: d.report ?? "",
    version: d.version ?? "",
    mode: d.mode ?? "dynamic",
    tenant: d.tenant ?? "default",
    lang: d.lang === "en" ? "en" : "zh",
    token: d.token ?? "",
  };
}

/** The first calls, started by boot.js before the main bundle is evaluated. */
export interface Prefetch {
  view: Promise<Response>;
  data: Promise<Response> | null;
}

declare global {
  interface Window {
    __embedPrefetch?: Prefetch;
  }
}

/**
 * The view and data calls of the opened page, sent once: by boot.js, or by the page when boot.js
 * did not run. Missing params take the version's published values, so the data call need not
 * wait for the view; a snapshot's data comes with the view.
 */
export function firstCalls(boot: Boot): Prefetch {
  if (!window.__embedPrefetch) {
    // In the page's language: the report's titles and labels given per language (issue #54).
    const view = request(boot, "GET", `/view?version=${encodeURIComponent(boot.version)}&lang=${boot.lang}`);
    const data =
      boot.mode === "snapshot" ? null : request(boot, "POST", "/data", { version: boot.version, params: {} });
    // The page handles failures; keep them from being reported as unhandled until it does.
    view.catch(() => {});
    data?.catch(() => {});
    window.__embedPrefetch = { view, data };
  }
  return window.__embedPrefetch;
}

import Router from "@koa/router";
import type { Middleware } from "koa";
import { pushReports, type IngestionDeps, type PushingClient } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds, type ReportKind } from "../../../commands/ingestion/reportKinds.ts";
import { parseClientCodeMap } from "../../../commands/ingestion/itemMapping.ts";
import { readAsTenant } from "../../../db/tenantScope.ts";
import type { ServedDictionary } from "../../../queries/dictionary.ts";
import { isCalendarDate, localDateTime } from "../../../queries/localDateTime.ts";
import { reconciliationByDay } from "../../../queries/reconciliation.ts";
import type { Client } from "../../../queries/credentials.ts";
import { HttpError } from "../httpError.ts";
import { jsonBody } from "../jsonBody.ts";
import { requireClient } from "./clientAuth.ts";
import { answer } from "./envelope.ts";
import { rateLimitPerClient, type RateLimit } from "./rateLimit.ts";

export const OPEN_API_BODY_LIMIT = 4 * 1024 * 1024;

export interface OpenApiDeps extends IngestionDeps {
  served: ServedDictionary;
  rateLimit: RateLimit;
}

export function openApiRoutes(deps: OpenApiDeps): Router {
  const router = new Router({ prefix: "/open/v1" });
  router.use(requireClient(deps.store.db), rateLimitPerClient(deps.rateLimit));
  const codeMaps = new WeakMap<Record<string, string>, Map<string, string>>();

  const push =
    (kind: ReportKind): Middleware =>
    async (ctx) => {
      const client = ctx.state.client as Client;
      let codeMap = codeMaps.get(client.codeMap);
      if (!codeMap) codeMaps.set(client.codeMap, (codeMap = parseClientCodeMap(client.codeMap)));
      const pushing: PushingClient = { ...client, codeMap };
      answer(ctx, await pushReports(deps, kind, pushing, ctx.request.body, ctx.state.requestId));
    };
  router.post("/lab/reports", jsonBody(OPEN_API_BODY_LIMIT), push(reportKinds.lab));
  router.post("/exam/reports", jsonBody(OPEN_API_BODY_LIMIT), push(reportKinds.exam));

  router.get("/dict/lab-items", (ctx) => {
    const category = ctx.query.category;
    if (Array.isArray(category)) throw new HttpError(400, "Send category at most once.");
    if (category !== undefined && category !== "" && !deps.served.categories.includes(category)) {
      throw new HttpError(400, `category ${category} is unknown; use one of ${deps.served.categories.join(", ")}, or leave it out for all items.`);
    }
    const etag = `"${deps.served.version}${category ? `:${category}` : ""}"`;
    ctx.set("ETag", etag);
    ctx.set("Cache-Control", "no-cache");
    if (ctx.get("if-none-match").split(/\s*,\s*/).includes(etag)) {
      ctx.status = 304;
      return;
    }
    const items = category ? deps.served.items.filter((item) => item.category === category) : deps.served.items;
    answer(ctx, { version: deps.served.version, items, examTypes: deps.served.examTypes });
  });

  for (const kind of ["lab", "exam"] as const) {
    router.get(`/reconcile/${kind}`, async (ctx) => {
      const date = ctx.query.date;
      if (typeof date !== "string" || !isCalendarDate(date)) {
        throw new HttpError(400, "date is required as a real calendar day written yyyy-MM-dd, e.g. ?date=2026-03-01.");
      }
      answer(ctx, await readAsTenant(deps.store.db, ctx.state.tenant, (reader) => reconciliationByDay(reader, kind, date)));
    });
  }

  router.get("/ping", (ctx) => {
    const client = ctx.state.client as Client;
    answer(ctx, {
      pong: true,
      client: client.name,
      tenant: client.tenant,
      serverTime: localDateTime(new Date()),
      apiVersion: "v1",
      dictVersion: deps.served.version,
    });
  });
  return router;
}

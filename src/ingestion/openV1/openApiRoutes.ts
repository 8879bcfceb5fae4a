import { clientOf } from "../../http/requestState.ts";
import Router from "@koa/router";
import type { Middleware } from "koa";
import { z } from "zod";
import { pushingClient, pushReports, type IngestionDeps } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds, type ReportKind } from "../../../commands/ingestion/reportKinds.ts";
import { readAsTenant } from "../../../db/tenantScope.ts";
import type { ServedDictionary } from "../../../queries/dictionary/dictionary.ts";
import { isCalendarDate, localDateTime, localDateTimeText, parseLocalDateTime } from "../../../db/localDateTime.ts";
import { reconciliationOf, type TenantRead } from "../../../queries/ingestion/reconciliation.ts";
import { currentWards, withWardScope } from "../../../db/wardScope.ts";
import { HttpError } from "../../http/httpError.ts";
import { jsonBody } from "../../http/jsonBody.ts";
import { requireClient } from "./clientAuth.ts";
import { addBulkRoutes } from "./bulkRoutes.ts";
import { addHl7Route } from "./hl7Route.ts";
import { answer, answerStreamed } from "./envelope.ts";
import { callerGone } from "../../http/callerGone.ts";
import { lineOf } from "../../http/listTurns.ts";
import type { PushTally } from "../../metrics/serviceMetrics.ts";
import { rateLimitPerClient, type RateLimit } from "./rateLimit.ts";

export const OPEN_API_BODY_LIMIT = 4 * 1024 * 1024;

/** What a page of a reconciliation day adds to its answer, for the pace of list turns: its ids as JSON strings. */
function idBytes(page: unknown): number {
  return Array.isArray(page)
    ? page.reduce((bytes: number, row: { external_id?: string }) => bytes + (row.external_id?.length ?? 0) + 3, 0)
    : 0;
}

const DATE_PROBLEM = "date is required as a real calendar day written yyyy-MM-dd, e.g. ?date=2026-03-01.";
const AS_OF_PROBLEM =
  "asOf must be a real local moment written yyyy-MM-dd HH:mm:ss, e.g. ?asOf=2026-03-01%2018:00:00, or be left out for now.";
/** `GET /open/v1/reconcile/{lab|exam}?date=` (contract B.5). */
export const reconcileQuery = z.object({
  date: z.string({ error: DATE_PROBLEM }).refine(isCalendarDate, { error: DATE_PROBLEM }).meta({
    description: "The day, yyyy-MM-dd: the date part of each report's current reportedAt",
    example: "2026-03-01",
  }),
  asOf: z
    .string()
    .refine((value) => parseLocalDateTime(value) !== null, { error: AS_OF_PROBLEM })
    .optional()
    .meta({
      description:
        "Contract D.3: answer as the call would have at this local moment, yyyy-MM-dd HH:mm:ss (what was stored by the end of that second)",
      example: "2026-03-01 18:00:00",
    }),
});

/** Contract B.6: the `data` of `GET /open/v1/ping`. */
export const pingAnswer = z.object({
  pong: z.literal(true),
  client: z.string().meta({ description: "The name of the client the key was issued to" }),
  tenant: z.string(),
  serverTime: localDateTimeText,
  apiVersion: z.literal("v1"),
  dictVersion: z.string(),
});

export interface OpenApiDeps extends IngestionDeps {
  served: ServedDictionary;
  rateLimit: RateLimit;
  /** Tells the bulk importers a job was submitted. */
  wakeBulkImport: () => void;
}

export function openApiRoutes(deps: OpenApiDeps): Router {
  const router = new Router({ prefix: "/open/v1" });
  router.use(requireClient(), rateLimitPerClient(deps.rateLimit));

  const push =
    (kind: ReportKind): Middleware =>
    async (ctx) => {
      const client = clientOf(ctx);
      const tally: PushTally = { kind: kind.name, tenant: client.tenant, client: client.clientId, outcomes: [] };
      ctx.state.push = tally;
      const result = await pushReports(deps, kind, pushingClient(client), ctx.request.body, ctx.state.requestId);
      tally.outcomes = result.results.map((entry) => entry.status);
      answer(ctx, result);
    };
  router.post("/lab/reports", jsonBody(OPEN_API_BODY_LIMIT), push(reportKinds.lab));
  router.post("/exam/reports", jsonBody(OPEN_API_BODY_LIMIT), push(reportKinds.exam));
  addBulkRoutes(router, deps);
  addHl7Route(router, deps, OPEN_API_BODY_LIMIT);

  router.get("/dict/lab-items", (ctx) => {
    const category = ctx.query.category;
    if (Array.isArray(category)) throw new HttpError(400, "Send category at most once.");
    if (category !== undefined && category !== "" && !deps.served.categories.includes(category)) {
      throw new HttpError(
        400,
        `category ${category} is unknown; use one of ${deps.served.categories.join(", ")}, or leave it out for all items.`,
      );
    }
    const etag = `"${deps.served.version}${category ? `:${category}` : ""}"`;
    ctx.set("ETag", etag);
    ctx.set("Cache-Control", "no-cache");
    if (
      ctx
        .get("if-none-match")
        .split(/\s*,\s*/)
        .includes(etag)
    ) {
      ctx.status = 304;
      return;
    }
    const items = category ? deps.served.items.filter((item) => item.category === category) : deps.served.items;
    answer(ctx, { version: deps.served.version, items, examTypes: deps.served.examTypes });
  });

  for (const kind of ["lab", "exam"] as const) {
    router.get(`/reconcile/${kind}`, async (ctx) => {
      const query = reconcileQuery.safeParse(ctx.query);
      if (!query.success)
        throw new HttpError(
          400,
          query.error.issues.some((issue) => issue.path[0] === "date") ? DATE_PROBLEM : AS_OF_PROBLEM,
        );
      const { date, asOf } = query.data;
      // A moment not yet come is answered as now.
      const now = new Date();
      const asked = asOf === undefined ? null : parseLocalDateTime(asOf)!;
      const moment = asked && asked.getTime() > now.getTime() ? now : asked;
      // The day is read a page at a time while the answer is written (contract E.6), each page in
      // a read of its own, as this request's caller: the stream pulls pages outside its context.
      const tenant: string = ctx.state.tenant;
      const wards = currentWards();
      const turns = ctx.state.listTurns;
      const line = lineOf(ctx);
      const gone = callerGone(ctx);
      // Each page takes one of the tenant's list turns while it is read (src/http/listTurns.ts), none while it is sent.
      const read: TenantRead = (work) =>
        withWardScope(wards, () => {
          const page = () => readAsTenant(deps.store.db, tenant, work);
          return turns ? turns.take(line, page, idBytes, gone) : page();
        });
      const shown = asOf === undefined ? {} : { asOf: moment === now ? localDateTime(now) : asOf };
      const pages = reconciliationOf(read, kind, date, moment);
      await answerStreamed(ctx, { date }, "externalIds", {
        next: () => pages.next(),
        totals: async () => ({ ...(await pages.totals()), ...shown }),
      });
    });
  }

  router.get("/ping", (ctx) => {
    const client = clientOf(ctx);
    answer(ctx, {
      pong: true,
      client: client.name,
      tenant: client.tenant,
      serverTime: localDateTime(new Date()),
      apiVersion: "v1",
      dictVersion: deps.served.version,
    } satisfies z.infer<typeof pingAnswer>);
  });
  return router;
}

import Router from "@koa/router";
import type { Context } from "koa";
import { discardDraft, publishDraft, publishInput, restoreInput, restoreVersion, saveDraft, saveDraftInput, type ReportsDeps } from "../../commands/reports/manageReports.ts";
import { REPORT_ID_PATTERN } from "../../commands/reports/reportDecider.ts";
import { stripSql } from "../../commands/reports/specSchema.ts";
import { validateDrillArgs, validateParamValues } from "../../commands/reports/sqlTemplate.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { auditOf, draftOf, listReports, publishedVersion, reportHead, versionsOf, type ViewableVersion } from "../../queries/reports/reportCatalog.ts";
import { runSpecQueries } from "../../queries/reports/runSpecQueries.ts";
import { requireAuthor, type Caller } from "./authorAuth.ts";
import { HttpError } from "./httpError.ts";
import { parseBody } from "./validate.ts";

export interface ReportRoutesDeps extends ReportsDeps {
  store: EventStore;
  adminToken: string | undefined;
}

const read = <T>(deps: ReportRoutesDeps, ctx: Context, work: Parameters<typeof readAsTenant<T>>[2]) => readAsTenant<T>(deps.db, ctx.state.tenant, work);

/**
 * The version a viewing call asks for (contract A.3): `draft`, `vN`, or, when omitted, the
 * current published version (409 when there is none). Unknown report or version: 404.
 */
async function resolveVersion(deps: ReportRoutesDeps, ctx: Context, reportId: string, version: unknown): Promise<ViewableVersion> {
  if (version !== undefined && version !== null && typeof version !== "string") throw new HttpError(400, 'version must be a string such as "v3" or "draft".');
  const head = await read(deps, ctx, (reader) => reportHead(reader, reportId));
  if (!head) throw new HttpError(404, `There is no report ${reportId}; list the reports with GET /api/reports.`);
  const wanted = version ?? (head.publishedVersion === null ? null : `v${head.publishedVersion}`);
  if (wanted === null) throw new HttpError(409, "This report has never been published; ask for version=draft, or publish it first.");
  const found =
    wanted === "draft"
      ? await read(deps, ctx, (reader) => draftOf(reader, reportId))
      : /^v[1-9][0-9]{0,8}$/.test(wanted)
        ? await read(deps, ctx, (reader) => publishedVersion(reader, reportId, Number(wanted.slice(1))))
        : null;
  if (!found) throw new HttpError(404, `Report ${reportId} has no version ${wanted}; see GET /api/reports/${reportId}/versions.`);
  return found;
}

function reportIdOf(ctx: Context): string {
  const id = ctx.params.id!;
  if (!REPORT_ID_PATTERN.test(id)) throw new HttpError(404, `There is no report ${id}; report ids are lower-case letters, digits and '-'.`);
  return id;
}

function bodyObject(ctx: Context): Record<string, unknown> {
  const body = ctx.request.body ?? {};
  if (typeof body !== "object" || Array.isArray(body) || body === null) throw new HttpError(400, "Send a JSON object as the request body.");
  return body as Record<string, unknown>;
}

function checkedParams(version: ViewableVersion, sent: unknown): Record<string, unknown> {
  const checked = validateParamValues(version.spec.params ?? [], version.params, sent);
  if ("problem" in checked) throw new HttpError(400, checked.problem);
  return checked.values;
}

export function reportRoutes(deps: ReportRoutesDeps): Router {
  const router = new Router({ prefix: "/api/reports" });
  const author = requireAuthor(deps.db, deps.adminToken);
  const context = (ctx: Context) => ({ store: deps.store, metadata: { actor: (ctx.state.caller as Caller).name, requestId: ctx.state.requestId } });

  router.get("/", async (ctx) => {
    ctx.body = await read(deps, ctx, listReports);
  });

  router.get("/:id/view", async (ctx) => {
    const reportId = reportIdOf(ctx);
    const version = await resolveVersion(deps, ctx, reportId, ctx.query.version);
    ctx.body = {
      id: reportId,
      title: version.title,
      version: version.version,
      mode: version.mode,
      publishedAt: version.publishedAt,
      note: version.note,
      spec: stripSql(version.spec),
      params: version.params,
      data: version.frozen,
    };
  });

  router.post("/:id/data", async (ctx) => {
    const reportId = reportIdOf(ctx);
    const body = bodyObject(ctx);
    const version = await resolveVersion(deps, ctx, reportId, body.version);
    const values = checkedParams(version, body.params);
    // A snapshot answers with what was frozen at publishing, whatever the data source holds now.
    ctx.body = {
      queries: version.frozen ?? (await runSpecQueries(deps.runtime, version.datasource, ctx.state.tenant, version.spec.queries, version.spec.params ?? [], values)),
    };
  });

  router.post("/:id/drill", async (ctx) => {
    const reportId = reportIdOf(ctx);
    const body = bodyObject(ctx);
    const version = await resolveVersion(deps, ctx, reportId, body.version);
    const drills = version.spec.drills ?? {};
    if (typeof body.drill !== "string" || !(body.drill in drills)) {
      const declared = Object.keys(drills);
      throw new HttpError(400, declared.length ? `drill must be one of ${declared.join(", ")}.` : "This report declares no drill-through targets.");
    }
    const drill = drills[body.drill]!;
    const args = validateDrillArgs(drill, body.args);
    if ("problem" in args) throw new HttpError(400, args.problem);
    const values = { ...checkedParams(version, body.params), ...args.values };
    ctx.body = {
      title: drill.title.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => (args.values[name] == null ? "" : String(args.values[name]))),
      queries: await runSpecQueries(deps.runtime, version.datasource, ctx.state.tenant, drill.queries, [...(version.spec.params ?? []), ...drill.args], values),
    };
  });

  router.get("/:id/versions", async (ctx) => {
    const reportId = reportIdOf(ctx);
    const head = await read(deps, ctx, (reader) => reportHead(reader, reportId));
    if (!head) throw new HttpError(404, `There is no report ${reportId}; list the reports with GET /api/reports.`);
    ctx.body = await read(deps, ctx, (reader) => versionsOf(reader, reportId, head.publishedVersion));
  });

  router.get("/:id/versions/:no/audit", async (ctx) => {
    const reportId = reportIdOf(ctx);
    const no = /^v[1-9][0-9]{0,8}$/.test(ctx.params.no!) ? Number(ctx.params.no!.slice(1)) : 0;
    const audit = no ? await read(deps, ctx, (reader) => auditOf(reader, reportId, no)) : null;
    if (!audit) throw new HttpError(404, `Report ${reportId} has no version ${ctx.params.no}; see GET /api/reports/${reportId}/versions.`);
    ctx.body = audit;
  });

  router.put("/:id/draft", author, async (ctx) => {
    const reportId = ctx.params.id!;
    if (!REPORT_ID_PATTERN.test(reportId)) throw new HttpError(400, "The report id must be 1 to 64 lower-case letters, digits or '-', starting with a letter or digit.");
    const input = parseBody(saveDraftInput, ctx.request.body);
    if (input.spec === undefined) throw new HttpError(400, "spec is required: the report specification (see /md/report-spec-guide.md).");
    const audit = await saveDraft(context(ctx), deps, ctx.state.tenant, reportId, input);
    ctx.body = { id: reportId, hasDraft: true, audit };
  });

  router.delete("/:id/draft", author, async (ctx) => {
    await discardDraft(context(ctx), deps, ctx.state.tenant, reportIdOf(ctx));
    ctx.status = 204;
  });

  router.post("/:id/publish", author, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const no = await publishDraft(context(ctx), deps, ctx.state.tenant, reportId, parseBody(publishInput, ctx.request.body));
    ctx.status = 201;
    ctx.body = (await read(deps, ctx, (reader) => versionsOf(reader, reportId, no))).find((entry) => entry.no === `v${no}`);
  });

  router.post("/:id/restore", author, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const no = await restoreVersion(context(ctx), deps, ctx.state.tenant, reportId, parseBody(restoreInput, ctx.request.body));
    ctx.status = 201;
    ctx.body = (await read(deps, ctx, (reader) => versionsOf(reader, reportId, no))).find((entry) => entry.no === `v${no}`);
  });
  return router;
}


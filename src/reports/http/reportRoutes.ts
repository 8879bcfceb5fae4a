import Router from "@koa/router";
import type { Context } from "koa";
import { z } from "zod";
import { auditSchema } from "../../../commands/reports/spec/audit.ts";
import {
  discardDraft,
  publishDraft,
  publishInput,
  restoreInput,
  restoreVersion,
  saveDraft,
  saveDraftInput,
  type ReportsDeps,
} from "../../../commands/reports/manageReports.ts";
import { draftEtag, type DraftPrecondition } from "../../../commands/reports/reportDecider.ts";
import { DRAFT_LABEL, REPORT_ID_PATTERN, versionNo } from "../../../commands/reports/spec/specVocabulary.ts";
import { stripSql } from "../../../commands/reports/spec/specSchema.ts";
import type { EventStore } from "../../../db/eventStore.ts";
import type { Db } from "../../../db/pool.ts";
import { localIsoDateTimeText } from "../../../db/localDateTime.ts";
import { queryOutcomeSchema } from "../../../commands/reports/spec/queryOutcome.ts";
import { queryProblemSchema } from "../../../commands/reports/spec/queryTrial.ts";
import { auditOf, draftAuditOf, listReports, versionsOf } from "../../../queries/reports/reportCatalog.ts";
import { runSpecQueries, type ReportRuntime } from "../../../queries/reports/runSpecQueries.ts";
import { tryDraftQueries } from "../../../queries/reports/tryDraftQueries.ts";
import { drillLayer, layerResults, paramValues } from "../../../queries/reports/viewedLayer.ts";
import { draftOf, reportHead, shownLayer, versionToView } from "../../../queries/reports/viewing.ts";
import { specChanges, type SpecDiff } from "../../../queries/reports/specChanges.ts";
import { authorIfAny, requireAuthor, viewingCaller, type ViewingAuth } from "../../http/authorAuth.ts";
import { commandContextOf } from "../../http/requestState.ts";
import { callerGone } from "../../http/callerGone.ts";
import { HttpError } from "../../http/httpError.ts";
import { answerJson } from "../../http/streamedJson.ts";
import {
  listedSource,
  readFor,
  refuseBeyondResearch,
  reportBody,
  reportIdOf,
  viewerLangField,
  viewerLangOf,
  viewingRefusals,
} from "./reportRequests.ts";
import { localizeSpec, shownTitle } from "../../../commands/reports/spec/localizedText.ts";
import { parseBody } from "../../http/validate.ts";
import { answerPage, pageOf, pageQuery, rowsFor } from "../../http/paging.ts";
import { listTurn } from "../../http/listTurns.ts";
import type { AccessRecording } from "../../access/accessRecording.ts";
import { showingResults } from "../../access/shownSubjects.ts";
import { patientIdentifiers } from "../../../queries/patients/patientIdentifiers.ts";
import { wardsOfPatients } from "../../../queries/patients/patients.ts";
import { readAsTenant } from "../../../db/tenantScope.ts";

export interface ReportRoutesDeps {
  store: EventStore;
  db: Db;
  runtime: ReportRuntime;
  adminToken: string | undefined;
  /** VIEWING_AUTH (contract G.1): whether the viewing calls need a session or token. */
  viewingAuth: ViewingAuth;
  /** Records answers whose results name patients (a patient_ref column, contract E.4). */
  access: AccessRecording;
}

/*
 * `GET /api/reports` and `GET /api/reports/{id}/versions` a page at a time (contract E.6): the
 * arrays they always answered, the next page's address in a Link header. Other parameters are
 * left alone, as before there were any.
 */
export const reportListQuery = z.object({ ...pageQuery, lang: viewerLangField });
export const versionListQuery = z.object(pageQuery);
/** Where a page of reports ends: its last report's id. */
const reportIdKey = z.string().regex(REPORT_ID_PATTERN);
/** Where a page of versions ends: its last (oldest) version's number. */
const versionKey = z.int().min(1);

const queryResults = z
  .record(z.string(), queryOutcomeSchema)
  .meta({ description: "Each query by name: its result, or { error } when it failed" });

/** Contract A.2, opened report. */
export const openedReportAnswer = z.object({
  id: z.string(),
  title: z.string(),
  version: z.string().meta({ example: "v3" }),
  mode: z.enum(["dynamic", "snapshot"]),
  publishedAt: localIsoDateTimeText.meta({ description: "For version=draft: the draft's save time" }),
  note: z.string(),
  spec: z.record(z.string(), z.unknown()).meta({
    description:
      "The specification (see /md/report-spec-guide.md) with every sql member removed, and every title, label and text given per language in the language asked for (lang)",
  }),
  params: z.record(z.string(), z.unknown()).meta({ description: "The filter values at publishing (initial values)" }),
  data: queryResults.nullable().meta({ description: "Snapshot versions: the frozen results; otherwise null" }),
});
export const dataAnswer = z.object({ queries: queryResults });
export const drillAnswer = z.object({
  title: z.string().meta({ description: "The drill's title with {arg} placeholders filled in" }),
  queries: queryResults,
});
export const draftSavedAnswer = z.object({
  id: z.string(),
  hasDraft: z.literal(true),
  audit: auditSchema,
  queryProblems: z.array(queryProblemSchema).meta({
    description:
      "The queries that failed when tried at this save (planned with the filters' defaults; each is also an " +
      "audit finding query-fails): saved all the same, and publishable",
  }),
});
/** What an author edits (issue #22): a version's or the draft's spec with its SQL, as `PUT …/draft` takes it. */
export const reportSourceAnswer = z.object({
  id: z.string(),
  version: z.string().meta({ example: "draft" }),
  title: z.string(),
  datasource: z.string().meta({ example: "clinical" }),
  spec: z.record(z.string(), z.unknown()).meta({ description: "The specification with the SQL of every query" }),
});

/**
 * The condition of a call on the draft (save, publish, discard; RFC 9110 13.1):
 * `If-Match: "<the ETag of the draft it was based on>"` or `If-Match: *` (a draft must exist),
 * `If-None-Match: *` (none may). Without either, the call acts on whatever draft there is, as it
 * always has.
 */
function draftPrecondition(ctx: Context): DraftPrecondition | undefined {
  const ifMatch = ctx.get("if-match").trim();
  const ifNoneMatch = ctx.get("if-none-match").trim();
  if (ifMatch && ifNoneMatch) throw new HttpError(400, "Send If-Match or If-None-Match, not both.");
  if (ifNoneMatch) {
    if (ifNoneMatch !== "*")
      throw new HttpError(400, 'If-None-Match on a draft takes only *: "only if there is no draft".');
    return { noDraft: true };
  }
  if (!ifMatch) return undefined;
  if (ifMatch === "*") return { anyDraft: true };
  if (!/^"draft-\d+"$/.test(ifMatch))
    throw new HttpError(
      400,
      'If-Match takes the ETag of the draft, as GET /api/reports/{id}/versions/draft/source answers it (e.g. "draft-1795635792949"), or *.',
    );
  return { draft: ifMatch };
}

export function reportRoutes(deps: ReportRoutesDeps): Router {
  const router = new Router({ prefix: "/api/reports" });
  router.use(viewingRefusals);
  const author = requireAuthor(deps.adminToken);
  const authorOf = authorIfAny(deps.adminToken);
  // The viewing calls: their caller, when there is one, names who looked and narrows the rows to their wards.
  const viewer = viewingCaller(deps.adminToken, deps.viewingAuth);
  const commands: ReportsDeps = {
    dataSources: () => deps.runtime.sources.names(),
    runQueries: (...layer) => runSpecQueries(deps.runtime, ...layer),
    tryQueries: (...draft) => tryDraftQueries(deps.runtime, ...draft),
    wardsOf: (tenant) => readAsTenant(deps.db, tenant, wardsOfPatients),
  };
  const context = (ctx: Context) => commandContextOf(ctx, deps.store);

  router.get("/", viewer, listTurn, async (ctx) => {
    const query = parseBody(reportListQuery, ctx.query);
    const page = pageOf(query, reportIdKey);
    const lang = viewerLangOf(query.lang);
    const rows = await readFor(deps.db, ctx, (reader) =>
      listReports(reader, { ...rowsFor(page), datasource: listedSource(ctx), lang }),
    );
    ctx.body = answerPage(ctx, page, rows, (report) => report.id);
  });

  router.get("/:id/view", viewer, deps.access.recorded, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const lang = viewerLangOf(ctx.query.lang);
    const version = await versionToView(deps.db, ctx.state.tenant, reportId, ctx.query.version);
    refuseBeyondResearch(ctx, version);
    // A snapshot opens with its frozen results: the same rows its data call answers.
    if (version.frozen) showingResults(ctx, version.frozen, await readFor(deps.db, ctx, patientIdentifiers));
    // Written in pieces: a snapshot's frozen results may be large (streamedJson.ts).
    answerJson(ctx, {
      id: reportId,
      title: shownTitle(version.title, version.spec, lang),
      version: version.version,
      mode: version.mode,
      publishedAt: version.publishedAt,
      note: version.note,
      spec: localizeSpec(stripSql(version.spec), lang),
      params: version.params,
      data: version.frozen,
    } satisfies z.infer<typeof openedReportAnswer>);
  });

  router.post("/:id/data", viewer, deps.access.recorded, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const body = reportBody(ctx);
    const version = await versionToView(deps.db, ctx.state.tenant, reportId, body.version);
    refuseBeyondResearch(ctx, version);
    // The data call shows no words of the spec: the layer's title is not answered.
    const layer = shownLayer(version, paramValues(version, body.params), null, "en");
    const identifiers = readFor(deps.db, ctx, patientIdentifiers);
    const queries = await layerResults(deps.runtime, ctx.state.tenant, version, layer, callerGone(ctx));
    showingResults(ctx, queries, await identifiers);
    // Written in pieces, never as one text: each result may be REPORT_RESULT_MAX_BYTES (streamedJson.ts).
    answerJson(ctx, { queries } satisfies z.infer<typeof dataAnswer>);
  });

  router.post("/:id/drill", viewer, deps.access.recorded, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const body = reportBody(ctx);
    const version = await versionToView(deps.db, ctx.state.tenant, reportId, body.version);
    refuseBeyondResearch(ctx, version);
    const params = paramValues(version, body.params);
    const lang = viewerLangOf(body.lang);
    const layer = shownLayer(version, params, drillLayer(version, body.drill, body.args, params, lang), lang);
    const identifiers = readFor(deps.db, ctx, patientIdentifiers);
    const queries = await layerResults(deps.runtime, ctx.state.tenant, version, layer, callerGone(ctx));
    showingResults(ctx, queries, await identifiers);
    answerJson(ctx, { title: layer.title, queries } satisfies z.infer<typeof drillAnswer>);
  });

  router.get("/:id/versions", viewer, listTurn, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const head = await readFor(deps.db, ctx, (reader) => reportHead(reader, reportId));
    if (!head) throw new HttpError(404, `There is no report ${reportId}; list the reports with GET /api/reports.`);
    const page = pageOf(parseBody(versionListQuery, ctx.query), versionKey);
    const rows = await readFor(deps.db, ctx, (reader) =>
      versionsOf(reader, reportId, head.publishedVersion, { limit: page.limit + 1, before: page.after }),
    );
    ctx.body = answerPage(ctx, page, rows, (version) => Number(version.no.slice(1)));
  });

  // Anyone who may view may compare; the SQL of the queries is for an author of the tenant.
  router.get("/:id/versions/:a/diff/:b", viewer, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const [from, to] = [ctx.params.a!, ctx.params.b!];
    const [before, after] = [
      await versionToView(deps.db, ctx.state.tenant, reportId, from),
      await versionToView(deps.db, ctx.state.tenant, reportId, to),
    ];
    const withSql = (await authorOf(ctx)) !== null;
    ctx.body = {
      id: reportId,
      from,
      to,
      sqlIncluded: withSql,
      changes: specChanges(before.spec, after.spec, withSql),
    } satisfies SpecDiff;
  });

  // The editor's starting point; SQL leaves the service only for an author of the tenant.
  router.get("/:id/versions/:no/source", author, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const version = await versionToView(deps.db, ctx.state.tenant, reportId, ctx.params.no!);
    if (version.savedAt) ctx.set("ETag", draftEtag(version.savedAt));
    ctx.body = {
      id: reportId,
      version: version.version,
      title: version.title,
      datasource: version.datasource,
      spec: version.spec,
    } satisfies z.infer<typeof reportSourceAnswer>;
  });

  router.get("/:id/versions/:no/audit", viewer, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const no = versionNo(ctx.params.no!);
    // The draft's audit too (as its save answered it), so an editor opened later knows it.
    const audit =
      ctx.params.no === DRAFT_LABEL
        ? await readFor(deps.db, ctx, (reader) => draftAuditOf(reader, reportId))
        : no !== null
          ? await readFor(deps.db, ctx, (reader) => auditOf(reader, reportId, no))
          : null;
    if (!audit)
      throw new HttpError(
        404,
        `Report ${reportId} has no version ${ctx.params.no}; see GET /api/reports/${reportId}/versions.`,
      );
    ctx.body = audit;
  });

  router.put("/:id/draft", author, async (ctx) => {
    const reportId = ctx.params.id!;
    if (!REPORT_ID_PATTERN.test(reportId))
      throw new HttpError(
        400,
        "The report id must be 1 to 64 lower-case letters, digits or '-', starting with a letter or digit.",
      );
    const input = parseBody(saveDraftInput, ctx.request.body);
    if (input.spec === undefined)
      throw new HttpError(400, "spec is required: the report specification (see /md/report-spec-guide.md).");
    const { audit, queryProblems } = await saveDraft(
      context(ctx),
      commands,
      ctx.state.tenant,
      reportId,
      input,
      draftPrecondition(ctx),
    );
    const saved = await readFor(deps.db, ctx, (reader) => draftOf(reader, reportId));
    if (saved?.savedAt) ctx.set("ETag", draftEtag(saved.savedAt));
    ctx.body = { id: reportId, hasDraft: true, audit, queryProblems } satisfies z.infer<typeof draftSavedAnswer>;
  });

  router.delete("/:id/draft", author, async (ctx) => {
    await discardDraft(context(ctx), ctx.state.tenant, reportIdOf(ctx), draftPrecondition(ctx));
    ctx.status = 204;
  });

  router.post("/:id/publish", author, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const no = await publishDraft(
      context(ctx),
      commands,
      ctx.state.tenant,
      reportId,
      parseBody(publishInput, ctx.request.body),
      draftPrecondition(ctx),
    );
    ctx.status = 201;
    ctx.body = (await readFor(deps.db, ctx, (reader) => versionsOf(reader, reportId, no, { limit: 1, only: no })))[0];
  });

  router.post("/:id/restore", author, async (ctx) => {
    const reportId = reportIdOf(ctx);
    const no = await restoreVersion(
      context(ctx),
      ctx.state.tenant,
      reportId,
      parseBody(restoreInput, ctx.request.body),
    );
    ctx.status = 201;
    ctx.body = (await readFor(deps.db, ctx, (reader) => versionsOf(reader, reportId, no, { limit: 1, only: no })))[0];
  });
  return router;
}

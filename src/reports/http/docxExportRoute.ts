import Router from "@koa/router";
import type { Context } from "koa";
import { exportEnabled, type ShownNodeDef as NodeDef } from "../../../commands/reports/spec/specSchema.ts";
import { localizeSpec, shownTitle } from "../../../commands/reports/spec/localizedText.ts";
import { localDate, localIsoDateTime } from "../../../db/localDateTime.ts";
import { drillLayer, layerResults, paramValues } from "../../../queries/reports/viewedLayer.ts";
import { retryAfterSeconds, tenantBusySentence } from "../../../queries/reports/tenantGate.ts";
import { shownLayer, versionToView } from "../../../queries/reports/viewing.ts";
import type { DocxLayer, DocxRendering } from "../export/docxExport.ts";
import { DOCX_CONTENT_TYPE } from "../export/contentTypes.ts";
import { attachment, exportFileName } from "../../http/attachment.ts";
import { callerGone } from "../../http/callerGone.ts";
import { HttpError } from "../../http/httpError.ts";
import { viewingCaller } from "../../http/authorAuth.ts";
import type { ReportRoutesDeps } from "./reportRoutes.ts";
import type { ExportLimits } from "./exportsPerAddress.ts";
import {
  exportLangOf,
  readFor,
  refuseBeyondResearch,
  reportBody,
  reportIdOf,
  viewingRefusals,
} from "./reportRequests.ts";
import { exportWords } from "../export/exportWords.ts";
import { showingResults } from "../../access/shownSubjects.ts";
import { patientIdentifiers } from "../../../queries/patients/patientIdentifiers.ts";
import {
  CREDENTIAL_END_CODES,
  CREDENTIAL_END_SENTENCES,
  watchCaller,
  type CredentialEnd,
} from "../../credentials/credentialWatch.ts";

/** The report routes' dependencies (the export reads with `db` and runs queries with `runtime`), and how it renders (its worker threads). */
export type DocxExportDeps = ReportRoutesDeps & ExportLimits & { rendering: DocxRendering };

/**
 * `POST /api/reports/{id}/export/docx {version, params, drill?, args?}` (contract A.3): the
 * report's layer — or, with `drill`, the drill target's — as a Word document. Resolved like the
 * data and drill calls: a snapshot exports its frozen results, a drill always runs live.
 */
export function docxExportRoute(deps: DocxExportDeps): Router {
  const router = new Router({ prefix: "/api/reports" });

  router.use(viewingRefusals);
  // The credential the export is made with, if any (viewingCaller), is watched while the document is made.
  router.post(
    "/:id/export/docx",
    viewingCaller(deps.adminToken, deps.viewingAuth),
    deps.exportsPerAddress,
    deps.access.recorded,
    async (ctx: Context) => {
      const credential: { ended: CredentialEnd | null } = { ended: null };
      const stop = new AbortController();
      const unwatch = watchCaller(ctx, (end) => {
        credential.ended = end;
        stop.abort();
      });
      try {
        await exportDocument(ctx, deps, AbortSignal.any([callerGone(ctx), stop.signal]));
      } finally {
        unwatch();
      }
      // Its credential ended while the document was made: the caller gets the refusal, not the document.
      const { ended } = credential;
      if (ended) throw new HttpError(401, CREDENTIAL_END_SENTENCES[ended], {}, CREDENTIAL_END_CODES[ended]);
    },
  );

  return router;
}

/** The document of the request's layer as the answer, unless `gone` aborts first (the caller left, or its credential ended). */
async function exportDocument(ctx: Context, deps: DocxExportDeps, gone: AbortSignal): Promise<void> {
  const reportId = reportIdOf(ctx);
  const body = reportBody(ctx);
  const lang = exportLangOf(body);
  const version = await versionToView(deps.db, ctx.state.tenant, reportId, body.version);
  refuseBeyondResearch(ctx, version);
  if (!exportEnabled(version.spec, "docx"))
    throw new HttpError(400, "The docx export is switched off for this report.");
  const params = paramValues(version, body.params);
  const drilling = body.drill !== undefined && body.drill !== null;
  if (!drilling && body.args !== undefined && body.args !== null)
    throw new HttpError(400, "args are taken only with drill: name the drill target in drill, or leave args out.");
  const shown = shownLayer(
    version,
    params,
    drilling ? drillLayer(version, body.drill, body.args, params, lang) : null,
    lang,
  );
  // The report's own words in the document's language (issue #54).
  const spec = localizeSpec(version.spec, lang);
  const now = new Date();
  // Word, ECharts and the rasteriser are big: loaded on the first export, not at start-up.
  const { exportDocx, filterRows } = await import("../export/docxExport.ts");
  const words = exportWords(lang);
  const identifiers = readFor(deps.db, ctx, patientIdentifiers);
  const results = await layerResults(deps.runtime, ctx.state.tenant, version, shown, gone);
  // Nobody is left to read the document: render nothing.
  if (gone.aborted) return;
  // An export that could not start (every query waited its whole turn behind the tenant's others, E.5).
  const busy = tenantBusySentence(deps.runtime.gate);
  const outcomes = Object.values(results);
  if (outcomes.length > 0 && outcomes.every((outcome) => "error" in outcome && outcome.error === busy)) {
    throw new HttpError(503, busy, { "Retry-After": retryAfterSeconds(deps.runtime.gate) });
  }
  showingResults(ctx, results, await identifiers);
  const common = {
    version: version.version,
    mode: version.mode,
    publishedAt: version.publishedAt,
    exportedAt: localIsoDateTime(now),
    note: version.note,
    title: shown.title,
    results,
    lang,
  };
  const specParams = spec.params ?? [];
  const drill = shown.drill ? spec.drills?.[shown.drill.key] : undefined;
  const layer: DocxLayer = drill
    ? {
        ...common,
        reportTitle: shownTitle(version.title, version.spec, lang),
        filters: [
          ...filterRows(specParams, shown.params, {}, words),
          ...drill.args.map((arg) => ({
            label: arg.name,
            value: shown.values[arg.name] == null ? words.all : String(shown.values[arg.name]),
          })),
        ],
        // A drill target without nodes of its own shows each of its queries as a table.
        nodes:
          drill.nodes ??
          Object.keys(drill.queries).map((name): NodeDef => ({ id: name, type: "table", title: name, query: name })),
      }
    : {
        ...common,
        description: spec.description,
        filters: filterRows(specParams, shown.params, results, words),
        nodes: spec.nodes,
      };

  const file = await exportDocx(layer, deps.rendering);
  if (gone.aborted) return;
  ctx.type = DOCX_CONTENT_TYPE;
  ctx.set("Content-Disposition", attachment(exportFileName(layer.title, version.version, localDate(now), "docx")));
  ctx.set("Cache-Control", "no-store");
  ctx.body = file;
}

import Router from "@koa/router";
import type { Context } from "koa";
import { exportEnabled, type NodeDef } from "../../../commands/reports/spec/specSchema.ts";
import { localDate, localIsoDateTime } from "../../../db/localDateTime.ts";
import { runSpecQueries } from "../../../queries/reports/runSpecQueries.ts";
import type { DocxLayer } from "../export/docxExport.ts";
import { DOCX_CONTENT_TYPE } from "../export/contentTypes.ts";
import { attachment, exportFileName } from "../../http/attachment.ts";
import { HttpError } from "../../http/httpError.ts";
import type { ReportRoutesDeps } from "./reportRoutes.ts";
import { checkedParams, drillLayer, reportBody, reportIdOf, resolveVersion } from "./reportRequests.ts";

/** The report routes' dependencies (the export reads with `db` and runs queries with `runtime`). */
export type DocxExportDeps = ReportRoutesDeps;

/**
 * `POST /api/reports/{id}/export/docx {version, params, drill?, args?}` (contract A.3): the
 * report's layer — or, with `drill`, the drill target's — as a Word document. Resolved like the
 * data and drill calls: a snapshot exports its frozen results, a drill always runs live.
 */
export function docxExportRoute(deps: DocxExportDeps): Router {
  const router = new Router({ prefix: "/api/reports" });

  router.post("/:id/export/docx", async (ctx: Context) => {
    const reportId = reportIdOf(ctx);
    const body = reportBody(ctx);
    const version = await resolveVersion(deps.db, ctx, reportId, body.version);
    if (!exportEnabled(version.spec, "docx")) throw new HttpError(400, "The docx export is switched off for this report.");
    const params = checkedParams(version, body.params);
    const now = new Date();
    const common = { version: version.version, mode: version.mode, publishedAt: version.publishedAt, exportedAt: localIsoDateTime(now), note: version.note };
    const specParams = version.spec.params ?? [];
    // Word, ECharts and the rasteriser are big: loaded on the first export, not at start-up.
    const { exportDocx, filterRows } = await import("../export/docxExport.ts");

    let layer: DocxLayer;
    if (body.drill !== undefined && body.drill !== null) {
      const drill = drillLayer(version, body.drill, body.args, params);
      const results = await runSpecQueries(deps.runtime, version.datasource, ctx.state.tenant, drill.drill.queries, drill.defs, drill.values);
      // A drill target without nodes of its own shows each of its queries as a table.
      const nodes: NodeDef[] = drill.drill.nodes ?? Object.keys(drill.drill.queries).map((name) => ({ id: name, type: "table", title: name, query: name }));
      layer = {
        ...common,
        title: drill.title,
        reportTitle: version.title,
        filters: [
          ...filterRows(specParams, params, {}),
          ...drill.drill.args.map((arg) => ({ label: arg.name, value: drill.values[arg.name] == null ? "(all)" : String(drill.values[arg.name]) })),
        ],
        nodes,
        results,
      };
    } else {
      if (body.args !== undefined && body.args !== null) throw new HttpError(400, "args are taken only with drill: name the drill target in drill, or leave args out.");
      // A snapshot shows what was frozen at publishing, with the filter values it was frozen with.
      const values = version.frozen ? version.params : params;
      const results = version.frozen ?? (await runSpecQueries(deps.runtime, version.datasource, ctx.state.tenant, version.spec.queries, specParams, values));
      layer = {
        ...common,
        title: version.title,
        description: version.spec.description,
        filters: filterRows(specParams, values, results),
        nodes: version.spec.nodes,
        results,
      };
    }

    const file = await exportDocx(layer);
    ctx.type = DOCX_CONTENT_TYPE;
    ctx.set("Content-Disposition", attachment(exportFileName(layer.title, version.version, localDate(now), "docx")));
    ctx.set("Cache-Control", "no-store");
    ctx.body = file;
  });

  return router;
}

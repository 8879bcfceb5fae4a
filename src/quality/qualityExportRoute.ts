import { PassThrough } from "node:stream";
import Router from "@koa/router";
import type { EventStore } from "../../db/eventStore.ts";
import { localDate, localDateTime } from "../../db/localDateTime.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { closeOf } from "../../queries/quality/closedMonths.ts";
import { wardKnown } from "../../queries/quality/monthFacts.ts";
import { monthExport } from "../../queries/quality/monthExport.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";
import { attachment } from "../http/attachment.ts";
import { requireRole } from "../http/authorAuth.ts";
import { parseBody } from "../http/validate.ts";
import { DOCX_CONTENT_TYPE, XLSX_CONTENT_TYPE } from "../reports/export/contentTypes.ts";
import type { DocxRendering } from "../reports/export/docxExport.ts";
import { qualityExportWords } from "./export/qualityExportWords.ts";
import { monthOf, noSuchWard, QUALITY_EXPORT_FORMATS, qualityExportBody, wardAsked } from "./qualityParams.ts";
import { patientsNamed } from "./qualityRoutes.ts";

export interface QualityExportDeps {
  store: EventStore;
  adminToken: string | undefined;
  access: AccessRecording;
  /** The report docx export's worker threads: the document's charts and its zipping run there. */
  rendering: DocxRendering;
}

/** `<title> <yyyy-MM-dd>.<format>`, with characters no file system accepts replaced. */
function fileName(title: string, date: string, format: (typeof QUALITY_EXPORT_FORMATS)[number]): string {
  return `${title.replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_").slice(0, 120)} ${date}.${format}`;
}

/**
 * `POST /api/quality/months/{yyyy-MM}/export { format, lang, ward? }` (contract G.2): the month
 * as `GET /api/quality/months/{yyyy-MM}` answers it — a closed month's frozen figures, an open
 * one's counted now — with its indicators' definitions, each patient's place and last value, and
 * the 12 months up to it, as a workbook or a Word document. Called, refused and recorded as that
 * answer is: role clinician or above, ward-scoped, an access record naming its patients.
 */
export function qualityExportRoute(deps: QualityExportDeps): Router {
  const router = new Router();
  const { db } = deps.store;

  router.post(
    "/api/quality/months/:month/export",
    requireRole(deps.adminToken, "clinician"),
    deps.access.recorded,
    async (ctx) => {
      const month = monthOf(ctx);
      const body = parseBody(qualityExportBody, ctx.request.body ?? {});
      const ward = wardAsked(ctx, body.ward);
      const tenant: string = ctx.state.tenant;
      const close = await closeOf(db, tenant, month, ward);
      const exported = await readAsTenant(db, tenant, async (reader) => {
        if (!close && ward !== null && !(await wardKnown(reader, ward))) throw noSuchWard(ward);
        return monthExport(reader, db, tenant, { month, ward }, close);
      });
      showing(ctx, { patientRefs: patientsNamed(exported.answer.indicators) });

      const now = new Date();
      const exportedAt = localDateTime(now);
      const name = fileName(qualityExportWords(body.lang).title(month, ward), localDate(now), body.format);
      ctx.set("Content-Disposition", attachment(name));
      ctx.set("Cache-Control", "no-store");
      if (body.format === "docx") {
        // Word, ECharts and the rasteriser are big: loaded on the first export, not at start-up.
        const { exportQualityDocx } = await import("./export/qualityDocx.ts");
        const file = await exportQualityDocx(exported, body.lang, exportedAt, deps.rendering);
        ctx.type = DOCX_CONTENT_TYPE;
        ctx.body = file;
        return;
      }
      const { writeQualityXlsx } = await import("./export/qualityXlsx.ts");
      const out = new PassThrough();
      ctx.status = 200;
      ctx.type = XLSX_CONTENT_TYPE;
      ctx.body = out;
      // Headers are gone once it streams: a failure can only cut the response, which the client sees as an error.
      writeQualityXlsx(out, exported, body.lang, exportedAt).catch((error: unknown) =>
        out.destroy(error instanceof Error ? error : new Error(String(error))),
      );
    },
  );
  return router;
}

import Router from "@koa/router";
import type { Context } from "koa";
import { reportKinds, type ReportKind } from "../../commands/ingestion/reportKinds.ts";
import type { Db } from "../../db/pool.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { reportDiff, reportHistory, reportInScope, reportVersion } from "../../queries/ingestion/reportHistory.ts";
import { mappingTimeline } from "../../queries/dictionary/itemMappings.ts";
import { principalOf } from "../http/requestState.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";

/**
 * The history of a report, its versions as accepted and what changed between two (contract D.1);
 * `dictionary` names the standard item each result of a version was mapped to.
 */
export function historyRoutes(
  db: Db,
  dictionary: Dictionary,
  adminToken: string | undefined,
  access: AccessRecording,
): Router {
  const router = new Router({ prefix: "/api/history" });
  router.use(requireRole(adminToken, "clinician"));

  const kindOf = (name: string) => {
    if (name !== "lab" && name !== "exam")
      throw new HttpError(404, "The kind of report is 'lab' or 'exam': /api/history/{lab|exam}/{externalId}.");
    return reportKinds[name];
  };
  const unknown = (kind: string, externalId: string) =>
    new HttpError(
      404,
      `There is no ${kind} report ${externalId} for this tenant; check the externalId (GET /api/unmatched lists those awaiting a patient).`,
    );
  const versionNumber = (value: unknown, name: string): number => {
    const n = typeof value === "string" && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(n))
      throw new HttpError(400, `${name} must be a version number, 1, 2, …, as the report's history lists them.`);
    return n;
  };

  /**
   * A caller limited to wards sees a report that is unmatched or of their wards' patients (contract
   * E.2); another ward's answers 404 like one that does not exist. (A report pushed a moment ago
   * and not yet in the read model is not there for them either, for that moment.)
   */
  const refuseOutsideWards = async (ctx: Context, kind: ReportKind, externalId: string) => {
    if (principalOf(ctx).wards === null) return;
    if (!(await readAsTenant(db, ctx.state.tenant, (reader) => reportInScope(reader, kind, externalId))))
      throw unknown(kind.name, externalId);
  };

  // Each answer shows a report as sent (its patient's name and id card) and whom it was matched to.
  const shownReport = (kind: string, externalId: string, patientRefs: Iterable<string | null | undefined>) => ({
    patientRefs,
    reports: [{ kind, externalId }],
  });

  router.get("/:kind/:externalId", access.recorded, async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    await refuseOutsideWards(ctx, kind, ctx.params.externalId!);
    const timeline =
      kind.name === "lab"
        ? await readAsTenant(db, ctx.state.tenant, (reader) => mappingTimeline(reader, ctx.params.externalId!))
        : undefined;
    const history = await reportHistory(db, ctx.state.tenant, kind, ctx.params.externalId!, timeline, dictionary);
    if (!history) throw unknown(kind.name, ctx.params.externalId!);
    showing(
      ctx,
      shownReport(
        kind.name,
        history.externalId,
        history.entries.map((entry) => entry.patientRef),
      ),
    );
    ctx.set("ETag", history.etag);
    ctx.body = history;
  });

  router.get("/:kind/:externalId/versions/:n", access.recorded, async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const n = versionNumber(ctx.params.n, "The version in the path");
    await refuseOutsideWards(ctx, kind, ctx.params.externalId!);
    const found = await reportVersion(db, dictionary, ctx.state.tenant, kind, ctx.params.externalId!, n);
    if (!found) {
      if (!(await reportHistory(db, ctx.state.tenant, kind, ctx.params.externalId!)))
        throw unknown(kind.name, ctx.params.externalId!);
      throw new HttpError(
        404,
        `Report ${ctx.params.externalId} has no version ${n}; its history lists the versions stored.`,
      );
    }
    showing(ctx, shownReport(kind.name, ctx.params.externalId!, found.patientRefs));
    ctx.body = found.version;
  });

  router.get("/:kind/:externalId/diff", access.recorded, async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const from = versionNumber(ctx.query.from, "from");
    const to = versionNumber(ctx.query.to, "to");
    await refuseOutsideWards(ctx, kind, ctx.params.externalId!);
    const found = await reportDiff(db, ctx.state.tenant, kind, ctx.params.externalId!, from, to);
    if (!found) throw unknown(kind.name, ctx.params.externalId!);
    if ("missing" in found)
      throw new HttpError(
        404,
        `Report ${ctx.params.externalId} has no version ${found.missing}; its history lists the versions stored.`,
      );
    showing(ctx, shownReport(kind.name, ctx.params.externalId!, found.patientRefs));
    ctx.body = found.diff;
  });
  return router;
}

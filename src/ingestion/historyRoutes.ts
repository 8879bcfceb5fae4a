import Router from "@koa/router";
import { reportKinds } from "../../commands/ingestion/reportKinds.ts";
import type { Db } from "../../db/pool.ts";
import { reportDiff, reportHistory, reportVersion } from "../../queries/ingestion/reportHistory.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";

/** The history of a report, its versions as accepted and what changed between two (contract D.1). */
export function historyRoutes(db: Db, adminToken: string | undefined): Router {
  const router = new Router({ prefix: "/api/history" });
  router.use(requireRole(adminToken, "clinician"));

  const kindOf = (name: string) => {
    if (name !== "lab" && name !== "exam") throw new HttpError(404, "The kind of report is 'lab' or 'exam': /api/history/{lab|exam}/{externalId}.");
    return reportKinds[name];
  };
  const unknown = (kind: string, externalId: string) => new HttpError(404, `There is no ${kind} report ${externalId} for this tenant; check the externalId (GET /api/unmatched lists those awaiting a patient).`);
  const versionNumber = (value: unknown, name: string): number => {
    const n = typeof value === "string" && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(n)) throw new HttpError(400, `${name} must be a version number, 1, 2, …, as the report's history lists them.`);
    return n;
  };

  router.get("/:kind/:externalId", async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const history = await reportHistory(db, ctx.state.tenant, kind, ctx.params.externalId!);
    if (!history) throw unknown(kind.name, ctx.params.externalId!);
    ctx.body = history;
  });

  router.get("/:kind/:externalId/versions/:n", async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const n = versionNumber(ctx.params.n, "The version in the path");
    const version = await reportVersion(db, ctx.state.tenant, kind, ctx.params.externalId!, n);
    if (!version) {
      if (!(await reportHistory(db, ctx.state.tenant, kind, ctx.params.externalId!))) throw unknown(kind.name, ctx.params.externalId!);
      throw new HttpError(404, `Report ${ctx.params.externalId} has no version ${n}; its history lists the versions stored.`);
    }
    ctx.body = version;
  });

  router.get("/:kind/:externalId/diff", async (ctx) => {
    const kind = kindOf(ctx.params.kind!);
    const from = versionNumber(ctx.query.from, "from");
    const to = versionNumber(ctx.query.to, "to");
    const diff = await reportDiff(db, ctx.state.tenant, kind, ctx.params.externalId!, from, to);
    if (!diff) throw unknown(kind.name, ctx.params.externalId!);
    if ("missing" in diff) throw new HttpError(404, `Report ${ctx.params.externalId} has no version ${diff.missing}; its history lists the versions stored.`);
    ctx.body = diff;
  });
  return router;
}

import Router from "@koa/router";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { bulkJobExists, bulkJobRejections, listBulkJobs } from "../../queries/bulk/bulkJobs.ts";
import { requireAuthor } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { jobIdFromPath, rejectedPageOf } from "./openV1/bulkRoutes.ts";

/** The tenant's bulk jobs (contract D.4) as staff follow them: every client's, read-only. */
export function bulkJobRoutes(db: Db, adminToken: string | undefined): Router {
  const router = new Router({ prefix: "/api/bulk-jobs" });
  router.use(requireAuthor(adminToken));

  router.get("/", async (ctx) => {
    ctx.body = await readAsTenant(db, ctx.state.tenant, listBulkJobs);
  });

  router.get("/:jobId/rejected", async (ctx) => {
    const jobId = jobIdFromPath(ctx.params.jobId!);
    if (!jobId) throw unknownJob(ctx.params.jobId!);
    const { offset, limit } = rejectedPageOf(ctx.query);
    const page = await readAsTenant(db, ctx.state.tenant, async (reader) => ((await bulkJobExists(reader, jobId)) ? bulkJobRejections(reader, jobId, offset, limit) : null));
    if (!page) throw unknownJob(jobId);
    ctx.body = page;
  });
  return router;
}

function unknownJob(jobId: string): HttpError {
  return new HttpError(404, `There is no bulk job ${jobId.slice(0, 64)} for this tenant; GET /api/bulk-jobs lists its jobs with their jobId.`);
}

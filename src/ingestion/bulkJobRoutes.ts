import Router from "@koa/router";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { z } from "zod";
import { bulkJobExists, bulkJobListKey, bulkJobRejections, listBulkJobs } from "../../queries/bulk/bulkJobs.ts";
import { answerPage, pageOf, pageQuery, rowsFor } from "../http/paging.ts";
import { listTurn } from "../http/listTurns.ts";
import { parseBody } from "../http/validate.ts";
import { requireAuthor } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { jobIdFromPath, rejectedAnswer, rejectedPageOf } from "./openV1/bulkRoutes.ts";

/** `GET /api/bulk-jobs?limit=&cursor=`: newest first, a page at a time (contract E.6); other parameters are left alone, as before. */
export const bulkJobListQuery = z.object(pageQuery);

/** The tenant's bulk jobs (contract D.4) as staff follow them: every client's, read-only. */
export function bulkJobRoutes(db: Db, adminToken: string | undefined): Router {
  const router = new Router({ prefix: "/api/bulk-jobs" });
  router.use(requireAuthor(adminToken));

  router.get("/", listTurn, async (ctx) => {
    const page = pageOf(parseBody(bulkJobListQuery, ctx.query), bulkJobListKey);
    const rows = await readAsTenant(db, ctx.state.tenant, (reader) => listBulkJobs(reader, rowsFor(page)));
    ctx.body = answerPage(ctx, page, rows, (job) => job.key).map(({ key: _, ...job }) => job);
  });

  router.get("/:jobId/rejected", listTurn, async (ctx) => {
    const jobId = jobIdFromPath(ctx.params.jobId!);
    if (!jobId) throw unknownJob(ctx.params.jobId!);
    const asked = rejectedPageOf(ctx.query);
    const page = await readAsTenant(db, ctx.state.tenant, async (reader) =>
      (await bulkJobExists(reader, jobId)) ? bulkJobRejections(reader, jobId, asked) : null,
    );
    if (!page) throw unknownJob(jobId);
    ctx.body = rejectedAnswer(page);
  });
  return router;
}

function unknownJob(jobId: string): HttpError {
  return new HttpError(
    404,
    `There is no bulk job ${jobId.slice(0, 64)} for this tenant; GET /api/bulk-jobs lists its jobs with their jobId.`,
  );
}

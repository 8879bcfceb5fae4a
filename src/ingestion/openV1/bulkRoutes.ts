import { clientOf } from "../../http/requestState.ts";
import type Router from "@koa/router";
import type { Context } from "koa";
import type { IncomingMessage } from "node:http";
import { pipeline } from "node:stream";
import { createGunzip } from "node:zlib";
import { z } from "zod";
import { BULK_LIMITS, submitBulkJob } from "../../../commands/bulk/submitBulkJob.ts";
import { CommandError } from "../../../commands/kit/commandError.ts";
import { reportKinds, type ReportKind } from "../../../commands/ingestion/reportKinds.ts";
import type { EventStore } from "../../../db/eventStore.ts";
import { readAsTenant } from "../../../db/tenantScope.ts";
import { waitForProjection } from "../../../projections/runtime/waitForProjection.ts";
import { bulkJobOfClient, bulkJobRejections, type BulkRejectedAnswer } from "../../../queries/bulk/bulkJobs.ts";
import { cursorOf, keyOfCursor, pageCursor } from "../../http/paging.ts";
import { listTurn } from "../../http/listTurns.ts";
import { HttpError } from "../../http/httpError.ts";
import { answer } from "./envelope.ts";

export const NDJSON_TYPE = "application/x-ndjson";
const MAX_REJECTED_PAGE = 1000;

/** Contract D.4: the `data` of a 202 to a bulk upload. */
export const bulkSubmittedAnswer = z.object({
  jobId: z.string().meta({ description: "Keep it: the job's status and rejected lines are read with it" }),
  status: z.literal("QUEUED"),
  lines: z.int().meta({ description: "Reports in the body (non-blank lines)" }),
  statusUrl: z.string().meta({ example: "/open/v1/bulk/0b6f3c1e-8d2a-4f55-9a57-2f1c3f7f0a11" }),
});

const PAGE_PROBLEM = `offset must be a whole number from 0 and limit one from 1 to ${MAX_REJECTED_PAGE}, e.g. ?offset=0&limit=100.`;
const GIVEN_IN = "the next of the page before";
export const rejectedPageQuery = z.object({
  offset: z.coerce
    .number({ error: PAGE_PROBLEM })
    .int({ error: PAGE_PROBLEM })
    .min(0, { error: PAGE_PROBLEM })
    .default(0)
    .meta({ description: "Rejected lines to skip (in line order)" }),
  limit: z.coerce
    .number({ error: PAGE_PROBLEM })
    .int({ error: PAGE_PROBLEM })
    .min(1, { error: PAGE_PROBLEM })
    .max(MAX_REJECTED_PAGE, { error: PAGE_PROBLEM })
    .default(100)
    .meta({ description: `At most ${MAX_REJECTED_PAGE}` }),
  cursor: pageCursor(GIVEN_IN),
});

/** The page of rejected lines a query string asks for: by offset, or after the cursor of the page before (contract E.6); else a 400 saying how to ask. */
export function rejectedPageOf(query: unknown): { offset: number; limit: number; afterLine: number | null } {
  const page = rejectedPageQuery.safeParse(query);
  if (!page.success) {
    const cursorIssue = page.error.issues.find((issue) => issue.path[0] === "cursor");
    throw new HttpError(400, cursorIssue ? `${cursorIssue.message}.` : PAGE_PROBLEM);
  }
  const { offset, limit, cursor } = page.data;
  if (cursor === undefined) return { offset, limit, afterLine: null };
  if (offset !== 0)
    throw new HttpError(400, "Send offset or cursor, not both: the cursor already says where the page starts.");
  return { offset: 0, limit, afterLine: keyOfCursor(cursor, z.int().min(0), GIVEN_IN) };
}

/** The answer of a page of rejected lines: `next` is the cursor of the page after it, or null. */
export function rejectedAnswer({
  moreAfter,
  ...page
}: Awaited<ReturnType<typeof bulkJobRejections>>): BulkRejectedAnswer {
  return { ...page, next: moreAfter === null ? null : cursorOf(moreAfter) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A job id from a path, as stored (lower case); null for one that is no UUID, so no job's. */
export function jobIdFromPath(value: string): string | null {
  return UUID.test(value) ? value.toLowerCase() : null;
}

export interface BulkRoutesDeps {
  store: EventStore;
  /** Tells the workers a job is waiting (a local wake and a pg-boss wake-up for other processes). */
  wakeBulkImport: () => void;
}

/** The bulk import calls of /open/v1 (contract D.4), on the router that already knows the client. */
export function addBulkRoutes(router: Router, deps: BulkRoutesDeps): void {
  const submit = (kind: ReportKind) => async (ctx: Context) => {
    const client = clientOf(ctx);
    const { gzip } = checkUploadHeaders(ctx);
    let job;
    try {
      job = await submitBulkJob(deps.store, kind, client, requestBytes(ctx.req, gzip), {
        requestId: ctx.state.requestId,
        gzip,
      });
    } catch (error) {
      // The sender may still be sending: this answer ends the connection rather than read the rest.
      if (error instanceof CommandError || error instanceof HttpError) ctx.set("Connection", "close");
      throw error;
    }
    // Read-your-writes: the status call made right after this answer finds the job.
    await waitForProjection(deps.store.db, "bulk_jobs", job.last);
    deps.wakeBulkImport();
    answer(
      ctx,
      {
        jobId: job.jobId,
        status: "QUEUED",
        lines: job.lines,
        statusUrl: `/open/v1/bulk/${job.jobId}`,
      } satisfies z.infer<typeof bulkSubmittedAnswer>,
      202,
      "accepted",
    );
  };
  router.post("/lab/reports/bulk", submit(reportKinds.lab));
  router.post("/exam/reports/bulk", submit(reportKinds.exam));

  const jobIdOf = (ctx: Context): string => {
    const jobId = jobIdFromPath(ctx.params.jobId!);
    if (!jobId) throw notFound(ctx.params.jobId!);
    return jobId;
  };
  router.get("/bulk/:jobId", async (ctx) => {
    const jobId = jobIdOf(ctx);
    const client = clientOf(ctx);
    const job = await readAsTenant(deps.store.db, ctx.state.tenant, (reader) =>
      bulkJobOfClient(reader, jobId, client.clientId),
    );
    if (!job) throw notFound(jobId);
    answer(ctx, job);
  });
  router.get("/bulk/:jobId/rejected", listTurn, async (ctx) => {
    const jobId = jobIdOf(ctx);
    const asked = rejectedPageOf(ctx.query);
    const client = clientOf(ctx);
    const page = await readAsTenant(deps.store.db, ctx.state.tenant, async (reader) => {
      if (!(await bulkJobOfClient(reader, jobId, client.clientId))) return null;
      return bulkJobRejections(reader, jobId, asked);
    });
    if (!page) throw notFound(jobId);
    answer(ctx, rejectedAnswer(page));
  });
}

function notFound(jobId: string): HttpError {
  return new HttpError(
    404,
    `There is no bulk job ${jobId.slice(0, 64)} of this client; use the jobId the upload was answered with, and the same key.`,
  );
}

function checkUploadHeaders(ctx: Context): { gzip: boolean } {
  const type = ctx.get("content-type").split(";")[0]!.trim().toLowerCase();
  if (type !== NDJSON_TYPE) {
    throw new HttpError(
      400,
      `Send the reports as NDJSON, one report per line, with Content-Type: ${NDJSON_TYPE}${type ? ` (not ${type.slice(0, 60)})` : ""}.`,
    );
  }
  const encoding = ctx.get("content-encoding").trim().toLowerCase();
  if (encoding !== "" && encoding !== "identity" && encoding !== "gzip") {
    throw new HttpError(
      400,
      `Content-Encoding ${encoding.slice(0, 40)} is not supported; send the body as it is, or gzip it with Content-Encoding: gzip.`,
    );
  }
  const gzip = encoding === "gzip";
  const length = Number(ctx.get("content-length"));
  if (!gzip && length > BULK_LIMITS.maxBytes) {
    ctx.set("Connection", "close");
    throw new HttpError(
      413,
      `The body is larger than ${BULK_LIMITS.maxBytes / 1024 / 1024} MB; split it into several jobs.`,
    );
  }
  return { gzip };
}

/** The body's bytes, gunzipped when sent so; a broken gzip stream or a cut-off upload is the sender's to fix. */
async function* requestBytes(req: IncomingMessage, gzip: boolean): AsyncGenerator<Buffer> {
  const source = gzip ? pipeline(req, createGunzip(), () => {}) : req;
  try {
    for await (const chunk of source) yield chunk as Buffer;
  } catch (error) {
    if (
      gzip &&
      typeof (error as { code?: unknown }).code === "string" &&
      (error as { code: string }).code.startsWith("Z_")
    ) {
      throw new CommandError(
        "invalid",
        "The body is not valid gzip (or it was cut off); compress the NDJSON whole with gzip, or send it uncompressed without Content-Encoding.",
      );
    }
    if (req.destroyed || (error as { code?: string }).code === "ECONNRESET")
      throw new CommandError("invalid", "The upload ended early; send the whole body again.");
    throw error;
  }
}

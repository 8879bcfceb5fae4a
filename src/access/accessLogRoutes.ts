import { PassThrough } from "node:stream";
import Router from "@koa/router";
import type { Context } from "koa";
import { z } from "zod";
import { PATIENT_REF_PATTERN } from "../../commands/patients/registerPatient.ts";
import type { Db } from "../../db/pool.ts";
import { isCalendarDate, localDateTime, localDaySpan, parseLocalDateTime } from "../../db/localDateTime.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import {
  accessRecordSchema,
  patientAccessKey,
  patientAccessLog,
  tenantAccessKey,
  tenantAccessLog,
  type AccessPeriod,
  type TenantAccessFilter,
} from "../../queries/access/accessLog.ts";
import { attachment } from "../http/attachment.ts";
import { XLSX_CONTENT_TYPE } from "../reports/export/contentTypes.ts";
import { exportLangField } from "../reports/export/exportWords.ts";
import { requireRole } from "../http/authorAuth.ts";
import { listTurn } from "../http/listTurns.ts";
import { principalOf } from "../http/requestState.ts";
import { patientVisible } from "../../queries/patients/patients.ts";
import { HttpError } from "../http/httpError.ts";
import { answerPage, cursorOf, keyOfCursor, MAX_PAGE_SIZE, pageOf, pageQuery, rowsFor } from "../http/paging.ts";
import { parseBody } from "../http/validate.ts";

/*
 * Reading the access log (contract E.4): who was shown a patient, and every record of the tenant
 * (X-Service-Tenant) a page at a time. Role admin: the tenant's administrators and the operator's
 * ADMIN_TOKEN (docs/operations.md, Access log). An administrator limited to some wards reads the
 * records of their wards' patients: another ward's patient is not there (404), as everywhere.
 */

const MOMENT_FORMS =
  "a day (yyyy-MM-dd) or a local date-time (yyyy-MM-ddTHH:mm:ss), e.g. 2026-03-01 or 2026-03-01T08:00:00";

/** `2026-03-01`, `2026-03-01T08:00:00` or `2026-03-01 08:00:00`, local time; null for anything else. */
function momentOf(text: string): { start: Date; end: Date } | null {
  if (isCalendarDate(text)) return localDaySpan(text);
  const start = parseLocalDateTime(text.replace("T", " "));
  return start ? { start, end: new Date(start.getTime() + 1000) } : null;
}

const moment = (name: "from" | "to", description: string) =>
  z
    .string({ error: `${name} must be ${MOMENT_FORMS}, sent once` })
    .refine((text) => momentOf(text) !== null, `${name} must be ${MOMENT_FORMS}`)
    .optional()
    .meta({ description, example: name === "from" ? "2026-03-01" : "2026-03-31T23:59:59" });

const period = {
  from: moment("from", "Records of answers given at or after this moment (a day: from its start), local time"),
  to: moment("to", "Records of answers given up to this moment included (a day: the whole day), local time"),
};

/** `GET /api/patients/{patientRef}/access-log` */
export const patientAccessLogQuery = z.strictObject(
  { ...period, ...pageQuery },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `The query parameters are from and to (each ${MOMENT_FORMS}), limit and cursor`
        : undefined,
  },
);

const ADMIN_PAGE = 100;
const limitProblem = `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`;
const TENANT_PARAMS = `who, patientRef, action, from and to (each ${MOMENT_FORMS}), order, limit and cursor`;

/** What the tenant's log is narrowed to (issue #54: filters beside who); the list and the export take the same. */
const tenantLogFilters = {
  who: z
    .string({ error: "who is the name a record shows as its who, sent once" })
    .min(1, "who must not be empty")
    .max(200, "who has at most 200 characters")
    .optional()
    .meta({ description: "Only the records of this caller (exactly as records show who)" }),
  patientRef: z
    .string({ error: "patientRef is sent once" })
    .regex(
      PATIENT_REF_PATTERN,
      "patientRef must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit",
    )
    .optional()
    .meta({ description: "Only the records that name this patient among those shown", example: "P001" }),
  action: z
    .string({ error: "action is a route as records show it, sent once" })
    .min(1, "action must not be empty")
    .max(200, "action has at most 200 characters")
    .optional()
    .meta({
      description: "Only the records of this route, exactly as records show action",
      example: "GET /api/patients/{patientRef}/results",
    }),
  ...period,
  order: z
    .enum(["oldest", "newest"], { error: "order is oldest (the order the log was written in, the default) or newest" })
    .default("oldest")
    .meta({
      description:
        "oldest: in the order written (the default); newest: the latest first. Send a cursor with the order it came with",
    }),
};

/** `GET /api/admin/access-log` */
export const tenantAccessLogQuery = z.strictObject(
  {
    ...tenantLogFilters,
    limit: z.coerce
      .number({ error: limitProblem })
      .int(limitProblem)
      .min(1, limitProblem)
      .max(MAX_PAGE_SIZE, limitProblem)
      .default(ADMIN_PAGE)
      .meta({ description: `Records per page (1 to ${MAX_PAGE_SIZE}, default ${ADMIN_PAGE})` }),
    cursor: z
      .string({ error: "cursor is sent once" })
      .max(200, "cursor is too long: send back the next of the page before")
      .optional()
      .meta({ description: "The next of the page before; opaque" }),
  },
  {
    error: (issue) => (issue.code === "unrecognized_keys" ? `The query parameters are ${TENANT_PARAMS}` : undefined),
  },
);

/** `GET /api/admin/access-log/export` */
export const tenantAccessLogExportQuery = z.strictObject(
  {
    ...tenantLogFilters,
    format: z
      .enum(["xlsx", "csv"], { error: "format is xlsx or csv" })
      .default("xlsx")
      .meta({ description: "xlsx (the default; a sheet of the records and one of the filters) or csv (UTF-8)" }),
    lang: exportLangField,
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `The query parameters are who, patientRef, action, from and to (each ${MOMENT_FORMS}), order, format and lang`
        : undefined,
  },
);

export const tenantAccessLogAnswer = z.object({
  records: z.array(accessRecordSchema).meta({ description: "In the order they were written to the log" }),
  next: z.string().nullable().meta({ description: "The cursor of the following page, or null when this is the last" }),
});

function periodOf(query: { from?: string; to?: string }): AccessPeriod {
  const from = query.from === undefined ? null : momentOf(query.from)!.start;
  const before = query.to === undefined ? null : momentOf(query.to)!.end;
  if (from && before && from >= before)
    throw new HttpError(400, `from (${query.from}) is after to (${query.to}); send from on or before to.`);
  return { from, before };
}

/** Records of a page of an export: one short read each. */
const EXPORT_PAGE = 1000;

/** The tenant's log names patients of every ward: it is for an administrator of every ward. */
function refuseWardLimited(ctx: Context): void {
  const { wards } = principalOf(ctx);
  if (wards !== null)
    throw new HttpError(
      403,
      `The tenant's access log names patients of every ward, and this administrator's wards are ${wards.join(", ")}; read a patient's log at GET /api/patients/{patientRef}/access-log, or ask an administrator of every ward.`,
      {},
      "access-log-every-ward",
    );
}

/** The filters of a list or export call, as the query reads them. */
function filterOf(query: {
  who?: string;
  patientRef?: string;
  action?: string;
  from?: string;
  to?: string;
}): TenantAccessFilter {
  return {
    ...periodOf(query),
    who: query.who ?? null,
    patientRef: query.patientRef ?? null,
    action: query.action ?? null,
  };
}

export function accessLogRoutes(db: Db, adminToken: string | undefined): Router {
  const router = new Router();
  const admin = requireRole(adminToken, "admin");

  router.get("/api/patients/:patientRef/access-log", admin, listTurn, async (ctx) => {
    const patientRef = ctx.params.patientRef!;
    if (!PATIENT_REF_PATTERN.test(patientRef))
      throw new HttpError(
        400,
        "patientRef must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit.",
      );
    const query = parseBody(patientAccessLogQuery, ctx.query);
    const between = periodOf(query);
    const page = pageOf(query, patientAccessKey);
    const rows = await readAsTenant(db, ctx.state.tenant, async (reader) => {
      // Only a ward-limited caller can miss the patient; for others an unknown patient simply has no records.
      if (principalOf(ctx).wards !== null && !(await patientVisible(reader, patientRef)))
        throw new HttpError(
          404,
          "There is no such patient in your wards; GET /api/patients lists the patients you may see.",
        );
      return patientAccessLog(reader, patientRef, between, rowsFor(page));
    });
    ctx.body = answerPage(ctx, page, rows, (row) => row.key).map(({ key: _, ...record }) => record);
  });

  router.get("/api/admin/access-log", admin, listTurn, async (ctx) => {
    refuseWardLimited(ctx);
    const query = parseBody(tenantAccessLogQuery, ctx.query);
    const filter = filterOf(query);
    const after =
      query.cursor === undefined ? null : keyOfCursor(query.cursor, tenantAccessKey, "the next of the page before");
    const rows = await readAsTenant(db, ctx.state.tenant, (reader) =>
      tenantAccessLog(reader, filter, { limit: query.limit + 1, after, order: query.order }),
    );
    const page = rows.slice(0, query.limit);
    ctx.body = {
      records: page.map(({ key: _, ...record }) => record),
      next: rows.length > query.limit ? cursorOf(page.at(-1)!.key) : null,
    } satisfies z.infer<typeof tenantAccessLogAnswer>;
  });

  // The records a filter chose, as a file: read a page at a time by the same keyset as the list,
  // each page in a short read of its own, so the file never holds a connection while its reader reads.
  router.get("/api/admin/access-log/export", admin, listTurn, async (ctx) => {
    refuseWardLimited(ctx);
    const query = parseBody(tenantAccessLogExportQuery, ctx.query);
    const filter = filterOf(query);
    const tenant: string = ctx.state.tenant;
    // exceljs is loaded on the first export, not at start (as the report exports do).
    const { accessExportFileName, writeAccessLogFile } = await import("./accessLogExport.ts");
    const about = {
      tenant,
      exportedAt: localDateTime(new Date()),
      filters: { who: query.who, patientRef: query.patientRef, action: query.action, from: query.from, to: query.to },
      lang: query.lang ?? "en",
    };
    const stop = new AbortController();
    const out = new PassThrough();
    let complete = false;
    out.once("close", () => {
      if (!complete) stop.abort();
    });
    async function* pages() {
      for (let after: number | null = null; ;) {
        const rows = await readAsTenant(db, tenant, (reader) =>
          tenantAccessLog(reader, filter, { limit: EXPORT_PAGE, after, order: query.order }),
        );
        if (rows.length === 0) return;
        yield rows.map(({ key: _, ...record }) => record);
        if (rows.length < EXPORT_PAGE || stop.signal.aborted) return;
        after = rows.at(-1)!.key;
      }
    }
    ctx.status = 200;
    ctx.type = query.format === "csv" ? "text/csv; charset=utf-8" : XLSX_CONTENT_TYPE;
    ctx.set("Content-Disposition", attachment(accessExportFileName(about, query.format)));
    ctx.set("Cache-Control", "no-store");
    ctx.body = out;
    writeAccessLogFile(out, query.format, about, pages(), stop.signal).then(
      () => (complete = true),
      // Headers are gone already: a failure can only cut the response, which the client sees as an error.
      (error) => out.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  });
  return router;
}

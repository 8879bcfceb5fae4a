import Router from "@koa/router";
import { z } from "zod";
import { PATIENT_REF_PATTERN } from "../../commands/patients/registerPatient.ts";
import type { Db } from "../../db/pool.ts";
import { isCalendarDate, localDaySpan, parseLocalDateTime } from "../../db/localDateTime.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import {
  accessRecordSchema,
  patientAccessKey,
  patientAccessLog,
  tenantAccessKey,
  tenantAccessLog,
  type AccessPeriod,
} from "../../queries/access/accessLog.ts";
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

/** `GET /api/admin/access-log` */
export const tenantAccessLogQuery = z.strictObject(
  {
    who: z
      .string({ error: "who is the name a record shows as its who, sent once" })
      .min(1, "who must not be empty")
      .max(200, "who has at most 200 characters")
      .optional()
      .meta({ description: "Only the records of this caller (exactly as records show who)" }),
    ...period,
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
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `The query parameters are who, from and to (each ${MOMENT_FORMS}), limit and cursor`
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
    // Records name patients of every ward, so the tenant's whole log is for an administrator of every ward.
    const { wards } = principalOf(ctx);
    if (wards !== null)
      throw new HttpError(
        403,
        "The tenant's access log names patients of every ward, and this administrator's wards are " +
          `${wards.join(", ")}; read a patient's log at GET /api/patients/{patientRef}/access-log, or ask an ` +
          "administrator of every ward.",
      );
    const query = parseBody(tenantAccessLogQuery, ctx.query);
    const between = periodOf(query);
    const after =
      query.cursor === undefined ? null : keyOfCursor(query.cursor, tenantAccessKey, "the next of the page before");
    const rows = await readAsTenant(db, ctx.state.tenant, (reader) =>
      tenantAccessLog(reader, { ...between, who: query.who ?? null }, { limit: query.limit + 1, after }),
    );
    const page = rows.slice(0, query.limit);
    ctx.body = {
      records: page.map(({ key: _, ...record }) => record),
      next: rows.length > query.limit ? cursorOf(page.at(-1)!.key) : null,
    } satisfies z.infer<typeof tenantAccessLogAnswer>;
  });
  return router;
}

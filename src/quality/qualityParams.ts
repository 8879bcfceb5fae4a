import type { Context } from "koa";
import { z } from "zod";
import { MONTH_PATTERN } from "../../commands/quality/events.ts";
import { localDate } from "../../db/localDateTime.ts";
import { WARD_PATTERN } from "../../db/wardScope.ts";
import { HttpError } from "../http/httpError.ts";
import { QUALITY_EXPORT_LANGS } from "./export/qualityExportWords.ts";
import { principalOf } from "../http/requestState.ts";

/*
 * What the quality routes (contract G.2) take from a request: the month of the path, the ward of
 * the query or body, each checked once here (and documented from the same schemas), so that a bad
 * one is a 400 that says how to write it, never a database error.
 */

/** The earliest month the figures are asked for: before it a month is a typing mistake. */
export const FIRST_MONTH = "1900-01";

/** The current month in the service's time zone (TZ), yyyy-MM. */
export function currentMonth(now = new Date()): string {
  return localDate(now).slice(0, 7);
}

export const monthPath = z.object({
  month: z.string().regex(MONTH_PATTERN).meta({
    description: "The month, yyyy-MM (in the service's time zone), not after the current one",
    example: "2026-10",
  }),
});

/** Whether figures may be asked of `month`: yyyy-MM, from FIRST_MONTH to the current month. */
export function isAnswerableMonth(month: string): boolean {
  return MONTH_PATTERN.test(month) && month >= FIRST_MONTH && month <= currentMonth();
}

/** The path's month, or 400 saying how to write one. */
export function monthOf(ctx: Pick<Context, "params">): string {
  const month = (ctx.params as Record<string, string | undefined>).month ?? "";
  if (!isAnswerableMonth(month))
    throw new HttpError(
      400,
      `The month must be written yyyy-MM (e.g. ${currentMonth()}), from ${FIRST_MONTH} to the current month; ${JSON.stringify(month.slice(0, 20))} is not one.`,
      {},
      "month-invalid",
    );
  return month;
}

const wardSchema = z
  .string({ error: "ward is one ward's name, sent once" })
  .regex(WARD_PATTERN, "ward has 1 to 64 characters and no control characters")
  .meta({ description: "A ward's figures; left out, the whole tenant's", example: "A" });

export const wardQuery = z.strictObject(
  { ward: wardSchema.optional() },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? "The only query parameter is ward (one ward's name)" : undefined,
  },
);

export const offTargetQuery = z.strictObject(
  {
    ward: wardSchema.optional(),
    code: z
      .string({ error: "code is one indicator's code, sent once, e.g. HGB_TARGET" })
      .regex(
        /^[A-Z][A-Z0-9_]*$/,
        "code is an indicator's code, e.g. HGB_TARGET (GET /api/quality/indicators lists them)",
      )
      .meta({ description: "The indicator (a target or a tested one)", example: "HGB_TARGET" }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? "The query parameters are code (an indicator's) and ward" : undefined,
  },
);

export const noQuery = z.strictObject(
  {},
  { error: (issue) => (issue.code === "unrecognized_keys" ? "This call takes no query parameter" : undefined) },
);

export const closeBody = z.strictObject(
  { ward: wardSchema.nullable().optional() },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "The body holds ward only (a ward's name, or left out for the whole tenant)"
        : undefined,
  },
);

export const QUALITY_EXPORT_FORMATS = ["xlsx", "docx"] as const;

/** Contract G.2: the body of `POST /api/quality/months/{yyyy-MM}/export`. */
export const qualityExportBody = z.strictObject(
  {
    format: z
      .enum(QUALITY_EXPORT_FORMATS, { error: "format must be xlsx (a workbook) or docx (a Word document)" })
      .meta({ description: "xlsx: a workbook; docx: a Word document" }),
    lang: z
      .enum(QUALITY_EXPORT_LANGS, { error: "lang must be zh or en: the language of every word of the file" })
      .meta({ description: "The language of every word of the file (zh or en)", example: "zh" }),
    ward: wardSchema.nullable().optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? 'The body holds format, lang and ward only (e.g. { "format": "xlsx", "lang": "zh" })'
        : undefined,
  },
);

/**
 * The ward a call counts: the one asked for, or null for the whole tenant. A caller limited to
 * wards (contract E.2) names one of them: the whole tenant's figures would count patients it may
 * not see, and another ward is answered as one that does not exist.
 */
export function wardAsked(ctx: Pick<Context, "state">, asked: string | null | undefined): string | null {
  const wards = principalOf(ctx).wards;
  if (wards === null) return asked ?? null;
  if (asked === undefined || asked === null)
    throw new HttpError(
      400,
      `You see the patients of your wards only: name one of them, ward=${wards.map((ward) => JSON.stringify(ward)).join(" or ")}.`,
      {},
      "ward-required",
    );
  if (!wards.includes(asked)) throw noSuchWard(asked);
  return asked;
}

/** A ward no patient of the tenant is in, or one outside the caller's: the same answer (contract E.2). */
export function noSuchWard(ward: string): HttpError {
  return new HttpError(
    404,
    `No patient of this tenant is in ward ${JSON.stringify(ward)}; GET /api/patients lists the patients with their wards.`,
    {},
    "ward-not-found",
  );
}

import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { z } from "zod";
import { API_ERROR_CODES, type ApiErrorCode } from "../../commands/kit/errorCodes.ts";
import { SPEC_PROBLEM_CODES } from "../../commands/reports/spec/specSchema.ts";
import { interfaceErrors, type Failure } from "./failureOf.ts";

/** Every `/api` failure (contract A.1 rule 2). */
export const apiErrorSchema = z.object({
  error: z.string().meta({ description: "One sentence that tells the caller how to fix the call" }),
  code: z
    .enum(API_ERROR_CODES)
    .optional()
    .meta({
      description:
        "A stable code of the failure, beside the sentence, for pages that show it in their own language; only " +
        "some failures have one, and codes are only ever added",
    }),
  problems: z
    .array(
      z.object({
        path: z.string().meta({ description: "Where in the spec, as in the sentence (nodes[2].query)" }),
        code: z.enum(SPEC_PROBLEM_CODES),
        message: z.string().meta({ description: "How to fix it" }),
      }),
    )
    .optional()
    .meta({
      description:
        "A refused report spec (code spec-invalid): its first problems, each with its place and a code a page words in its language",
    }),
});

const SENTENCES = {
  unavailable: "The service cannot reach its database right now; try again in a few seconds.",
  fault: "The service failed to answer this request; try again, and report the X-Request-Id if it persists.",
};

/**
 * The one place `/api` failures are shaped: `{ error: "<how to fix the call>", code? }`. Anything that
 * is not an HttpError is a fault of ours: logged in full, answered with a generic sentence.
 */
export function apiErrors(log: Logger): Middleware {
  const write = (
    ctx: Context,
    status: number,
    message: string,
    code?: ApiErrorCode,
    problems?: Failure["problems"],
  ) => {
    ctx.status = status;
    ctx.body = { error: message, ...(code ? { code } : {}), ...(problems ? { problems } : {}) };
  };
  return interfaceErrors(log, SENTENCES, {
    write,
    unmatched: (ctx) => write(ctx, 404, `There is no ${ctx.method} ${ctx.path}; see /llms.txt for the interface.`),
  });
}

import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { z } from "zod";
import { interfaceErrors } from "../../http/failureOf.ts";

/** Every /open/v1 answer (contract B.1), `data` described by the call; the HTTP status equals `code`. */
export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.int().meta({ description: "Equals the HTTP status", example: 200 }),
    msg: z.string().meta({ description: "ok, or one sentence that tells the sender how to fix the call", example: "ok" }),
    data,
    timestamp: z.int().meta({ description: "Epoch milliseconds", example: 1772325000000 }),
  });
}

/** Every /open/v1 answer: `{ code, msg, data, timestamp }`, with the HTTP status equal to `code`. */
export function answer(ctx: Context, data: unknown, code = 200, msg = "ok"): void {
  ctx.status = code;
  ctx.body = { code, msg, data, timestamp: Date.now() };
}

const SENTENCES = {
  unavailable: "The service cannot reach its database right now; push again in a few seconds, nothing was lost.",
  fault: "The service failed to handle this call; push again, and report the X-Request-Id if it persists.",
};

/** The one place /open/v1 failures are shaped. Faults of ours are logged whole and answered generically. */
export function openApiErrors(log: Logger): Middleware {
  return interfaceErrors(log, SENTENCES, {
    write: (ctx, status, message) => answer(ctx, null, status, message),
    unmatched: (ctx) => answer(ctx, null, 404, `There is no ${ctx.method} ${ctx.path}; the calls are listed at /md/integration-guide.md.`),
  });
}

import type { Middleware } from "koa";
import type { Logger } from "pino";
import { z } from "zod";
import { CommandError, type CommandErrorKind } from "../../commands/commandError.ts";
import { isTransient } from "../../db/transientErrors.ts";
import { HttpError } from "./httpError.ts";

/** Every `/api` failure (contract A.1 rule 2). */
export const apiErrorSchema = z.object({ error: z.string().meta({ description: "One sentence that tells the caller how to fix the call" }) });

const COMMAND_ERROR_STATUS: Record<CommandErrorKind, number> = { invalid: 400, "too-large": 413, "not-found": 404, conflict: 409, unavailable: 503 };

/**
 * The one place `/api` failures are shaped: `{ error: "<how to fix the call>" }`. Anything that
 * is not an HttpError is a fault of ours: logged in full, answered with a generic sentence.
 */
export function apiErrors(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpError(404, `There is no ${ctx.method} ${ctx.path}; see /llms.txt for the interface.`);
      }
    } catch (error) {
      if (error instanceof CommandError) {
        ctx.status = COMMAND_ERROR_STATUS[error.kind];
        ctx.body = { error: error.message };
        return;
      }
      if (error instanceof HttpError) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = { error: error.message };
        return;
      }
      if (isTransient(error)) {
        log.warn({ err: error }, "database unavailable");
        ctx.status = 503;
        ctx.set("Retry-After", "5");
        ctx.body = { error: "The service cannot reach its database right now; try again in a few seconds." };
        return;
      }
      log.error({ err: error }, "request failed");
      ctx.status = 500;
      ctx.body = { error: "The service failed to answer this request; try again, and report the X-Request-Id if it persists." };
    }
  };
}

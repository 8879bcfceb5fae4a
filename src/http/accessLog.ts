import type { Middleware } from "koa";
import type { Logger } from "pino";
import { isInternalRequest } from "./internalRequests.ts";

export function accessLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = ctx.status >= 500 ? "error" : isInternalRequest(ctx) ? "debug" : "info";
      log[level]({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, "request");
    }
  };
}

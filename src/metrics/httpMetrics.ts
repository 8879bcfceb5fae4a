import type { Middleware } from "koa";
import type { ServiceMetrics } from "./serviceMetrics.ts";

/**
 * Counts and times every answer under its route pattern (`/api/reports/:id/data`), never the path
 * itself: a path holds ids, and a label value per id would grow without end. A path no route
 * matched counts as "unmatched".
 */
export function httpMetrics(metrics: ServiceMetrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const answered = (status: number) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      metrics.requestAnswered(ctx.method, typeof route === "string" ? route : "unmatched", status, seconds);
    };
    try {
      await next();
    } catch (error) {
      // Past every interface's error middleware: Koa answers with the error's status, or 500.
      const status = (error as { status?: unknown }).status;
      answered(typeof status === "number" && status >= 400 && status < 600 ? status : 500);
      throw error;
    }
    answered(ctx.status);
  };
}

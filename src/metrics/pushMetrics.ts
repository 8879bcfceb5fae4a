import type { Middleware } from "koa";
import type { ServiceMetrics } from "./serviceMetrics.ts";

/**
 * Counts pushes by the status they were answered with, so it sits outside the interface's error
 * middleware: a push refused whole (400, 413, 503) counts under the status its client saw.
 */
export function countPushes(metrics: ServiceMetrics): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const tally = ctx.state.push;
      if (tally) metrics.pushAnswered(tally, ctx.status);
      if (tally?.hl7Acks) metrics.hl7Answered("http", tally, tally.hl7Acks);
    }
  };
}

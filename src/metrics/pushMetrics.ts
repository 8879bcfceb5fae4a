import type { Middleware } from "koa";
import type { ServiceMetrics } from "./serviceMetrics.ts";

/** What the push route leaves in `ctx.state.push` for the count: who pushed, and each report's outcome once answered. */
export interface PushTally {
  kind: string;
  tenant: string;
  client: string;
  /** CREATED, UPDATED, UNCHANGED or REJECTED per report; empty when the whole push was refused. */
  outcomes: string[];
  /** HL7 v2 over HTTP: the ACK code (AA, AE, AR) of each message. */
  hl7Acks?: string[];
}

/**
 * Counts pushes by the status they were answered with, so it sits outside the interface's error
 * middleware: a push refused whole (400, 413, 503) counts under the status its client saw.
 */
export function countPushes(metrics: ServiceMetrics): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const tally = ctx.state.push as PushTally | undefined;
      if (tally) metrics.pushAnswered(tally, ctx.status);
      if (tally?.hl7Acks) metrics.hl7Answered("http", tally, tally.hl7Acks);
    }
  };
}

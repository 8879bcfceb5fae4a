import type { Context, Middleware } from "koa";
import type { TenantGate } from "../../queries/reports/tenantGate.ts";
import { callerGone } from "./callerGone.ts";
import { HttpError } from "./httpError.ts";

/*
 * Reads of a tenant's lists take turns (issue #52 finding 3). Eight callers walking a queue of
 * 90,000 as fast as they could held most of the database pool (DB_POOL_MAX, 10) and kept the event
 * loop busy writing pages of a thousand rows, and every tenant's pushes waited behind them (p50
 * from 50 ms to 900 ms). So:
 * - at most LIST_READS_PER_TENANT pages of one line are read at once in this process, the rest
 *   wait in it (the report queries' TenantGate), up to LIST_QUEUE_WAIT_MS. A tenant's staff and
 *   scripts (/api) have a line, each sending system (/open/v1: a day's reconciliation, a job's
 *   rejected lines) one of its own, so a laboratory's reconciliation never waits behind the
 *   hospital's people, nor behind another laboratory;
 * - a page's turn is given back only once its bytes at LIST_BYTES_PER_SECOND have passed since it
 *   began: a tenant's pages are paced, never its answers (each is sent as soon as it is ready).
 *   A person's page of 100 rows (some 33 KB) holds a turn 33 ms; a script reading a queue of
 *   90,000 as fast as it can takes some 30 s over it, whatever the number of its callers. At
 *   2 MB/s eight such callers still doubled the pushes' p50 and took their p99 from 265 to 890 ms;
 *   at 1 MB/s, 233 to 362 ms.
 * A page holds its turn while it is read and written into text, never while it is sent.
 */
export class ListTurns {
  constructor(
    readonly gate: TenantGate,
    readonly bytesPerSecond: number,
  ) {}

  /**
   * Runs `read` in one of the turns of `line` (lineOf) and answers what it read; `bytesOf` says how
   * large the page it read is. A 503 when no turn came within the wait (or the caller left).
   */
  async take<T>(line: string, read: () => Promise<T>, bytesOf: (page: T) => number, signal?: AbortSignal): Promise<T> {
    const leave = await this.gate.enter(line, signal);
    if (!leave) throw this.busy();
    const began = performance.now();
    let bytes = 0;
    try {
      const page = await read();
      bytes = bytesOf(page);
      return page;
    } finally {
      const paced = (bytes * 1000) / this.bytesPerSecond - (performance.now() - began);
      if (paced <= 0) leave();
      else setTimeout(leave, paced).unref();
    }
  }

  /** The 503 of a page that waited its whole turn. */
  private busy(): HttpError {
    const { perTenant, waitMs } = this.gate;
    return new HttpError(
      503,
      `This hospital's lists are busy (${perTenant} ${perTenant === 1 ? "page is" : "pages are"} read at once, ` +
        `and this call waited ${waitMs / 1000} s for its turn); try again shortly.`,
      { "Retry-After": String(Math.ceil(waitMs / 1000)) },
    );
  }
}

/** The line a caller's pages wait in: its sending system's on /open/v1, its tenant's on /api. */
export function lineOf(ctx: Pick<Context, "state">): string {
  const principal = ctx.state.principal;
  return principal?.credential === "client-key" ? `client ${principal.client.clientId}` : `tenant ${ctx.state.tenant}`;
}

/** Hands the process's list turns to the routes below (ctx.state.listTurns). */
export function offerListTurns(turns: ListTurns): Middleware {
  return (ctx, next) => {
    ctx.state.listTurns = turns;
    return next();
  };
}

/**
 * A list route's step: the rest of the route in one of the caller's tenant's turns, reading its
 * page and writing it into JSON text (as Koa would after every middleware has returned): at a
 * thousand rows the text is most of a page's work in this process, and it is done in the turn.
 */
export const listTurn: Middleware = (ctx: Context, next) => {
  const turns = ctx.state.listTurns;
  if (!turns) return next();
  const answered = async () => {
    await next();
    if (
      Array.isArray(ctx.body) ||
      (ctx.body !== null && typeof ctx.body === "object" && Object.getPrototypeOf(ctx.body) === Object.prototype)
    ) {
      const text = JSON.stringify(ctx.body);
      ctx.body = text;
      ctx.type = "application/json";
    }
  };
  return turns.take(
    lineOf(ctx),
    answered,
    () => (typeof ctx.body === "string" ? Buffer.byteLength(ctx.body) : 0),
    callerGone(ctx),
  );
};

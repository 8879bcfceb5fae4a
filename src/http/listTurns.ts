import type { Context, Middleware } from "koa";
import { TenantGate } from "../../queries/reports/tenantGate.ts";
import { callerGone } from "./callerGone.ts";
import { HttpError } from "./httpError.ts";

/*
 * Reads of a tenant's lists take turns (issue #52 finding 3): at most LIST_READS_PER_TENANT pages
 * of one tenant are read at once in this process, the rest wait in the tenant's own line (the
 * report queries' TenantGate). Eight callers walking a long queue as fast as they can would
 * otherwise hold most of the database pool (DB_POOL_MAX, 10) and its CPU, and every tenant's pushes
 * would wait behind them. A page holds its turn while it is read, not while it is sent.
 */

/** Hands the process's list turns to the routes below (ctx.state.listTurns). */
export function offerListTurns(gate: TenantGate): Middleware {
  return (ctx, next) => {
    ctx.state.listTurns = gate;
    return next();
  };
}

/** The 503 of a page that waited its whole turn. */
function busy(gate: TenantGate): HttpError {
  return new HttpError(
    503,
    `This hospital's lists are busy (${gate.perTenant} ${gate.perTenant === 1 ? "page is" : "pages are"} read at once, and this call waited ${gate.waitMs / 1000} s for its turn); try again shortly.`,
    { "Retry-After": String(Math.ceil(gate.waitMs / 1000)) },
  );
}

/** Runs `read` in one of the tenant's turns; a 503 when none came within the wait (or the caller left). */
export async function inListTurn<T>(gate: TenantGate, tenant: string, read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const leave = await gate.enter(tenant, signal);
  if (!leave) throw busy(gate);
  try {
    return await read();
  } finally {
    leave();
  }
}

/** A list route's step: the rest of the route (reading its page) in one of the caller's tenant's turns. */
export const listTurn: Middleware = (ctx: Context, next) => {
  const gate = ctx.state.listTurns;
  if (!gate) return next();
  return inListTurn(gate, ctx.state.tenant, next, callerGone(ctx));
};

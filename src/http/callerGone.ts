import type { Context } from "koa";

/**
 * A signal that aborts when the caller goes away before its answer has been sent in full (the
 * connection closed): work done only for that answer (report queries) can stop at once (E.5).
 */
export function callerGone(ctx: Context): AbortSignal {
  const gone = new AbortController();
  // Gone already (before this was asked): the close has been told and will not be again.
  if (ctx.req.socket.destroyed) gone.abort();
  else {
    ctx.res.once("close", () => {
      if (!ctx.res.writableFinished) gone.abort();
    });
  }
  return gone.signal;
}

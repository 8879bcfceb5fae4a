import type { Middleware } from "koa";
import { HttpError } from "./httpError.ts";

/**
 * A path segment such as an externalId or a clientId reaches the database as a text parameter,
 * and PostgreSQL refuses text with a NUL character in it: a path with `%00` would fail as a fault
 * of ours. Nothing can be named with a NUL, so such a path names nothing: 404, before any route.
 * (Percent-decoding never yields half a surrogate pair: bytes that are not UTF-8 stay encoded.)
 */
export function refuseNulInPath(): Middleware {
  return async (ctx, next) => {
    if (/%00/.test(ctx.path)) throw new HttpError(404, `There is no ${ctx.method} ${ctx.path}: no name holds a NUL character (%00).`);
    await next();
  };
}

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
    if (/%00/.test(ctx.path))
      throw new HttpError(404, `There is no ${ctx.method} ${ctx.path}: no name holds a NUL character (%00).`);
    await next();
  };
}

/**
 * A query parameter reaches the database as a text parameter too (a search text `q`, a FHIR
 * `code`, a name to filter by), and PostgreSQL refuses text with a NUL: one parameter sent with
 * `%00` would fail as a fault of ours. No value the service keeps holds a NUL, so no search or
 * filter can need one: a query string with one is refused (400, naming the parameter) for every
 * route of the interface, before any route reads it.
 */
export function refuseNulInQuery(): Middleware {
  return async (ctx, next) => {
    // Only a %00 decodes to a NUL (a raw NUL byte is refused by Node's HTTP parser).
    if (ctx.querystring.includes("%00")) {
      const held = Object.entries(ctx.query).find(
        ([name, value]) => name.includes("\0") || [value ?? []].flat().some((one) => one.includes("\0")),
      );
      if (held) {
        const name = Array.from(held[0].replaceAll("\0", "%00")).slice(0, 40).join("");
        throw new HttpError(
          400,
          `The query parameter ${name} holds a NUL character (%00), which no value can contain: remove it.`,
        );
      }
    }
    await next();
  };
}

import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import { requestContext } from "../logger.ts";

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// A sender that puts its key in X-Request-Id would have it written into every log line.
const LOOKS_LIKE_A_CREDENTIAL = /^dh[ka]_/i;

/** Carries the caller's X-Request-Id (or a new one) through the logs and back in the response. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get("x-request-id");
    const id = ACCEPTABLE_ID.test(incoming) && !LOOKS_LIKE_A_CREDENTIAL.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set("X-Request-Id", id);
    await requestContext.run({ requestId: id }, next);
  };
}

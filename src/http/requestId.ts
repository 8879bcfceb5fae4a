import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import { requestContext } from "../logger.ts";

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// A sender that puts its key in X-Request-Id would have it written into every log line.
const LOOKS_LIKE_A_CREDENTIAL = /^dh[ka]_/i;

/**
 * Every request gets an id of the service's own, which its events, access records and log lines
 * carry and the response returns as X-Request-Id: an id a caller chose could be reused to blur one
 * record with another's (issue #51). The caller's own X-Request-Id, when it is a plain token, is
 * kept beside it for correlation: in the log lines (callerRequestId) and back as
 * X-Caller-Request-Id.
 */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get("x-request-id");
    const callerRequestId =
      ACCEPTABLE_ID.test(incoming) && !LOOKS_LIKE_A_CREDENTIAL.test(incoming) ? incoming : undefined;
    const id = randomUUID();
    ctx.state.requestId = id;
    ctx.set("X-Request-Id", id);
    if (callerRequestId) ctx.set("X-Caller-Request-Id", callerRequestId);
    await requestContext.run({ requestId: id, ...(callerRequestId ? { callerRequestId } : {}) }, next);
  };
}

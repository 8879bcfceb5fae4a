import { randomBytes } from "node:crypto";
import type { Context } from "koa";

/*
 * Requests the service sends to itself (the demo loader pushes its reports through the open API,
 * as a laboratory would) are logged at debug, not info: ~290 of them buried the URLs and keys a
 * newcomer needs at the first `npm start`. They carry a secret of this process, never written
 * anywhere, so no caller can hide its own requests from the access log by sending the header.
 */
export const INTERNAL_REQUEST_HEADER = "x-dialysis-hub-internal";
export const internalRequestMark = randomBytes(18).toString("base64url");

export function isInternalRequest(ctx: Context): boolean {
  return ctx.get(INTERNAL_REQUEST_HEADER) === internalRequestMark;
}

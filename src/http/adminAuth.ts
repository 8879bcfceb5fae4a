import { createHash, timingSafeEqual } from "node:crypto";
import type { Middleware } from "koa";
import { HttpError } from "./httpError.ts";
import { OPERATOR } from "./requestState.ts";

/** Secrets are compared as digests of one length, in constant time. */
export function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

export function sameSecret(given: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(given), expected);
}

export function bearerToken(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** Only the operator's ADMIN_TOKEN passes; compared in constant time. */
export function requireAdmin(adminToken: string | undefined): Middleware {
  const expected = adminToken ? digest(adminToken) : null;
  return async (ctx, next) => {
    if (!expected) throw new HttpError(401, "Administration is switched off: start the service with ADMIN_TOKEN set.");
    const token = bearerToken(ctx.get("authorization"));
    if (!token) throw new HttpError(401, "Send the administrator token as 'Authorization: Bearer <ADMIN_TOKEN>'.");
    if (!sameSecret(token, expected))
      throw new HttpError(
        401,
        "The administrator token is not valid; use the ADMIN_TOKEN the service was started with.",
      );
    ctx.state.principal = OPERATOR;
    await next();
  };
}

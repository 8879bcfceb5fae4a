import { clientOf } from "../../http/requestState.ts";
import type { Middleware } from "koa";
import { HttpError } from "../../http/httpError.ts";

export interface RateLimit {
  /** Calls per second a client may make on average. */
  perSecond: number;
  /** Calls a client may make at once after being idle. */
  burst: number;
}

/**
 * A token bucket per client, in this process's memory: each call takes a token; tokens come back
 * at `perSecond`. With several API processes a client's limit is that many times larger.
 */
export function rateLimitPerClient(limit: RateLimit): Middleware {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return async (ctx, next) => {
    const clientId = clientOf(ctx).clientId;
    const now = Date.now();
    const bucket = buckets.get(clientId) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
    bucket.at = now;
    buckets.set(clientId, bucket);
    if (bucket.tokens < 1) {
      const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
      throw new HttpError(
        429,
        `Too many calls: at most ${limit.perSecond} per second; wait ${seconds} s and push again.`,
        { "Retry-After": String(seconds) },
      );
    }
    bucket.tokens -= 1;
    await next();
  };
}

import { createServer, type Server } from "node:http";
import Koa, { type Middleware } from "koa";
import { bearerToken, digest, sameSecret } from "../http/adminAuth.ts";
import type { ServiceMetrics } from "./serviceMetrics.ts";

/**
 * `GET /metrics` in the Prometheus text format. With METRICS_TOKEN the scraper must send it as a
 * bearer token; on the service's own port nothing is served without one (the figures name tenants
 * and clients). METRICS_PORT serves them on a port of their own bound to localhost, for a scraper
 * on the same host or behind the operator's own proxy; the token is asked there too when set.
 */
export function metricsEndpoint(
  metrics: ServiceMetrics,
  token: string | undefined,
  { tokenRequired }: { tokenRequired: boolean },
): Middleware {
  const expected = token ? digest(token) : null;
  return async (ctx, next) => {
    if (ctx.path !== "/metrics") return next();
    if (!expected && tokenRequired) return next();
    if (ctx.method !== "GET" && ctx.method !== "HEAD") {
      ctx.status = 405;
      ctx.set("Allow", "GET, HEAD");
      ctx.body = "Scrape /metrics with GET.\n";
      return;
    }
    if (expected) {
      const given = bearerToken(ctx.get("authorization"));
      if (!given || !sameSecret(given, expected)) {
        ctx.status = 401;
        ctx.set("WWW-Authenticate", 'Bearer realm="metrics"');
        ctx.body =
          "Send the metrics token as 'Authorization: Bearer <METRICS_TOKEN>' (in Prometheus: authorization: { credentials: <METRICS_TOKEN> }).\n";
        return;
      }
    }
    ctx.set("Content-Type", metrics.contentType);
    ctx.set("Cache-Control", "no-store");
    ctx.body = await metrics.text();
  };
}

/** The metrics alone on 127.0.0.1:`port`; resolves once listening. */
export async function listenForMetrics(
  metrics: ServiceMetrics,
  port: number,
  token: string | undefined,
): Promise<Server> {
  const app = new Koa();
  app.silent = true;
  app.use(metricsEndpoint(metrics, token, { tokenRequired: false }));
  const handle = app.callback(); // answers every request itself, errors included
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return server;
}

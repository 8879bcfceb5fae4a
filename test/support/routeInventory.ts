import Router from "@koa/router";

/**
 * Every route the service serves, read from its routers rather than written down: tests that must
 * cover each endpoint (tenant isolation, credentials) compare their cases with this list, so a new
 * route without a case fails them.
 *
 * Works by noting each router whose middleware is mounted (`router.routes()` calls
 * `router.middleware()`) while the service starts, then reading the routes of each.
 */

export interface RouteEntry {
  method: string;
  /** As declared, prefix included: `/api/reports/:id/data`; a RegExp route as its source. */
  path: string;
}

/** `GET /api/reports/:id/view` */
export const routeKey = (route: RouteEntry) => `${route.method} ${route.path}`;

interface LayerLike {
  methods: string[];
  path: string | RegExp;
}

export async function withRouteInventory<T>(start: () => Promise<T>): Promise<{ started: T; routes: RouteEntry[] }> {
  const mounted = new Set<{ stack: LayerLike[] }>();
  const prototype = Router.prototype as unknown as {
    middleware: (this: { stack: LayerLike[] }, ...args: unknown[]) => unknown;
  };
  const original = prototype.middleware;
  prototype.middleware = function (this: { stack: LayerLike[] }, ...args: unknown[]) {
    mounted.add(this);
    return original.apply(this, args);
  };
  let started: T;
  try {
    started = await start();
  } finally {
    prototype.middleware = original;
  }
  const routes = new Map<string, RouteEntry>();
  for (const router of mounted) {
    for (const layer of router.stack) {
      // Router.use() layers have no methods; HEAD comes with every GET.
      for (const method of layer.methods.filter((m) => m !== "HEAD" || !layer.methods.includes("GET"))) {
        const route = { method, path: layer.path instanceof RegExp ? layer.path.source : layer.path };
        routes.set(routeKey(route), route);
      }
    }
  }
  return { started, routes: [...routes.values()].sort((a, b) => routeKey(a).localeCompare(routeKey(b))) };
}

import Router from "@koa/router";
import { z } from "zod";

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

export const healthAnswer = z.object({ status: z.literal("up") });
export const readinessAnswer = z.object({
  status: z.enum(["ready", "not ready"]),
  checks: z.record(z.string(), z.boolean()).meta({ description: "Each check by name: database, migrations, workers" }),
});

/** /healthz: the process answers. /readyz: it can do its work (each check named in the answer). */
export function healthRoutes(checks: readonly ReadinessCheck[]): Router {
  const router = new Router();
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "up" } satisfies z.infer<typeof healthAnswer>;
  });
  router.get("/readyz", async (ctx) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => [name, await check().catch(() => false)] as const),
    );
    const ready = results.every(([, ok]) => ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? "ready" : "not ready", checks: Object.fromEntries(results) } satisfies z.infer<typeof readinessAnswer>;
  });
  return router;
}

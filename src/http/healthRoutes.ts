import Router from "@koa/router";
import { z } from "zod";
import {
  heldBackSchema,
  stoppedProjectionSchema,
  type HeldBack,
  type StoppedProjection,
} from "../../queries/runtime/projectionStatus.ts";

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

export interface Readiness {
  /** What the process cannot serve without: one failing answers 503 "not ready". */
  checks: readonly ReadinessCheck[];
  /** Projections stopped on an event: each leaves its read model behind, the rest serves (200 "degraded"). */
  stoppedProjections(): Promise<StoppedProjection[]>;
  /** Tenants held back in a projection at an event it cannot apply: the rest serves (200 "degraded"). */
  heldBackTenants(): Promise<HeldBack[]>;
  /** Where the demo data that `start` loads through this process stands; absent when it loads none. */
  demoData?(): DemoDataState | undefined;
}

/**
 * The demo data that `start` loads through the HTTP interface once the service serves (contract
 * C.7): about 20 s on a fresh machine, during which the service is ready but the demo tenant is
 * not there yet. Not a check: a load balancer keeps sending to the process whatever it says.
 */
export const demoDataStates = ["loading", "loaded", "failed"] as const;
export type DemoDataState = (typeof demoDataStates)[number];

export const healthAnswer = z.object({ status: z.literal("up") });
export const readinessAnswer = z.object({
  status: z.enum(["ready", "degraded", "not ready"]).meta({
    description:
      "degraded (200): it serves, but a projection stopped, or holds a tenant back, and that read model stays " +
      "behind; not ready (503): a check without which nothing is served failed",
  }),
  checks: z.record(z.string(), z.boolean()).meta({
    description:
      "Each check by name: database, migrations, workers (false: not ready); projections (false: one stopped or holds a tenant back, degraded)",
  }),
  stoppedProjections: z
    .array(stoppedProjectionSchema)
    .meta({ description: "Each projection stopped on an event until `projections retry`, with its error's code" }),
  heldBackTenants: z.array(heldBackSchema).meta({
    description:
      "One per tenant held back in a projection at an event it cannot apply (contract E.6): that tenant's read " +
      "model there stays behind, every other's keeps up",
  }),
  demoData: z
    .enum(demoDataStates)
    .optional()
    .meta({
      description:
        "Only while and after `start` loads the demo tenant through this process (npm start without DATABASE_URL, or --demo): " +
        "loading (the service serves, the demo tenant is not all there yet), loaded, or failed (the console says why). " +
        "Absent: this process loads no demo data. The status stays ready: wait for loaded before using the demo",
    }),
});

/** /healthz: the process answers. /readyz: it can do its work (each check named in the answer). */
export function healthRoutes(readiness: Readiness): Router {
  const router = new Router();
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "up" } satisfies z.infer<typeof healthAnswer>;
  });
  router.get("/readyz", async (ctx) => {
    const [results, stopped, held] = await Promise.all([
      Promise.all(readiness.checks.map(async ({ name, check }) => [name, await check().catch(() => false)] as const)),
      readiness.stoppedProjections().catch(() => null),
      readiness.heldBackTenants().catch(() => null),
    ]);
    const ready = results.every(([, ok]) => ok);
    const demoData = readiness.demoData?.();
    const projections = stopped?.length === 0 && held?.length === 0;
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: !ready ? "not ready" : projections ? "ready" : "degraded",
      checks: { ...Object.fromEntries(results), projections },
      stoppedProjections: stopped ?? [],
      heldBackTenants: held ?? [],
      ...(demoData ? { demoData } : {}),
    } satisfies z.infer<typeof readinessAnswer>;
  });
  return router;
}

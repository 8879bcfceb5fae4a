import Router from "@koa/router";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { indicatorAnswer, indicatorsInForce } from "../../queries/quality/indicators.ts";
import { requireRole } from "../http/authorAuth.ts";

export interface QualityRouteDeps {
  store: EventStore;
  adminToken: string | undefined;
}

/**
 * Contract G.2, the month's quality figures: the indicators the dictionary releases put in force.
 * The routes translate HTTP to the queries (queries/quality) and the close command
 * (commands/quality), and back.
 */
export function qualityRoutes(deps: QualityRouteDeps): Router {
  const router = new Router();
  const clinician = requireRole(deps.adminToken, "clinician");

  router.get("/api/quality/indicators", clinician, async (ctx) => {
    const indicators = await readAsTenant(deps.store.db, ctx.state.tenant, indicatorsInForce);
    ctx.body = indicators.map(indicatorAnswer);
  });

  return router;
}

import Router from "@koa/router";
import type { Db } from "../../db/pool.ts";
import { projectionsReport } from "../../queries/projectionStatus.ts";
import { requireAdmin } from "./adminAuth.ts";

export function adminRoutes(db: Db, adminToken: string | undefined): Router {
  const router = new Router({ prefix: "/api/admin" });
  router.use(requireAdmin(adminToken));
  router.get("/projections", async (ctx) => {
    ctx.body = await projectionsReport(db);
  });
  return router;
}

import Router from "@koa/router";
import type { DictionaryAnswer, ServedDictionary } from "../../queries/dictionary/dictionary.ts";
import { requireRole } from "../http/authorAuth.ts";

/**
 * `GET /api/dictionary/lab-items`: the dictionary the service maps with, as senders see it on
 * `/open/v1/dict/lab-items` (contract B.4), for the staff pages: the report editor completes item
 * codes from it with their labels and names (issue #34, item 5). Not in the contract; any role may
 * ask, as it holds nothing of a tenant.
 */
export function dictionaryRoutes(served: ServedDictionary, adminToken: string | undefined): Router {
  const router = new Router();
  router.get("/api/dictionary/lab-items", requireRole(adminToken, "viewer"), (ctx) => {
    const etag = `"${served.version}"`;
    ctx.set("ETag", etag);
    ctx.set("Cache-Control", "no-cache");
    if (ctx.get("if-none-match").split(/\s*,\s*/).includes(etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = { version: served.version, items: served.items, examTypes: served.examTypes } satisfies DictionaryAnswer;
  });
  return router;
}

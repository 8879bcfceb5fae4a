import Router from "@koa/router";
import type { z } from "zod";
import type { ReportRuntime } from "../../../queries/reports/runSpecQueries.ts";
import { dataSourceSchema, type dataSourceSchemaSchema } from "../../../queries/reports/dataSourceSchema.ts";
import { requireAuthor } from "../../http/authorAuth.ts";
import { HttpError } from "../../http/httpError.ts";

/**
 * `GET /api/datasources/{name}/schema` (issue #54): the relations and columns report SQL of a data
 * source can read, for the editor's schema browser. For authors: it shows no row, only names.
 */
export function dataSourceRoutes(runtime: ReportRuntime, adminToken: string | undefined): Router {
  const router = new Router({ prefix: "/api/datasources" });
  router.use(requireAuthor(adminToken));
  router.get("/:name/schema", async (ctx) => {
    const name = ctx.params.name!;
    if (!runtime.sources.get(name))
      throw new HttpError(
        404,
        `There is no data source ${JSON.stringify(name)}; the data sources are ${runtime.sources.names().join(", ")}.`,
      );
    const schema = await dataSourceSchema(runtime, name, ctx.state.tenant);
    if ("error" in schema) throw new HttpError(503, schema.error, { "Retry-After": "5" });
    ctx.set("Cache-Control", "no-store");
    ctx.body = schema satisfies z.infer<typeof dataSourceSchemaSchema>;
  });
  return router;
}

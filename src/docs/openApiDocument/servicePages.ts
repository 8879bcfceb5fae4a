import { z } from "zod";
import type { ZodOpenApiPathsObject, ZodOpenApiResponseObject } from "zod-openapi";
import { REPORT_ID_PATTERN } from "../../../commands/reports/spec/specVocabulary.ts";
import { healthAnswer, readinessAnswer } from "../../http/healthRoutes.ts";
import { json, security } from "./shared.ts";

const text = (contentType: string, description: string): ZodOpenApiResponseObject => ({ description, content: { [contentType]: { schema: z.string() } } });
const notFound = (description: string) => text("text/plain", description);

/** What is not one of the two interfaces: health, help articles, the embed page and these docs. No credential. */
export const servicePaths: ZodOpenApiPathsObject = {
  "/healthz": {
    get: { tags: ["Service"], security: security.none, operationId: "healthz", summary: "The process answers", responses: { 200: { description: "Up", ...json(healthAnswer) } } },
  },
  "/readyz": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "readyz",
      summary: "The database is reachable, migrations are applied and workers run; a projection stopped on an event degrades it",
      responses: {
        200: { description: 'Ready, or "degraded": it serves, but the stopped projections named in stoppedProjections leave their read models behind', ...json(readinessAnswer) },
        503: { description: "Not ready: see checks", ...json(readinessAnswer) },
      },
    },
  },
  "/llms.txt": {
    get: { tags: ["Service"], security: security.none, operationId: "llmsTxt", summary: "Index of the help articles (llmstxt.org layout)", responses: { 200: text("text/plain", "The index") } },
  },
  "/md/{slug}.md": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "helpArticle",
      summary: "The markdown source of a help article",
      requestParams: { path: z.object({ slug: z.string().meta({ example: "integration-guide" }) }) },
      responses: { 200: text("text/markdown", "The article"), 404: notFound("No such article") },
    },
  },
  "/embed/reports/{id}": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "embedPage",
      summary: "The page for the inline frame: filters, charts, tables, drill-through, exports",
      requestParams: {
        path: z.object({ id: z.string().regex(REPORT_ID_PATTERN) }),
        query: z.object({
          version: z.string().optional().meta({ description: 'v<n> or "draft"; omitted: the current published version' }),
          lang: z.enum(["zh", "en"]).optional(),
          tenant: z.string().optional().meta({ description: "The tenant when no X-Service-Tenant is set (a frame cannot send headers)" }),
        }),
      },
      responses: {
        200: text("text/html", "The page"),
        404: text("text/html", "No such report or version (a short page)"),
        409: text("text/html", "Never published and no version given (a short page)"),
      },
    },
  },
  "/embed/assets/{name}": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "embedAsset",
      summary: "A file of the embed page's bundle, named by its content hash",
      requestParams: { path: z.object({ name: z.string() }) },
      responses: { 200: { description: "The file (JavaScript or CSS)" }, 304: { description: "Unchanged" }, 404: notFound("No such asset") },
    },
  },
  "/staff": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "staffPages",
      summary: "The staff pages (reports, unmatched queue, patients); they sign in with an author token and call /api",
      requestParams: {
        query: z.object({
          lang: z.enum(["zh", "en"]).optional(),
          tenant: z.string().optional().meta({ description: "The tenant when no X-Service-Tenant is set" }),
        }),
      },
      responses: {
        200: text("text/html", "The page (a shell: it holds no data)"),
        400: text("text/html", "A bad tenant (a short page)"),
        503: text("text/html", "The pages' bundle is not built (a short page)"),
      },
    },
  },
  "/staff/assets/{name}": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "staffAsset",
      summary: "A file of the staff pages' bundle, named by its content hash",
      requestParams: { path: z.object({ name: z.string() }) },
      responses: { 200: { description: "The file (JavaScript or CSS)" }, 304: { description: "Unchanged" }, 404: notFound("No such asset") },
    },
  },
  "/openapi.json": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "openApiDocument",
      summary: "This document: OpenAPI 3.1, generated from the schemas the service validates with",
      responses: { 200: { description: "The document", content: { "application/json": {} } } },
    },
  },
  "/docs": {
    get: { tags: ["Service"], security: security.none, operationId: "docsPage", summary: "This document, rendered", responses: { 200: text("text/html", "The page") } },
  },
  "/docs/assets/{file}": {
    get: {
      tags: ["Service"], security: security.none,
      operationId: "docsAsset",
      summary: "A file of the bundled renderer (Swagger UI) or the page's start script",
      requestParams: { path: z.object({ file: z.string() }) },
      responses: { 200: { description: "The file" }, 404: notFound("No such file") },
    },
  },
};

import { z } from "zod";
import type { ZodOpenApiPathsObject, ZodOpenApiResponseObject } from "zod-openapi";
import { REPORT_ID_PATTERN } from "../../../commands/reports/spec/specVocabulary.ts";
import { healthAnswer, readinessAnswer } from "../../http/healthRoutes.ts";
import { staffSessionAnswer } from "../../staffSessions/staffSessionRoutes.ts";
import { json, security } from "./shared.ts";

const text = (contentType: string, description: string): ZodOpenApiResponseObject => ({
  description,
  content: { [contentType]: { schema: z.string() } },
});
const notFound = (description: string) => text("text/plain", description);

/** What is not one of the two interfaces: health, help articles, the embed page and these docs. No credential. */
export const servicePaths: ZodOpenApiPathsObject = {
  "/staff/login": {
    get: {
      tags: ["Staff sign-in"],
      security: security.none,
      operationId: "staffLogin",
      summary: "Sends the browser to the hospital's identity provider (authorization code with PKCE, state and nonce)",
      requestParams: {
        query: z.object({
          tenant: z
            .string()
            .optional()
            .meta({
              description:
                "The page's tenant when the proxy sets no X-Service-Tenant; used only while the store holds no " +
                "other tenant, when the provider names none and OIDC_TENANT is unset",
            }),
        }),
      },
      responses: {
        302: {
          description:
            "To the provider's authorization endpoint, with the pre-sign-in cookie dh_sign_in (HttpOnly, " +
            "SameSite=Lax, Secure under https, Path=/staff/callback, 15 minutes): the sign-in's state, nonce " +
            "and PKCE verifier, sealed, so only this browser can finish it. Nothing is written to the database",
        },
        400: text("text/html", "A ?tenant= that is not a tenant id (a short page)"),
        404: text("text/html", "No identity provider is configured (a short page)"),
      },
    },
  },
  "/staff/callback": {
    get: {
      tags: ["Staff sign-in"],
      security: security.none,
      operationId: "staffCallback",
      summary: "Where the provider sends the browser back: the code is exchanged and the ID token verified",
      requestParams: { query: z.object({ code: z.string().optional(), state: z.string().optional() }) },
      responses: {
        302: {
          description:
            "Signed in: to the staff pages, with the session cookie (HttpOnly, SameSite=Lax, Secure under https)",
        },
        400: text(
          "text/html",
          "No session (a short page): a wrong, reused or expired state; a callback in a browser that did not " +
            "start this sign-in (no pre-sign-in cookie, or another sign-in's); an answer of the provider that " +
            "does not verify; or no tenant (the provider names none, OIDC_TENANT is unset and the store " +
            "holds several tenants)",
        ),
        404: text("text/html", "No identity provider is configured (a short page)"),
      },
    },
  },
  "/staff/session": {
    get: {
      tags: ["Staff sign-in"],
      security: [{ staffSession: [] }],
      operationId: "staffSession",
      summary: "Who is signed in with this cookie; each call restarts the session's idle clock",
      responses: {
        200: { description: "The session", ...json(staffSessionAnswer) },
        401: { description: "No live session", ...json(z.object({ error: z.string() })) },
      },
    },
  },
  "/staff/logout": {
    post: {
      tags: ["Staff sign-in"],
      security: [{ staffSession: [] }],
      operationId: "staffLogout",
      summary: "Ends the session at once, on every process (send X-CSRF-Token)",
      requestParams: { header: z.object({ "x-csrf-token": z.string().meta({ description: "The session's csrf" }) }) },
      responses: {
        204: {
          description: "Ended; Location names the provider's end-session URL when it has one",
          headers: z.object({ Location: z.string().optional() }),
        },
        401: { description: "No live session", ...json(z.object({ error: z.string() })) },
        403: { description: "X-CSRF-Token missing or wrong", ...json(z.object({ error: z.string() })) },
      },
    },
  },
  "/healthz": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "healthz",
      summary: "The process answers",
      responses: { 200: { description: "Up", ...json(healthAnswer) } },
    },
  },
  "/readyz": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "readyz",
      summary:
        "The database is reachable, migrations are applied and workers run; a projection stopped on an event degrades it",
      responses: {
        200: {
          description:
            'Ready, or "degraded": it serves, but the stopped projections named in stoppedProjections leave their read models behind',
          ...json(readinessAnswer),
        },
        503: { description: "Not ready: see checks", ...json(readinessAnswer) },
      },
    },
  },
  "/llms.txt": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "llmsTxt",
      summary: "Index of the help articles (llmstxt.org layout)",
      responses: { 200: text("text/plain", "The index") },
    },
  },
  "/help": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "helpIndex",
      summary: "The help articles as a page for people (zh or en page words)",
      requestParams: {
        query: z.object({
          lang: z
            .enum(["zh", "en"])
            .optional()
            .meta({ description: "The page's language (default zh); the articles are in English" }),
        }),
      },
      responses: { 200: text("text/html", "The page") },
    },
  },
  "/help/{slug}": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "helpPage",
      summary: "A help article as a page for people, from the same source as /md/{slug}.md",
      requestParams: {
        path: z.object({ slug: z.string().meta({ example: "getting-started" }) }),
        query: z.object({ lang: z.enum(["zh", "en"]).optional() }),
      },
      responses: { 200: text("text/html", "The page"), 404: text("text/html", "No such article: a page that says so") },
    },
  },
  "/help/decisions": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "helpDecisions",
      summary: "The index of the decisions (docs/decisions: why the service is as it is) as a page for people",
      requestParams: { query: z.object({ lang: z.enum(["zh", "en"]).optional() }) },
      responses: { 200: text("text/html", "The page") },
    },
  },
  "/help/decisions/{name}": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "helpDecision",
      summary: "One decision as a page for people, from the same source as /md/decisions/{name}.md",
      requestParams: {
        path: z.object({ name: z.string().meta({ example: "0001-decisions-live-in-docs-decisions" }) }),
        query: z.object({ lang: z.enum(["zh", "en"]).optional() }),
      },
      responses: {
        200: text("text/html", "The page"),
        404: text("text/html", "No such decision: a page that says so"),
      },
    },
  },
  "/md/{slug}.md": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "helpArticle",
      summary: "The markdown source of a help article",
      requestParams: { path: z.object({ slug: z.string().meta({ example: "integration-guide" }) }) },
      responses: { 200: text("text/markdown", "The article"), 404: notFound("No such article") },
    },
  },
  "/embed/reports/{id}": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "embedPage",
      summary: "The page for the inline frame: filters, charts, tables, drill-through, exports",
      requestParams: {
        path: z.object({ id: z.string().regex(REPORT_ID_PATTERN) }),
        query: z.object({
          version: z
            .string()
            .optional()
            .meta({ description: 'v<n> or "draft"; omitted: the current published version' }),
          lang: z.enum(["zh", "en"]).optional(),
          tenant: z
            .string()
            .optional()
            .meta({ description: "The tenant when no X-Service-Tenant is set (a frame cannot send headers)" }),
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
      tags: ["Service"],
      security: security.none,
      operationId: "embedAsset",
      summary: "A file of the embed page's bundle, named by its content hash",
      requestParams: { path: z.object({ name: z.string() }) },
      responses: {
        200: { description: "The file (JavaScript or CSS)" },
        304: { description: "Unchanged" },
        404: notFound("No such asset"),
      },
    },
  },
  "/staff": {
    get: {
      tags: ["Service"],
      security: security.none,
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
      tags: ["Service"],
      security: security.none,
      operationId: "staffAsset",
      summary: "A file of the staff pages' bundle, named by its content hash",
      requestParams: { path: z.object({ name: z.string() }) },
      responses: {
        200: { description: "The file (JavaScript or CSS)" },
        304: { description: "Unchanged" },
        404: notFound("No such asset"),
      },
    },
  },
  "/openapi.json": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "openApiDocument",
      summary: "This document: OpenAPI 3.1, generated from the schemas the service validates with",
      responses: { 200: { description: "The document", content: { "application/json": {} } } },
    },
  },
  "/docs": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "docsPage",
      summary: "This document, rendered",
      responses: { 200: text("text/html", "The page") },
    },
  },
  "/docs/assets/{file}": {
    get: {
      tags: ["Service"],
      security: security.none,
      operationId: "docsAsset",
      summary: "A file of the bundled renderer (Swagger UI) or the page's start script",
      requestParams: { path: z.object({ file: z.string() }) },
      responses: { 200: { description: "The file" }, 404: notFound("No such file") },
    },
  },
};

import { dataSourceSchemaSchema } from "../../../queries/reports/dataSourceSchema.ts";
import { z } from "zod";
import type { ZodOpenApiPathsObject, ZodOpenApiResponseObject } from "zod-openapi";
import { auditSchema } from "../../../commands/reports/spec/audit.ts";
import { publishInput, restoreInput, saveDraftInput } from "../../../commands/reports/manageReports.ts";
import { DRAFT_LABEL, REPORT_ID_PATTERN, VERSION_LABEL } from "../../../commands/reports/spec/specVocabulary.ts";
import { reportSpecSchema } from "../../../commands/reports/spec/specSchema.ts";
import { reportListEntrySchema, versionEntrySchema } from "../../../queries/reports/reportCatalog.ts";
import { specDiffSchema } from "../../../queries/reports/specChanges.ts";
import { DOCX_CONTENT_TYPE, XLSX_CONTENT_TYPE } from "../../reports/export/contentTypes.ts";
import {
  dataRequest,
  drillRequest,
  exportRequest,
  paramValuesField,
  viewerLangField,
} from "../../reports/http/reportRequests.ts";
import {
  dataAnswer,
  draftSavedAnswer,
  drillAnswer,
  openedReportAnswer,
  reportListQuery,
  reportSourceAnswer,
  versionListQuery,
} from "../../reports/http/reportRoutes.ts";
import { pageLinkHeader } from "../../http/paging.ts";
import { apiFailures, json, jsonBody, LIST_BUSY, security } from "./shared.ts";

// docxExport.ts loads Word and ECharts; the route imports it on first use, and so does not this document.

const reportPath = z.object({
  id: z.string().regex(REPORT_ID_PATTERN).meta({ description: "The report id", example: "dialysis-adequacy" }),
});
/** A published version, or the draft (whose audit is the one its save answered). */
const auditedVersionPath = reportPath.extend({
  no: z
    .union([z.string().regex(VERSION_LABEL), z.literal(DRAFT_LABEL)])
    .meta({ description: "A published version, or draft", example: "v1" }),
});
const viewQuery = z.object({
  version: z.string().optional().meta({ description: 'v<n> or "draft"; omitted: the current published version' }),
  lang: viewerLangField,
});

const notFound = "There is no such report (or version)";
/** A call on the draft may name the draft it was based on (save, publish, discard). */
const draftCondition = z.object({
  "if-match": z.string().optional().meta({
    description:
      "The ETag of the draft this call is based on (from …/versions/draft/source or the last save), or * for any draft",
    example: '"draft-1795635792949"',
  }),
  "if-none-match": z.literal("*").optional().meta({ description: "* : only when the report has no draft" }),
});
const conditionFailed = "If-Match / If-None-Match did not hold: the draft was saved, published or discarded since";
const draftEtagHeader = z.object({
  ETag: z
    .string()
    .optional()
    .meta({ description: "The draft's entity tag, for If-Match on the next save", example: '"draft-1795635792949"' }),
});
const neverPublished = "The report was never published and no version was given";

const exportFile = (contentType: string, what: string): ZodOpenApiResponseObject => ({
  description: `The ${what} file, streamed`,
  content: { [contentType]: {} },
  headers: z.object({
    "Content-Disposition": z
      .string()
      .meta({ description: "attachment; filename=\"…\"; filename*=UTF-8''… (titles are often Chinese)" }),
  }),
});

const exportOperation = (format: "xlsx" | "docx", contentType: string, what: string) => ({
  tags: ["Report viewing"],
  operationId: `export${format === "xlsx" ? "Xlsx" : "Docx"}`,
  summary: `Export the report (or a drill-through layer) as ${what}`,
  security: security.viewing,
  requestParams: { path: reportPath },
  requestBody: jsonBody(exportRequest, false),
  responses: {
    200: exportFile(contentType, what),
    ...apiFailures({
      400: `Bad params, drill or args, or the ${format} export is switched off in the spec`,
      404: notFound,
      409: neverPublished,
      503:
        "The export cannot start: the tenant's report queries are all busy (REPORT_QUERIES_PER_TENANT) and it " +
        "waited its whole turn; call again after Retry-After seconds",
    }),
  },
});

/** Contract A.3 (viewing, no credential) and C.3 (authoring, an author token or the ADMIN_TOKEN). */
export const reportsApiPaths: ZodOpenApiPathsObject = {
  "/api/reports": {
    get: {
      tags: ["Report viewing"],
      operationId: "listReports",
      summary: "The reports of the tenant, drafts included, by id, a page at a time (contract E.6)",
      security: security.viewing,
      requestParams: { query: reportListQuery },
      responses: {
        200: {
          description: "The report list, or a page of it",
          ...json(z.array(reportListEntrySchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({ 400: "A bad limit or cursor", 503: LIST_BUSY }),
      },
    },
  },
  "/api/reports/{id}/view": {
    get: {
      tags: ["Report viewing"],
      operationId: "viewReport",
      summary: "Open a version of a report: its spec without SQL, initial params and, for snapshots, the frozen data",
      security: security.viewing,
      requestParams: { path: reportPath, query: viewQuery },
      responses: {
        200: { description: "The opened report", ...json(openedReportAnswer) },
        ...apiFailures({ 404: notFound, 409: neverPublished }),
      },
    },
  },
  "/api/reports/{id}/data": {
    post: {
      tags: ["Report viewing"],
      operationId: "reportData",
      summary: "Run every query of the spec with the given params (a snapshot answers its frozen results)",
      security: security.viewing,
      requestParams: { path: reportPath },
      requestBody: jsonBody(dataRequest, false),
      responses: {
        200: { description: "Every query's result or error", ...json(dataAnswer) },
        ...apiFailures({ 400: "Bad params: undeclared name or wrong JSON type", 404: notFound, 409: neverPublished }),
      },
    },
  },
  "/api/reports/{id}/drill": {
    post: {
      tags: ["Report viewing"],
      operationId: "drillReport",
      summary: "Run the queries of a drill-through target (always live, snapshots included)",
      security: security.viewing,
      requestParams: { path: reportPath },
      requestBody: jsonBody(drillRequest),
      responses: {
        200: { description: "The drill's title and its queries' results", ...json(drillAnswer) },
        ...apiFailures({
          400: "Unknown drill key, an args key the target does not declare, or bad params",
          404: notFound,
          409: neverPublished,
        }),
      },
    },
  },
  "/api/reports/{id}/export/xlsx": { post: exportOperation("xlsx", XLSX_CONTENT_TYPE, "Excel workbook") },
  "/api/reports/{id}/export/docx": { post: exportOperation("docx", DOCX_CONTENT_TYPE, "Word document") },
  "/api/reports/{id}/versions": {
    get: {
      tags: ["Report viewing"],
      operationId: "listVersions",
      summary: "The published versions, newest first, a page at a time (contract E.6)",
      security: security.viewing,
      requestParams: { path: reportPath, query: versionListQuery },
      responses: {
        200: { description: "Version entries", ...json(z.array(versionEntrySchema)), headers: pageLinkHeader },
        ...apiFailures({ 400: "A bad limit or cursor", 404: notFound, 503: LIST_BUSY }),
      },
    },
  },
  "/api/reports/{id}/versions/{no}/source": {
    get: {
      tags: ["Authoring"],
      operationId: "versionSource",
      summary:
        "A version's (or the draft's) title, data source and spec with the SQL of its queries: what the editor starts from, and what PUT …/draft takes back",
      security: security.author,
      requestParams: {
        path: reportPath.extend({
          no: z.string().meta({ description: "A published version or draft", example: "draft" }),
        }),
      },
      responses: {
        200: {
          description: "The source; for the draft with its ETag",
          ...json(reportSourceAnswer),
          headers: draftEtagHeader,
        },
        ...apiFailures({ 401: true, 403: true, 404: notFound }),
      },
    },
  },
  "/api/datasources/{name}/schema": {
    get: {
      tags: ["Authoring"],
      operationId: "dataSourceSchema",
      summary:
        "The relations and columns report SQL of a data source can read (the editor's schema browser, issue #54); names only, no row",
      security: security.author,
      requestParams: {
        path: z.object({ name: z.string().meta({ description: "A data source", example: "clinical" }) }),
      },
      responses: {
        200: { description: "Its relations, each with its columns in order", ...json(dataSourceSchemaSchema) },
        ...apiFailures({
          401: true,
          403: true,
          404: "No data source of that name",
          503: "The data source could not be read now (busy or unreachable)",
        }),
      },
    },
  },
  "/api/reports/{id}/versions/{no}/audit": {
    get: {
      tags: ["Report viewing"],
      operationId: "versionAudit",
      summary:
        "The full audit of a published version (contract A.5), or of the draft (version draft) as its save answered it",
      security: security.viewing,
      requestParams: { path: auditedVersionPath },
      responses: { 200: { description: "The audit", ...json(auditSchema) }, ...apiFailures({ 404: notFound }) },
    },
  },
  "/api/reports/{id}/versions/{a}/diff/{b}": {
    get: {
      tags: ["Report viewing"],
      operationId: "versionDiff",
      summary:
        "What changed from version a to version b of the spec (v1, v2, … or draft): nodes paired by id, params " +
        "by name; the SQL of the queries only for an author of the tenant",
      description:
        "Without an author token of the tenant (or the ADMIN_TOKEN) a changed query's SQL is listed as a " +
        "redacted change, never its text; a token of another tenant only makes the caller a viewer.",
      security: [...security.viewing, ...security.author],
      requestParams: {
        path: reportPath.extend({
          a: z.string().meta({ description: "The older side: a published version or draft", example: "v1" }),
          b: z.string().meta({ description: "The newer side", example: "draft" }),
        }),
      },
      responses: {
        200: { description: "The changes, by field path", ...json(specDiffSchema) },
        ...apiFailures({ 404: "No such report, or no such version" }),
      },
    },
  },
  "/api/reports/{id}/draft": {
    put: {
      tags: ["Authoring"],
      operationId: "saveDraft",
      summary: "Save the draft (creating the report when new); the spec is checked whole and audited",
      description:
        "Two authors may edit one report: a save that names the draft it was based on (If-Match with that " +
        "draft's ETag, or If-None-Match: * when there was none) is refused with 412 when the draft changed " +
        "meanwhile, instead of overwriting it. Without either header a save replaces the draft.",
      security: security.author,
      requestParams: {
        path: reportPath,
        header: draftCondition,
      },
      // The command takes the spec as sent and checks it with the spec schema, naming JSON paths.
      requestBody: jsonBody(saveDraftInput.extend({ spec: reportSpecSchema })),
      responses: {
        200: { description: "Saved", ...json(draftSavedAnswer), headers: draftEtagHeader },
        ...apiFailures({
          400: "Invalid spec (the message names the JSON path), report id or condition header",
          401: true,
          403: true,
          412: conditionFailed,
        }),
      },
    },
    delete: {
      tags: ["Authoring"],
      operationId: "discardDraft",
      summary: "Discard the draft (a never-published report disappears from the list)",
      security: security.author,
      requestParams: { path: reportPath, header: draftCondition },
      responses: {
        204: { description: "Discarded" },
        ...apiFailures({
          401: true,
          403: true,
          404: "There is no such report, or it has no draft",
          412: conditionFailed,
        }),
      },
    },
  },
  "/api/reports/{id}/publish": {
    post: {
      tags: ["Authoring"],
      operationId: "publishDraft",
      summary: "Publish the draft as the next version (snapshot mode runs and freezes every query)",
      security: security.author,
      requestParams: { path: reportPath, header: draftCondition },
      requestBody: jsonBody(
        publishInput.extend({
          params: paramValuesField.meta({
            description: "Snapshot: the params to run the queries with (default: the spec's defaults)",
          }),
        }),
      ),
      responses: {
        201: { description: "The new version", ...json(versionEntrySchema) },
        ...apiFailures({ 401: true, 403: true, 404: notFound, 409: "There is no draft", 412: conditionFailed }),
      },
    },
  },
  "/api/reports/{id}/restore": {
    post: {
      tags: ["Authoring"],
      operationId: "restoreVersion",
      summary: "Make a new version from an old one's spec, mode, params and frozen results",
      security: security.author,
      requestParams: { path: reportPath },
      requestBody: jsonBody(restoreInput),
      responses: {
        201: { description: "The new version", ...json(versionEntrySchema) },
        ...apiFailures({ 401: true, 403: true, 404: notFound }),
      },
    },
  },
};

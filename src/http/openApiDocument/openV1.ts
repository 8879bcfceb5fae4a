import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { pushBodySchema, pushResultSchema } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import type { Dictionary } from "../../../db/seed/defaultDictionary.ts";
import { dictionaryAnswerSchema, type ServedDictionary } from "../../../queries/dictionary.ts";
import { reconciliationAnswerSchema } from "../../../queries/reconciliation.ts";
import { pingAnswer, reconcileQuery } from "../openApi/openApiRoutes.ts";
import { jsonBody, openFailures, openSuccess, security } from "./shared.ts";

const PUSH_RULES =
  "Each report is validated and stored on its own: an invalid one is answered REJECTED in `results` (with `errors` naming fields " +
  "relative to the report) and stops nothing. Unknown fields are ignored. At most 100 reports, 500 items each, 4 MB. " +
  "Rules the schema cannot show: `patient` needs idCard or hisPatientId; an item needs itemCode or itemName; refLow ≤ refHigh.";

/** Contract B: the ingestion open API, every answer in the envelope. The report schemas are the ones the push validates with. */
export function openV1Paths(dictionary: Dictionary, served: ServedDictionary): ZodOpenApiPathsObject {
  const push = (kind: "lab" | "exam", what: string) => ({
    tags: ["Ingestion open API"],
    operationId: `push${kind === "lab" ? "Lab" : "Exam"}Reports`,
    summary: `Push ${what} reports`,
    description: PUSH_RULES,
    security: security.client,
    requestBody: jsonBody(pushBodySchema(reportKinds[kind].schema(dictionary))),
    responses: { 200: openSuccess("One result entry per report, in order: CREATED, UPDATED, UNCHANGED or REJECTED", pushResultSchema), ...openFailures(413) },
  });
  const reconcile = (kind: "lab" | "exam") => ({
    tags: ["Ingestion open API"],
    operationId: `reconcile${kind === "lab" ? "Lab" : "Exam"}`,
    summary: `What was stored for a day, with the ${kind} externalIds and their digest`,
    security: security.client,
    requestParams: { query: reconcileQuery },
    responses: { 200: openSuccess("The day's counts and ids", reconciliationAnswerSchema), ...openFailures() },
  });
  return {
    "/open/v1/lab/reports": { post: push("lab", "laboratory") },
    "/open/v1/exam/reports": { post: push("exam", "examination") },
    "/open/v1/dict/lab-items": {
      get: {
        tags: ["Ingestion open API"],
        operationId: "labItemDictionary",
        summary: "The standard item dictionary and exam types",
        security: security.client,
        requestParams: {
          query: z.object({ category: z.enum(served.categories as [string, ...string[]]).optional().meta({ description: "Only the items of this category" }) }),
          header: z.object({ "If-None-Match": z.string().optional().meta({ description: "The ETag of an earlier answer" }) }),
        },
        responses: {
          200: {
            ...openSuccess("The dictionary", dictionaryAnswerSchema),
            headers: z.object({ ETag: z.string().meta({ description: "The dictionary version (and the category filter)" }) }),
          },
          304: { description: "Unchanged since the ETag sent in If-None-Match" },
          ...openFailures(),
        },
      },
    },
    "/open/v1/reconcile/lab": { get: reconcile("lab") },
    "/open/v1/reconcile/exam": { get: reconcile("exam") },
    "/open/v1/ping": {
      get: {
        tags: ["Ingestion open API"],
        operationId: "ping",
        summary: "Check connectivity and the key",
        security: security.client,
        responses: { 200: openSuccess("Who the key belongs to, and the versions", pingAnswer), ...openFailures() },
      },
    },
  };
}

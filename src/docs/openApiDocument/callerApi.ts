import type { ZodOpenApiPathsObject } from "zod-openapi";
import { z } from "zod";
import { dictionaryAnswerSchema } from "../../../queries/dictionary/dictionary.ts";
import { unmappedItemSchema } from "../../../queries/dictionary/unmappedItems.ts";
import { callerAnswer } from "../../credentials/callerRoutes.ts";
import { unmappedQuery } from "../../dictionary/dictionaryRoutes.ts";
import { apiFailures, json, security } from "./shared.ts";

/** Who the caller is (contract E.2), for pages that offer only what the caller's roles allow; and the dictionary the pages name items by. */
export const callerApiPaths: ZodOpenApiPathsObject = {
  "/api/me": {
    get: {
      tags: ["Administration"],
      operationId: "whoAmI",
      summary: "The caller of this credential: name, tenant, roles and wards",
      security: [...security.author, { staffSession: [], serviceTenant: [] }],
      responses: { 200: { description: "The caller", ...json(callerAnswer) }, ...apiFailures({ 401: "No credential, or one that is wrong, expired or revoked", 403: "The credential belongs to another tenant than X-Service-Tenant" }) },
    },
  },
  "/api/dictionary/lab-items": {
    get: {
      tags: ["Authoring"],
      operationId: "staffLabItemDictionary",
      summary: "The standard item dictionary, as GET /open/v1/dict/lab-items serves it to senders: each item with its Chinese and English names and short clinical label (the report editor completes item codes from it)",
      description: "Any role may ask; it holds nothing of a tenant.",
      security: [...security.author, { staffSession: [], serviceTenant: [] }],
      requestParams: { header: z.object({ "If-None-Match": z.string().optional().meta({ description: "The ETag of an earlier answer" }) }) },
      responses: {
        200: { description: "The dictionary", ...json(dictionaryAnswerSchema), headers: z.object({ ETag: z.string().meta({ description: "The dictionary version" }) }) },
        304: { description: "Unchanged since the ETag sent in If-None-Match" },
        ...apiFailures({ 401: "No credential, or one that is wrong, expired or revoked", 403: "The credential belongs to another tenant than X-Service-Tenant" }),
      },
    },
  },
  "/api/dictionary/unmapped": {
    get: {
      tags: ["Authoring"],
      operationId: "unmappedItems",
      summary: "The sent laboratory items no dictionary entry matched, per sender, code, name and unit, with how many results, when first and last received, and examples of their values, the most frequent first (contract F.1)",
      description:
        "Role clinician or above. Counts the reports received on the days asked for, each as last received. A caller with wards counts only its wards' patients' results (a report still awaiting its patient counts only for callers without wards).",
      security: [...security.author, { staffSession: [], serviceTenant: [] }],
      requestParams: { query: unmappedQuery },
      responses: {
        200: { description: "The unmapped items, the most frequent first", ...json(z.array(unmappedItemSchema)) },
        ...apiFailures({
          400: "A day is not written yyyy-MM-dd, from is after to, or the days span more than 366",
          401: "No credential, or one that is wrong, expired or revoked",
          403: "The credential belongs to another tenant than X-Service-Tenant, or its roles do not include clinician, author or admin",
        }),
      },
    },
  },
};

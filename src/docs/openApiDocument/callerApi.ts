import type { ZodOpenApiPathsObject } from "zod-openapi";
import { z } from "zod";
import { dictionaryAnswerSchema } from "../../../queries/dictionary/dictionary.ts";
import { unmappedItemSchema } from "../../../queries/dictionary/unmappedItems.ts";
import { callerAnswer } from "../../credentials/callerRoutes.ts";
import { mappingListQuery, unmappedQuery } from "../../dictionary/dictionaryRoutes.ts";
import { pageLinkHeader } from "../../http/paging.ts";
import { apiFailures, json, jsonBody, LIST_BUSY, security } from "./shared.ts";
import { mappingInput, mappingKeysInput, unmappingInput } from "../../../commands/dictionary/itemMappings.ts";
import { itemMappingSchema, mappingPreviewSchema } from "../../../queries/dictionary/itemMappings.ts";

const staffCallers = [...security.author, { staffSession: [], serviceTenant: [] }];
const staffFailures = {
  401: "No credential, or one that is wrong, expired or revoked",
  403: "The credential belongs to another tenant than X-Service-Tenant, or its roles are not enough",
};

/** Who the caller is (contract E.2), for pages that offer only what the caller's roles allow; and the dictionary the pages name items by. */
export const callerApiPaths: ZodOpenApiPathsObject = {
  "/api/me": {
    get: {
      tags: ["Administration"],
      operationId: "whoAmI",
      summary: "The caller of this credential: name, tenant, roles and wards",
      security: [...security.author, { staffSession: [], serviceTenant: [] }],
      responses: {
        200: { description: "The caller", ...json(callerAnswer) },
        ...apiFailures({
          401: "No credential, or one that is wrong, expired or revoked",
          403: "The credential belongs to another tenant than X-Service-Tenant",
        }),
      },
    },
  },
  "/api/dictionary/lab-items": {
    get: {
      tags: ["Authoring"],
      operationId: "staffLabItemDictionary",
      summary:
        "The standard item dictionary, as GET /open/v1/dict/lab-items serves it to senders: each item with its " +
        "Chinese and English names and short clinical label (the report editor completes item codes from it)",
      description: "Any role may ask; it holds nothing of a tenant.",
      security: [...security.author, { staffSession: [], serviceTenant: [] }],
      requestParams: {
        header: z.object({
          "If-None-Match": z.string().optional().meta({ description: "The ETag of an earlier answer" }),
        }),
      },
      responses: {
        200: {
          description: "The dictionary",
          ...json(dictionaryAnswerSchema),
          headers: z.object({ ETag: z.string().meta({ description: "The dictionary version" }) }),
        },
        304: { description: "Unchanged since the ETag sent in If-None-Match" },
        ...apiFailures({
          401: "No credential, or one that is wrong, expired or revoked",
          403: "The credential belongs to another tenant than X-Service-Tenant",
        }),
      },
    },
  },
  "/api/dictionary/unmapped": {
    get: {
      tags: ["Authoring"],
      operationId: "unmappedItems",
      summary:
        "The sent laboratory items no dictionary entry matched, per sender, code, name and unit, with how many " +
        "results, when first and last received, and examples of their values, the most frequent " +
        "first (contract F.1)",
      description:
        "Role clinician or above. Counts the reports received on the days asked for, each as last received. A " +
        "caller with wards counts only its wards' patients' results (a report still awaiting its patient " +
        "counts only for callers without wards).",
      security: staffCallers,
      requestParams: { query: unmappedQuery },
      responses: {
        200: {
          description: "The unmapped items, the most frequent first, a page of them (contract E.6)",
          ...json(z.array(unmappedItemSchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({
          400: "A day is not written yyyy-MM-dd, from is after to, the days span more than 366, or a bad limit or cursor",
          503: LIST_BUSY,
          401: "No credential, or one that is wrong, expired or revoked",
          403: "The credential belongs to another tenant than X-Service-Tenant, or its roles do not include clinician, author or admin",
        }),
      },
    },
  },
  "/api/dictionary/mappings": {
    get: {
      tags: ["Authoring"],
      operationId: "itemMappings",
      summary:
        "The tenant's item mappings, the newest first: those in force and those undone, with who made and undid them (contract F.1)",
      description: "Role clinician or above. A page at a time (contract E.6).",
      security: staffCallers,
      requestParams: { query: mappingListQuery },
      responses: {
        200: {
          description: "The mappings, a page of them",
          ...json(z.array(itemMappingSchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({ 400: "A bad limit or cursor", ...staffFailures, 503: LIST_BUSY }),
      },
    },
    post: {
      tags: ["Authoring"],
      operationId: "addItemMapping",
      summary:
        "Maps a sent item that no dictionary entry matched to a standard item, for one sender or all (contract F.1)",
      description:
        "Role author or above. From then on pushes map the item (after the dictionary: a mapping never " +
        "displaces what the dictionary maps). Keys are compared trimmed and exactly as sent; a key left out " +
        "matches anything; of two mappings that match, the one naming more (sender, then unit, then both code " +
        "and name) wins, then the earlier. A value of a unit neither the dictionary nor UCUM converts is " +
        "multiplied by factor, when given. One mapping per sender, code, name and unit is in force at a time.",
      security: staffCallers,
      requestBody: jsonBody(mappingInput),
      responses: {
        201: { description: "Recorded; the next push maps with it", ...json(z.object({ mappingId: z.uuid() })) },
        ...apiFailures({
          400:
            "A field is missing or wrong, the dictionary maps the item already, the standard item or the sender " +
            "is unknown, or a factor was given for an item without a unit",
          ...staffFailures,
          409: "The item already has a mapping in force (its mappingId is in the sentence): undo it first",
        }),
      },
    },
  },
  "/api/dictionary/mappings/preview": {
    post: {
      tags: ["Authoring"],
      operationId: "previewItemMapping",
      summary:
        "How many stored results (every ward's) a mapping of these keys would re-map now, and the units they were sent in; nothing is recorded",
      description: "Role author or above. The body is the keys of POST /api/dictionary/mappings's.",
      security: staffCallers,
      requestBody: jsonBody(mappingKeysInput),
      responses: {
        200: { description: "The results it matches", ...json(mappingPreviewSchema) },
        ...apiFailures({ 400: "A field is missing or wrong", ...staffFailures }),
      },
    },
  },
  "/api/dictionary/mappings/{mappingId}": {
    delete: {
      tags: ["Authoring"],
      operationId: "removeItemMapping",
      summary: "Undoes an item mapping: later pushes leave the item unmapped (contract F.1)",
      description: "Role author or above. Undoing a mapping undone already changes nothing and answers 204 again.",
      security: staffCallers,
      requestParams: { path: z.object({ mappingId: z.uuid() }) },
      requestBody: jsonBody(unmappingInput, false),
      responses: {
        204: { description: "Undone (also when it was already)" },
        ...apiFailures({
          400: "The body is not { reason? }",
          ...staffFailures,
          404: "The tenant has no mapping of this id",
        }),
      },
    },
  },
};

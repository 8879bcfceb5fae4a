import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { pushBodySchema, pushResultSchema } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import type { Dictionary } from "../../../db/seed/defaultDictionary.ts";
import { dictionaryAnswerSchema, type ServedDictionary } from "../../../queries/dictionary/dictionary.ts";
import { reconciliationAnswerSchema } from "../../../queries/ingestion/reconciliation.ts";
import { pingAnswer, reconcileQuery } from "../../ingestion/openV1/openApiRoutes.ts";
import { bulkJobAnswerSchema, bulkRejectedAnswerSchema } from "../../../queries/bulk/bulkJobs.ts";
import { bulkSubmittedAnswer, NDJSON_TYPE, rejectedPageQuery } from "../../ingestion/openV1/bulkRoutes.ts";
import { jsonBody, LIST_BUSY, openFailures, openFailuresDescribed, openSuccess, security } from "./shared.ts";

const bulkJobPath = z.object({ jobId: z.string().meta({ description: "The jobId of the upload's answer" }) });

const PUSH_RULES =
  "Each report is validated and stored on its own: an invalid one is answered REJECTED in `results` (with `errors` naming fields " +
  "relative to the report) and stops nothing. Unknown fields are ignored. At most 100 reports, 500 items each, 4 MB. " +
  "Rules the schema cannot show: `patient` needs idCard or hisPatientId; an item needs itemCode or itemName; refLow ≤ refHigh.";

const BULK_RULES =
  "The body is NDJSON (Content-Type: application/x-ndjson), one report per line, optionally gzip-compressed (Content-Encoding: gzip): " +
  "at most 1,000,000 reports and 512 MB uncompressed, a line at most 4 MB; blank lines are ignored. The body is stored before the answer (202); " +
  "workers then import it in the background, each line exactly like one report of a push (validation, matching, mapping, CREATED / UPDATED / UNCHANGED, " +
  "reconciliation, the unmatched queue). Jobs of one client run in the order they were submitted. Follow statusUrl for progress and rejected lines.";

/** Contract B: the ingestion open API, every answer in the envelope. The report schemas are the ones the push validates with. */
export function openV1Paths(dictionary: Dictionary, served: ServedDictionary): ZodOpenApiPathsObject {
  const push = (kind: "lab" | "exam", what: string) => ({
    tags: ["Ingestion open API"],
    operationId: `push${kind === "lab" ? "Lab" : "Exam"}Reports`,
    summary: `Push ${what} reports`,
    description: PUSH_RULES,
    security: security.client,
    requestBody: jsonBody(pushBodySchema(reportKinds[kind].schema(dictionary))),
    responses: {
      200: openSuccess(
        "One result entry per report, in order: CREATED, UPDATED, UNCHANGED or REJECTED",
        pushResultSchema,
      ),
      ...openFailures(413),
    },
  });
  const bulkUpload = (kind: "lab" | "exam", what: string) => ({
    tags: ["Ingestion open API"],
    operationId: `bulk${kind === "lab" ? "Lab" : "Exam"}Reports`,
    summary: `Submit ${what} reports in bulk (background job)`,
    description: BULK_RULES,
    security: security.client,
    requestParams: {
      header: z.object({
        "Content-Encoding": z
          .enum(["gzip", "identity"])
          .optional()
          .meta({ description: "gzip: the body is gzip-compressed NDJSON" }),
      }),
    },
    requestBody: {
      required: true,
      content: {
        [NDJSON_TYPE]: {
          schema: z.string().meta({
            description: "One report per line, each a JSON object shaped like a report of a push",
            example:
              '{"externalId":"LIS-1","patient":{"idCard":"11010519491231002X"},"reportedAt":"2026-03-01 11:00:00","items":[{"itemCode":"HGB","value":11.5}]}\n',
          }),
        },
      },
    },
    responses: {
      202: openSuccess("The body is stored and the job queued (envelope code 202)", bulkSubmittedAnswer),
      ...openFailuresDescribed({
        400:
          "Not NDJSON at all (no line is a JSON object, a push body, an empty body), the wrong Content-Type or " +
          "Content-Encoding, broken gzip, or an upload cut off: nothing is queued",
        413: "Over 1,000,000 reports, 512 MB uncompressed, or a line over 4 MB: nothing is queued",
      }),
    },
  });
  const reconcile = (kind: "lab" | "exam") => ({
    tags: ["Ingestion open API"],
    operationId: `reconcile${kind === "lab" ? "Lab" : "Exam"}`,
    summary: `What was stored for a day, with the ${kind} externalIds and their digest`,
    description:
      "The whole day's externalIds, written a page at a time as the answer is read (contract E.6): the ids " +
      "come first in data, the counts, the digest and the receipt after them, computed over exactly the ids " +
      "answered. A report stored while the answer is written may or may not be in it. A fault part way cuts " +
      "the answer, which then does not parse as JSON.",
    security: security.client,
    requestParams: { query: reconcileQuery },
    responses: {
      200: openSuccess("The day's counts and ids", reconciliationAnswerSchema),
      ...openFailuresDescribed({
        503: `Not ready, or ${LIST_BUSY.charAt(0).toLowerCase()}${LIST_BUSY.slice(1)} (the first page; a later page that waits its whole turn cuts the answer)`,
      }),
    },
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
          query: z.object({
            category: z
              .enum(served.categories as [string, ...string[]])
              .optional()
              .meta({ description: "Only the items of this category" }),
          }),
          header: z.object({
            "If-None-Match": z.string().optional().meta({ description: "The ETag of an earlier answer" }),
          }),
        },
        responses: {
          200: {
            ...openSuccess("The dictionary", dictionaryAnswerSchema),
            headers: z.object({
              ETag: z.string().meta({ description: "The dictionary version (and the category filter)" }),
            }),
          },
          304: { description: "Unchanged since the ETag sent in If-None-Match" },
          ...openFailures(),
        },
      },
    },
    "/open/v1/hl7": {
      post: {
        tags: ["Ingestion open API"],
        operationId: "pushHl7Messages",
        summary: "Push laboratory reports as HL7 v2 ORU^R01 messages (contract D.5)",
        description:
          "One or more ORU^R01 messages (v2.3 to v2.5.1; a batch in FHS/BHS is accepted; segments end with " +
          "\\r, \\n or \\r\\n). Each message is one lab report, mapped as the integration guide's HL7 section " +
          "shows and stored by the same rules as a JSON push. The answer holds one ACK per message, in order: " +
          "MSA-1 AA stored, AE rejected (an ERR segment per problem naming the HL7 field, our field path in " +
          "ERR-8), AR unreadable or not ORU^R01; MSA-2 echoes MSH-10.",
        security: security.client,
        requestBody: {
          required: true,
          content: {
            "x-application/hl7-v2+er7": {
              schema: z.string().meta({
                description: "ER7 text, UTF-8",
                example:
                  "MSH|^~\\&|LIS|HOSP|DIALYSIS-HUB||20260301101500||ORU^R01|MSG0001|P|2.5.1\r" +
                  "PID|1||11010519491231002X^^^^NNCHN||张^三\r" +
                  "OBR|1||L-0001|DLYM^透析月度检查|||20260301073000|||||||||||||||20260301100000|||F\r" +
                  "OBX|1|NM|HGB^血红蛋白||112|g/L|115-150|L\r",
              }),
            },
          },
        },
        responses: {
          200: {
            description: "One ACK per message, in order",
            content: {
              "x-application/hl7-v2+er7": {
                schema: z.string().meta({
                  description: "ER7 ACK messages",
                  example:
                    "MSH|^~\\&|DIALYSIS-HUB||LIS|HOSP|20260301101501||ACK^R01|1772331301000|P|2.5.1||||||UNICODE UTF-8\rMSA|AA|MSG0001|CREATED L-0001\r",
                }),
              },
            },
          },
          ...openFailuresDescribed({
            400: "The body holds no HL7 message (no MSH segment)",
            413: "The body is over 4 MB",
            415: "Not sent as x-application/hl7-v2+er7 or text/plain",
          }),
        },
      },
    },
    "/open/v1/lab/reports/bulk": { post: bulkUpload("lab", "laboratory") },
    "/open/v1/exam/reports/bulk": { post: bulkUpload("exam", "examination") },
    "/open/v1/bulk/{jobId}": {
      get: {
        tags: ["Ingestion open API"],
        operationId: "bulkJobStatus",
        summary: "A bulk job's status and counts (readable while it runs)",
        security: security.client,
        requestParams: { path: bulkJobPath },
        responses: {
          200: openSuccess("The job", bulkJobAnswerSchema),
          ...openFailuresDescribed({ 404: "No job with this id was submitted with this key's client" }),
        },
      },
    },
    "/open/v1/bulk/{jobId}/rejected": {
      get: {
        tags: ["Ingestion open API"],
        operationId: "bulkJobRejectedLines",
        summary: "A bulk job's rejected lines, in line order, a page at a time",
        security: security.client,
        requestParams: { path: bulkJobPath, query: rejectedPageQuery },
        responses: {
          200: openSuccess("The rejected lines of the page and how many there are", bulkRejectedAnswerSchema),
          ...openFailuresDescribed({
            404: "No job with this id was submitted with this key's client",
            503: `Not ready, or ${LIST_BUSY.charAt(0).toLowerCase()}${LIST_BUSY.slice(1)}`,
          }),
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

import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { issuedAuthorToken, registerAuthorInput } from "../../../commands/credentials/authors.ts";
import { clientCodeMapInput, issuedClientKey, registerClientInput } from "../../../commands/credentials/clients.ts";
import { rotateInput } from "../../../commands/credentials/credentialLifecycle.ts";
import { authorListEntrySchema, clientListEntrySchema } from "../../../queries/credentials/credentials.ts";
import { claimInput, dismissInput } from "../../../commands/ingestion/queueDecisions.ts";
import { PATIENT_REF_PATTERN, registerPatientInput } from "../../../commands/patients/registerPatient.ts";
import { patientListEntrySchema } from "../../../queries/patients/patients.ts";
import { projectionsReportSchema } from "../../../queries/runtime/projectionStatus.ts";
import { bulkJobListEntrySchema, bulkRejectedAnswerSchema } from "../../../queries/bulk/bulkJobs.ts";
import { ledgerSummarySchema, ledgerVerificationSchema } from "../../../queries/ledger/ledger.ts";
import {
  reportDiffSchema,
  reportHistorySchema,
  reportVersionSchema,
} from "../../../queries/ingestion/reportHistory.ts";
import { queueStateSchema, unmatchedEntrySchema } from "../../../queries/ingestion/unmatched.ts";
import { claimCheckSchema } from "../../../queries/ingestion/claimCheck.ts";
import { clientCodeMapAnswer, credentialListQuery } from "../../credentials/adminRoutes.ts";
import { rejectedPageQuery } from "../../ingestion/openV1/bulkRoutes.ts";
import { bulkJobListQuery } from "../../ingestion/bulkJobRoutes.ts";
import { listQuery, resultsQuery } from "../../patients/patientRoutes.ts";
import { patientResultsSchema, resultItemSchema } from "../../../queries/patients/patientResults.ts";
import { acknowledgeInput } from "../../../commands/alerts/acknowledgeAlert.ts";
import { alertSchema } from "../../../queries/alerts/alerts.ts";
import { alertListQuery, alertStreamQuery, openAlertCountAnswer } from "../../alerts/alertRoutes.ts";
import {
  claimCheckQuery,
  claimedAnswer,
  dismissedAnswer,
  unmatchedListQuery,
} from "../../ingestion/unmatchedRoutes.ts";
import { pageLinkHeader } from "../../http/paging.ts";
import { apiFailures, json, jsonBody, LIST_BUSY, security } from "./shared.ts";

const patientPath = z.object({
  patientRef: z
    .string()
    .regex(PATIENT_REF_PATTERN)
    .meta({ description: "The centre's own reference of the patient", example: "P001" }),
});
const queuedPath = z.object({
  kind: z.enum(["lab", "exam"]),
  externalId: z.string().meta({ description: "The report's externalId as the sender pushed it" }),
});
const clientPath = z.object({
  clientId: z.string().meta({ description: "The client's clientId, as issued and as GET /api/admin/clients lists it" }),
});
const authorPath = z.object({
  authorId: z.string().meta({ description: "The author's authorId, as issued and as GET /api/admin/authors lists it" }),
});
const bulkJobPath = z.object({
  jobId: z.string().meta({
    description: "The job's jobId, as GET /api/bulk-jobs lists it",
    example: "0b6f3c1e-8d2a-4f55-9a57-2f1c3f7f0a11",
  }),
});
const authorFailures = { 401: true, 403: true } as const;
/** A claim or dismissal may name the report as the caller read it (issue #51 finding 6). */
const queueCondition = z.object({
  "if-match": z
    .string()
    .optional()
    .meta({
      description:
        "The etag of the report this decision is based on (an unmatched entry's etag, or its history's); refused " +
        "with 409 queue-entry-changed when the report changed since",
      example: '"report-1"',
    }),
});
const queueDecisionNote =
  "With If-Match (the entry's etag), the decision is refused (409, code queue-entry-changed, the sentence " +
  "saying what changed, by whom and when) if the report was claimed, dismissed or sent again since: nothing is " +
  "overridden. Without it nothing is compared, except that a dismissed report is not claimed over (409, " +
  "report-dismissed): to claim it all the same, send If-Match with its current etag (its history gives it). A " +
  "report of a patient outside the caller's wards answers 404, as if it did not exist.";
const adminFailures = {
  401: "The ADMIN_TOKEN is missing or wrong, or administration is switched off (no ADMIN_TOKEN)",
} as const;
const tenantAdminFailures = {
  401: "No credential, or one that is wrong, expired or revoked",
  403: "The caller lacks the role admin, is of another tenant, or is limited to wards the credential would exceed",
} as const;
const notYetInForce = "The revocation is recorded but not yet in force; check again shortly";
const listRebuilding =
  "The credentials read model is being rebuilt after an upgrade; list again after Retry-After seconds";
const expiryNote =
  "With expiresInDays the credential stops working after that many days (fractions allowed): each call then " +
  "answers 401 in its interface's own error shape, saying it expired and when.";

/** Contract C.2 (credentials, C.6 projections: the ADMIN_TOKEN) and C.4 (patients and the unmatched queue). */
export const recordsApiPaths: ZodOpenApiPathsObject = {
  "/api/patients": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "listPatients",
      summary: "The tenant's dialysis patients, id cards masked, a page at a time (contract E.6)",
      security: security.author,
      requestParams: { query: listQuery },
      responses: {
        200: {
          description: "A page of the patients, by patientRef",
          ...json(z.array(patientListEntrySchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({ ...authorFailures, 400: "A bad q, limit or cursor", 503: LIST_BUSY }),
      },
    },
  },
  "/api/patients/{patientRef}": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "showPatient",
      summary: "One dialysis patient, as the list shows it (id card masked)",
      description:
        "Recorded in the access log (contract E.4), also when the answer is 404. A caller with wards finds " +
        "only the patients of its wards: another ward's patient answers 404, as one that does not exist.",
      security: security.author,
      requestParams: { path: patientPath },
      responses: {
        200: { description: "The patient as listed", ...json(patientListEntrySchema) },
        ...apiFailures({
          400: "patientRef is not a patient reference (1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit)",
          ...authorFailures,
          404: "No such patient in this tenant, or one of a ward outside the caller's",
        }),
      },
    },
    put: {
      tags: ["Patients and unmatched reports"],
      operationId: "savePatient",
      summary: "Register or update a dialysis patient; pending reports with the same idCard are claimed",
      security: security.author,
      requestParams: { path: patientPath },
      requestBody: jsonBody(registerPatientInput),
      responses: {
        200: { description: "The patient as listed", ...json(patientListEntrySchema) },
        ...apiFailures({ 400: "Invalid idCard, patientRef or field", ...authorFailures }),
      },
    },
  },
  "/api/patients/{patientRef}/results": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "patientResults",
      summary:
        "A patient's results over time, in standard units, with reference ranges, clinical targets and critical limits (contract D.7)",
      security: security.author,
      requestParams: { path: patientPath, query: resultsQuery },
      responses: {
        200: {
          description: "One series per asked item, in the order asked; points oldest first",
          ...json(patientResultsSchema),
        },
        ...apiFailures({
          400: "A day, a code or the period is not one that can be charted",
          ...authorFailures,
          404: "No such patient in this tenant",
        }),
      },
    },
  },
  "/api/patients/{patientRef}/result-items": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "patientResultItems",
      summary:
        "The items a patient's chart can draw: every core numeric item, then every other numeric item the " +
        "patient has results of, with how many and the newest's time",
      description:
        "Recorded in the access log (contract E.4), also when the answer is 404. A caller with wards finds " +
        "only the patients of its wards. Each code can be asked for with GET " +
        "/api/patients/{patientRef}/results?codes=.",
      security: security.author,
      requestParams: { path: patientPath },
      responses: {
        200: {
          description: "Core items first, then the others, each in the dictionary's order",
          ...json(z.array(resultItemSchema)),
        },
        ...apiFailures({
          400: "patientRef is not a patient reference",
          ...authorFailures,
          404: "No such patient in this tenant, or one of a ward outside the caller's",
        }),
      },
    },
  },
  "/api/alerts": {
    get: {
      tags: ["Critical results"],
      operationId: "listAlerts",
      summary:
        "Critical-result and delta alerts of the tenant: standing ones to acknowledge (open), acknowledged " +
        "ones, ones an update closed before anyone acknowledged them, or changes back inside the reference " +
        "range shown as information (info; contracts D.7, F.3)",
      security: security.author,
      requestParams: { query: alertListQuery },
      responses: {
        200: {
          description: "Newest first (by when raised, acknowledged or closed)",
          ...json(z.array(alertSchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({ ...authorFailures, 400: "A bad state, kind, limit or cursor", 503: LIST_BUSY }),
      },
    },
  },
  "/api/alerts/count": {
    get: {
      tags: ["Critical results"],
      operationId: "openAlertCount",
      summary:
        "How many alerts wait to be acknowledged, in all and of each kind: the badge of the staff pages and the counts of the alerts page's tabs",
      security: security.author,
      responses: { 200: { description: "The count", ...json(openAlertCountAnswer) }, ...apiFailures(authorFailures) },
    },
  },
  "/api/alerts/{alertId}/acknowledge": {
    post: {
      tags: ["Critical results"],
      operationId: "acknowledgeAlert",
      summary:
        "Acknowledge an alert with a note saying what was done, whom you told and the value as read back (contract G.3); acknowledging it again changes nothing",
      security: security.author,
      requestParams: {
        path: z.object({
          alertId: z.string().meta({ description: "The alert's alertId, as GET /api/alerts lists it" }),
        }),
      },
      requestBody: jsonBody(acknowledgeInput),
      responses: {
        200: { description: "The alert as it now stands", ...json(alertSchema) },
        ...apiFailures({
          400: "No note, or a malformed notified or readBack",
          ...authorFailures,
          404: "No such alert in this tenant",
          409: "Information, or a change its critical alert carries: nothing to acknowledge (code alert-needs-no-acknowledgement)",
          422: "The value read back is not the alert's (code read-back-mismatch; the attempt is recorded), or the tenant's policy asks for a read-back and none was sent (code read-back-required)",
        }),
      },
    },
  },
  "/api/alerts/stream": {
    get: {
      tags: ["Critical results"],
      operationId: "alertStream",
      summary:
        "Server-Sent Events of the tenant's alerts: `raised` with each new alert, `acknowledged`, `closed` and " +
        "`updated` (a critical alert took on or lost its result's change) with the alert as it then stands, a " +
        "comment line as heartbeat; information is not sent",
      description:
        "Send the author token in the Authorization header (read the stream with fetch, not EventSource, which " +
        "cannot send one). What happens while no stream is open is not replayed: read GET /api/alerts " +
        "when (re)connecting. " +
        "The stream ends within a second of its credential's end (token revoked, expired or replaced; session " +
        "signed out, idle or past its hours), on whichever process it ended: its last event is `ended` with " +
        '`{"reason":"revoked"|"expired"|"replaced"|"signed-out"|"session-expired","code":<the /api error code ' +
        'a later call gets>,"error":<a sentence>}`, then it closes; nothing is sent after it.',
      security: security.author,
      requestParams: { query: alertStreamQuery },
      responses: {
        200: {
          description:
            "An endless text/event-stream. With content=notice each event's data is only { alertId, kind, severity } (AlertNotice): no patient, and no access record",
          content: {
            "text/event-stream": {
              schema: { type: "string", example: 'event: raised\ndata: {"alertId":"…","code":"K","value":6.9,…}\n\n' },
            },
          },
        },
        ...apiFailures({ ...authorFailures, 400: "content is neither alert nor notice" }),
      },
    },
  },
  "/api/history/{kind}/{externalId}": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "reportHistory",
      summary:
        "A report's history from the event store: received versions, claims, dismissals, returns to the queue (contract D.1)",
      security: security.author,
      requestParams: { path: queuedPath },
      responses: {
        200: {
          description: "Oldest entry first",
          ...json(reportHistorySchema),
          headers: z.object({
            ETag: z
              .string()
              .meta({ description: "The report's etag, as the answer's etag field", example: '"report-3"' }),
          }),
        },
        ...apiFailures({ ...authorFailures, 404: "No such report for this tenant" }),
      },
    },
  },
  "/api/history/{kind}/{externalId}/versions/{n}": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "reportVersion",
      summary: "One stored version of a report, exactly as accepted",
      security: security.author,
      requestParams: {
        path: queuedPath.extend({ n: z.string().meta({ description: "The version: 1, 2, …", example: "2" }) }),
      },
      responses: {
        200: { description: "The version", ...json(reportVersionSchema) },
        ...apiFailures({
          ...authorFailures,
          400: "n is not a version number",
          404: "No such report, or no such version",
        }),
      },
    },
  },
  "/api/history/{kind}/{externalId}/diff": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "reportDiff",
      summary:
        "Every changed field between two versions; items are paired by itemCode (else itemName), not by position",
      security: security.author,
      requestParams: {
        path: queuedPath,
        query: z.object({
          from: z.string().meta({ description: "The older version", example: "1" }),
          to: z.string().meta({ description: "The newer version", example: "2" }),
        }),
      },
      responses: {
        200: { description: "The changes, in the notation of validation errors", ...json(reportDiffSchema) },
        ...apiFailures({
          ...authorFailures,
          400: "from or to is not a version number",
          404: "No such report, or no such version",
        }),
      },
    },
  },
  "/api/unmatched": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "listUnmatched",
      summary: "Reports awaiting claim, oldest first (or newest), a page at a time (contract E.6), searched",
      description:
        "q finds reports by the patient's name, the externalId, the report number or the digits of the masked " +
        "id card; a whole id card number is compared by a keyed hash, so the number itself reaches neither a " +
        "database query nor its log. The next page's Link keeps order, kind and q.",
      security: security.author,
      requestParams: { query: unmatchedListQuery },
      responses: {
        200: { description: "A page of the queue", ...json(z.array(unmatchedEntrySchema)), headers: pageLinkHeader },
        ...apiFailures({ ...authorFailures, 400: "A bad limit, cursor, order, kind or q", 503: LIST_BUSY }),
      },
    },
  },
  "/api/unmatched/summary": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "unmatchedSummary",
      summary: "How many reports await claim, and a tag that changes whenever the queue does",
      description:
        "For a page that shows the queue to read it again only when it changed (issue #54); names no patient, so it is not recorded in the access log.",
      security: security.author,
      responses: {
        200: { description: "The queue's count and tag", ...json(queueStateSchema) },
        ...apiFailures({ ...authorFailures, 400: "A query parameter was given" }),
      },
    },
  },
  "/api/unmatched/{kind}/{externalId}/check": {
    get: {
      tags: ["Patients and unmatched reports"],
      operationId: "checkClaim",
      summary:
        "Before claiming: the report's patient beside the chosen one (name, id card, birth date, sex, HIS id), fact by fact",
      description:
        "The birth date and sex are read from the id card (GB 11643-1999). The patient's birth date is not " +
        "given: beside the masked id card it would reveal the whole number; checks.birthDate says whether it " +
        "is the report's. Recorded in the access log (contract E.4). The staff pages ask the person to confirm " +
        "a claim when any check differs.",
      security: security.author,
      requestParams: { path: queuedPath, query: claimCheckQuery },
      responses: {
        200: {
          description: "The report's patient, the chosen patient and how each fact compares",
          ...json(claimCheckSchema),
        },
        ...apiFailures({
          ...authorFailures,
          400: "patientRef is missing or not a patient reference",
          404: "No such report awaits claiming, or no such patient (or one of a ward outside the caller's)",
        }),
      },
    },
  },
  "/api/unmatched/{kind}/{externalId}/claim": {
    post: {
      tags: ["Patients and unmatched reports"],
      operationId: "claimReport",
      summary: "Match a waiting report to a patient",
      description: queueDecisionNote,
      security: security.author,
      requestParams: { path: queuedPath, header: queueCondition },
      requestBody: jsonBody(claimInput),
      responses: {
        200: { description: "Claimed", ...json(claimedAnswer) },
        ...apiFailures({
          ...authorFailures,
          400: "A bad body or If-Match",
          404: "Unknown report or patient (or one of a ward outside the caller's)",
          409: "The report is already matched to another patient, was dismissed (without If-Match), or changed since the If-Match",
        }),
      },
    },
  },
  "/api/unmatched/{kind}/{externalId}/dismiss": {
    post: {
      tags: ["Patients and unmatched reports"],
      operationId: "dismissReport",
      summary: "Take a report out of the queue; it stays stored and counted",
      description: queueDecisionNote,
      security: security.author,
      requestParams: { path: queuedPath, header: queueCondition },
      requestBody: jsonBody(dismissInput),
      responses: {
        200: { description: "Dismissed", ...json(dismissedAnswer) },
        ...apiFailures({
          ...authorFailures,
          400: "A bad body or If-Match",
          404: "Unknown report (or one of a patient outside the caller's wards)",
          409: "The report is already matched to a patient, or changed since the If-Match",
        }),
      },
    },
  },
  "/api/bulk-jobs": {
    get: {
      tags: ["Bulk jobs"],
      operationId: "listBulkJobs",
      summary:
        "The tenant's bulk import jobs of every client, newest first, a page at a time: status, progress and counts",
      security: security.author,
      requestParams: { query: bulkJobListQuery },
      responses: {
        200: { description: "Newest job first", ...json(z.array(bulkJobListEntrySchema)), headers: pageLinkHeader },
        ...apiFailures({ ...authorFailures, 400: "A bad limit or cursor", 503: LIST_BUSY }),
      },
    },
  },
  "/api/bulk-jobs/{jobId}/rejected": {
    get: {
      tags: ["Bulk jobs"],
      operationId: "listBulkJobRejectedLines",
      summary: "A bulk job's rejected lines, in line order, a page at a time",
      security: security.author,
      requestParams: { path: bulkJobPath, query: rejectedPageQuery },
      responses: {
        200: {
          description: "The rejected lines of the page and how many there are",
          ...json(bulkRejectedAnswerSchema),
        },
        ...apiFailures({
          ...authorFailures,
          400: "offset or limit out of range, a bad cursor, or offset with a cursor",
          404: "No job with this id for this tenant",
          503: LIST_BUSY,
        }),
      },
    },
  },
  "/api/admin/projections": {
    get: {
      tags: ["Administration"],
      operationId: "projectionsReport",
      summary: "Each projection's position, the event store's head and the lag",
      security: security.admin,
      responses: {
        200: { description: "The projections", ...json(projectionsReportSchema) },
        ...apiFailures(adminFailures),
      },
    },
  },
  "/api/admin/ledger": {
    get: {
      tags: ["Administration"],
      operationId: "ledgerSummary",
      summary: "The tamper-evident ledger (contract D.2): blocks and events sealed, and the newest block's root",
      security: security.admin,
      responses: { 200: { description: "The ledger", ...json(ledgerSummarySchema) }, ...apiFailures(adminFailures) },
    },
  },
  "/api/admin/ledger/verify": {
    get: {
      tags: ["Administration"],
      operationId: "verifyLedger",
      summary:
        "Checks every sealed block against the events as they are now: modified, missing or inserted events, a broken chain",
      security: security.admin,
      responses: {
        200: { description: "ok is false when any problem was found", ...json(ledgerVerificationSchema) },
        ...apiFailures(adminFailures),
      },
    },
  },
  "/api/admin/clients": {
    get: {
      tags: ["Administration"],
      operationId: "listClients",
      summary:
        "The open-API clients of the X-Service-Tenant tenant, oldest first, revoked ones included; never a key or its digest (contract E.3)",
      security: security.tenantAdmin,
      requestParams: { query: credentialListQuery },
      responses: {
        200: {
          description: "The tenant's clients, a page of them",
          ...json(z.array(clientListEntrySchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({
          ...tenantAdminFailures,
          400: "A bad limit or cursor",
          503: `${listRebuilding}; or ${LIST_BUSY.charAt(0).toLowerCase()}${LIST_BUSY.slice(1)}`,
        }),
      },
    },
    post: {
      tags: ["Administration"],
      operationId: "createClient",
      summary: "Issue an open-API client key for a sending system of a tenant",
      description: expiryNote,
      security: security.tenantAdmin,
      requestBody: jsonBody(registerClientInput),
      responses: {
        201: { description: "The key, shown this once", ...json(issuedClientKey) },
        ...apiFailures(tenantAdminFailures),
      },
    },
  },
  "/api/admin/clients/{clientId}": {
    delete: {
      tags: ["Administration"],
      operationId: "revokeClient",
      summary: "Revoke a client key: it fails from the very next request",
      security: security.tenantAdmin,
      requestParams: { path: clientPath },
      responses: {
        204: { description: "Revoked" },
        ...apiFailures({ ...tenantAdminFailures, 404: "No such client", 503: notYetInForce }),
      },
    },
  },
  "/api/admin/clients/{clientId}/code-map": {
    put: {
      tags: ["Administration"],
      operationId: "setClientCodeMap",
      summary: "Set the client's own item codes → standard codes (first step of item mapping)",
      security: security.tenantAdmin,
      requestParams: { path: clientPath },
      requestBody: jsonBody(clientCodeMapInput),
      responses: {
        200: { description: "The map now in force", ...json(clientCodeMapAnswer) },
        ...apiFailures({ ...tenantAdminFailures, 404: "No such active client" }),
      },
    },
  },
  "/api/admin/clients/{clientId}/rotate": {
    post: {
      tags: ["Administration"],
      operationId: "rotateClientKey",
      summary:
        "Give a client a new key; its former key keeps working for overlapHours (default 24), then answers 401 (contract E.3)",
      description:
        "The new key works from the moment this answers. A laboratory switches to it within the overlap " +
        "without losing a push; overlapHours 0 stops the former key at once.",
      security: security.tenantAdmin,
      requestParams: { path: clientPath },
      requestBody: jsonBody(rotateInput, false),
      responses: {
        201: { description: "The new key, shown this once", ...json(issuedClientKey) },
        ...apiFailures({
          ...tenantAdminFailures,
          400: "overlapHours is not a number of hours within its bounds, or the body has another field",
          404: "No such client, or it was revoked",
          409: "The client expired: create a new one",
        }),
      },
    },
  },
  "/api/admin/authors": {
    get: {
      tags: ["Administration"],
      operationId: "listAuthors",
      summary:
        "The authors of the X-Service-Tenant tenant, oldest first, revoked ones included; never a token or its digest (contract E.3)",
      security: security.tenantAdmin,
      requestParams: { query: credentialListQuery },
      responses: {
        200: {
          description: "The tenant's authors, a page of them",
          ...json(z.array(authorListEntrySchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({
          ...tenantAdminFailures,
          400: "A bad limit or cursor",
          503: `${listRebuilding}; or ${LIST_BUSY.charAt(0).toLowerCase()}${LIST_BUSY.slice(1)}`,
        }),
      },
    },
    post: {
      tags: ["Administration"],
      operationId: "createAuthor",
      summary: "Issue an authoring token of a tenant",
      description: expiryNote,
      security: security.tenantAdmin,
      requestBody: jsonBody(registerAuthorInput),
      responses: {
        201: { description: "The token, shown this once", ...json(issuedAuthorToken) },
        ...apiFailures(tenantAdminFailures),
      },
    },
  },
  "/api/admin/authors/{authorId}": {
    delete: {
      tags: ["Administration"],
      operationId: "revokeAuthor",
      summary: "Revoke an author: their tokens fail from the very next request, on every process (contract E.3)",
      security: security.tenantAdmin,
      requestParams: { path: authorPath },
      responses: {
        204: { description: "Revoked (also when it was already)" },
        ...apiFailures({ ...tenantAdminFailures, 404: "No such author", 503: notYetInForce }),
      },
    },
  },
  "/api/admin/authors/{authorId}/rotate": {
    post: {
      tags: ["Administration"],
      operationId: "rotateAuthorToken",
      summary:
        "Give an author a new token; the former one keeps working for overlapHours (default 24), then answers 401 (contract E.3)",
      description: "The new token works from the moment this answers; overlapHours 0 stops the former token at once.",
      security: security.tenantAdmin,
      requestParams: { path: authorPath },
      requestBody: jsonBody(rotateInput, false),
      responses: {
        201: { description: "The new token, shown this once", ...json(issuedAuthorToken) },
        ...apiFailures({
          ...tenantAdminFailures,
          400: "overlapHours is not a number of hours within its bounds, or the body has another field",
          404: "No such author, or they were revoked",
          409: "The author expired: create a new one",
        }),
      },
    },
  },
};

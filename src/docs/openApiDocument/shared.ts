import { z } from "zod";
import type { ZodOpenApiResponseObject, ZodOpenApiResponsesObject, ZodOpenApiSecuritySchemeObject } from "zod-openapi";
import { apiErrorSchema } from "../../http/apiErrors.ts";
import { envelopeSchema } from "../../ingestion/openV1/envelope.ts";

export const json = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });
export const jsonBody = (schema: z.ZodType, required = true) => ({ required, ...json(schema) });

export const securitySchemes: Record<string, ZodOpenApiSecuritySchemeObject> = {
  clientKey: {
    type: "http",
    scheme: "bearer",
    description: "The sending system's client key (POST /api/admin/clients). The key decides the tenant.",
  },
  authorToken: {
    type: "http",
    scheme: "bearer",
    description: "An author token of the request's tenant (POST /api/admin/authors), or the ADMIN_TOKEN.",
  },
  adminToken: { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN the service was started with." },
  staffSession: {
    type: "apiKey",
    in: "cookie",
    name: "dh_session",
    description:
      "The session cookie of a person signed in through the hospital's identity provider (GET /staff/login); state-changing calls also send X-CSRF-Token.",
  },
  serviceTenant: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Tenant",
    description:
      "The tenant, set by the reverse proxy: [A-Za-z0-9_-]{1,64}, absent means `default`. Not a secret. " +
      "On /open/v1 the key decides the tenant and this header, when present, must agree (else 403).",
  },
};

// X-Service-Tenant is optional, so each requirement is offered with and without it.
export const security: Record<
  "none" | "viewing" | "author" | "admin" | "adminOfTenant" | "tenantAdmin" | "client",
  Array<Record<string, string[]>>
> = {
  // Stated, not left out: an operation without `security` would inherit a document-wide default.
  none: [],
  viewing: [{}, { serviceTenant: [] }],
  author: [{ authorToken: [], serviceTenant: [] }, { authorToken: [] }],
  admin: [{ adminToken: [] }],
  // The operator's lists of one tenant's credentials: X-Service-Tenant names it.
  adminOfTenant: [{ adminToken: [], serviceTenant: [] }, { adminToken: [] }],
  // A tenant's own administrators (role admin, contract E.2): a token or a signed-in person of the tenant, or the operator.
  tenantAdmin: [
    { adminToken: [], serviceTenant: [] },
    { adminToken: [] },
    { authorToken: [], serviceTenant: [] },
    { staffSession: [], serviceTenant: [] },
  ],
  client: [{ clientKey: [], serviceTenant: [] }, { clientKey: [] }],
};

const retryAfter = z.object({
  "Retry-After": z.string().meta({ description: "Seconds to wait before calling again" }),
});

const API_FAILURES: Record<number, string> = {
  400: "The call is malformed (bad JSON, a wrong field type, an unknown parameter name, a bad X-Service-Tenant)",
  401: "Credentials are missing or not valid",
  403: "The credentials belong to another tenant than X-Service-Tenant",
  404: "No such report, version or resource",
  409: "The call conflicts with the resource's state",
  413: "The body is over 1 MB",
  500: "A fault of the service, answered with a generic sentence (report the X-Request-Id)",
  503: "The database cannot be reached right now",
};

/** `/api` failures `{ error }` (contract A.1): the given ones, their description overridable, plus 400 and 500. */
/** A list page that waited its tenant's whole turn (src/http/listTurns.ts). */
export const LIST_BUSY =
  "The tenant's list pages are all being read (LIST_READS_PER_TENANT at once), and this one waited its whole turn: ask again after Retry-After seconds";

export function apiFailures(statuses: Record<number, string | true>): ZodOpenApiResponsesObject {
  const all: Record<number, string | true> = { 400: true, ...statuses, 500: true };
  return Object.fromEntries(
    Object.entries(all).map(([status, text]) => {
      const response: ZodOpenApiResponseObject = {
        description: text === true ? API_FAILURES[Number(status)]! : text,
        ...json(apiErrorSchema),
      };
      if (status === "503") response.headers = retryAfter;
      return [status, response];
    }),
  );
}

const OPEN_FAILURES: Record<number, string> = {
  400:
    "The request is invalid as a whole (malformed JSON, `reports` missing or not an array, more than 100 " +
    "reports, a bad query parameter, a bad X-Service-Tenant)",
  401: "The client key is missing, unknown or revoked",
  403: "X-Service-Tenant differs from the key's tenant",
  413: "The body is over 4 MB",
  429: "Rate limited: wait Retry-After seconds",
  500: "A fault of the service, answered with a generic msg (report the X-Request-Id)",
  503: "Not ready: the database cannot be reached right now",
};

/** `/open/v1` failures: the envelope with `data: null` and `code` equal to the HTTP status (contract B.1). */
export function openFailures(...extra: number[]): ZodOpenApiResponsesObject {
  return openFailuresDescribed({}, ...extra);
}

/** As openFailures, with the descriptions of some statuses (given or extra) told for the call. */
export function openFailuresDescribed(
  descriptions: Record<number, string>,
  ...extra: number[]
): ZodOpenApiResponsesObject {
  const statuses = [
    ...new Set([400, 401, 403, ...extra, ...Object.keys(descriptions).map(Number), 429, 500, 503]),
  ].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const response: ZodOpenApiResponseObject = {
        description: descriptions[status] ?? OPEN_FAILURES[status]!,
        ...json(envelopeSchema(z.null())),
      };
      if (status === 429 || status === 503) response.headers = retryAfter;
      return [String(status), response];
    }),
  );
}

/** A successful `/open/v1` answer: `{ code: 200, msg: "ok", data, timestamp }`. */
export function openSuccess(description: string, data: z.ZodType): ZodOpenApiResponseObject {
  return { description, ...json(envelopeSchema(data)) };
}

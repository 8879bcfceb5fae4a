/**
 * Who may call each route of the service (contract C.2), by the key of test/support/routeInventory.ts.
 * The security tests check this list against the routes read from the routers: a route added
 * without an entry here fails them until someone decides who may call it.
 */
export type Access =
  /** Anyone: the same content for every tenant (health, help, static assets, pages whose data comes from /api). */
  | "public"
  /** No credential (the proxy guards viewing, contract C.2); X-Service-Tenant chooses the tenant. */
  | "viewing"
  /** An author token of the request's tenant, or the ADMIN_TOKEN. */
  | "author"
  /** Only the ADMIN_TOKEN: the operator's calls, across tenants by nature. */
  | "admin"
  /** A token or session of the request's tenant with the role admin (contract E.2), or the ADMIN_TOKEN. */
  | "tenant-admin"
  /** An open-API client key; the key decides the tenant. */
  | "client";

export const ACCESS: Readonly<Record<string, Access>> = {
  "GET /healthz": "public",
  "GET /readyz": "public",
  "GET /llms.txt": "public",
  "GET /help": "public",
  "GET /help/:slug": "public",
  "GET /help/decisions": "public",
  "GET /help/decisions/:name": "public",
  "GET ^\\/md\\/(.*)$": "public",
  "GET /openapi.json": "public",
  "GET /docs": "public",
  "GET /docs/assets/:file": "public",
  "GET /staff": "public",
  "GET /staff/": "public",
  "GET /staff/assets/:name": "public",
  // Sign-in with the identity provider (E.1): the flow itself needs no credential; the session's own calls need its cookie.
  "GET /staff/login": "public",
  "GET /staff/callback": "public",
  "GET /staff/session": "public",
  "POST /staff/logout": "public",
  "GET /embed/assets/:name": "public",
  "GET /embed/reports/:id": "viewing",

  "GET /api/reports": "viewing",
  "GET /api/reports/:id/view": "viewing",
  "POST /api/reports/:id/data": "viewing",
  "POST /api/reports/:id/drill": "viewing",
  "POST /api/reports/:id/export/xlsx": "viewing",
  "POST /api/reports/:id/export/docx": "viewing",
  "GET /api/reports/:id/versions": "viewing",
  "GET /api/reports/:id/versions/:no/audit": "viewing",
  "GET /api/reports/:id/versions/:a/diff/:b": "viewing",

  "PUT /api/reports/:id/draft": "author",
  "DELETE /api/reports/:id/draft": "author",
  "POST /api/reports/:id/publish": "author",
  "POST /api/reports/:id/restore": "author",
  "GET /api/reports/:id/versions/:no/source": "author",
  "GET /api/me": "author",
  "GET /api/dictionary/lab-items": "author",
  "GET /api/dictionary/unmapped": "author",
  "GET /api/dictionary/mappings": "author",
  "POST /api/dictionary/mappings": "author",
  "POST /api/dictionary/mappings/preview": "author",
  "DELETE /api/dictionary/mappings/:mappingId": "author",
  "GET /api/patients": "author",
  "GET /api/patients/:patientRef": "author",
  "PUT /api/patients/:patientRef": "author",
  "GET /api/patients/:patientRef/results": "author",
  "GET /api/patients/:patientRef/result-items": "author",
  "GET /api/alerts": "author",
  "GET /api/alerts/count": "author",
  "POST /api/alerts/:alertId/acknowledge": "author",
  "GET /api/alerts/stream": "author",
  "GET /api/unmatched": "author",
  "GET /api/unmatched/summary": "author",
  "GET /api/datasources/:name/schema": "author",
  "GET /api/unmatched/:kind/:externalId/check": "author",
  "POST /api/unmatched/:kind/:externalId/claim": "author",
  "POST /api/unmatched/:kind/:externalId/dismiss": "author",
  "GET /api/history/:kind/:externalId": "author",
  "GET /api/history/:kind/:externalId/versions/:n": "author",
  "GET /api/history/:kind/:externalId/diff": "author",
  "GET /api/bulk-jobs": "author",
  "GET /api/bulk-jobs/:jobId/rejected": "author",
  "GET /api/quality/indicators": "author",
  "GET /api/quality/months/:month": "author",
  "GET /api/quality/months/:month/restatement": "author",
  "GET /api/quality/wards": "author",
  "GET /api/quality/months/:month/patients": "author",
  "POST /api/quality/months/:month/export": "author",
  "GET /api/patients/:patientRef/months/:month": "author",
  "GET /api/alerts/timeliness": "author",

  "GET /api/admin/projections": "admin",
  "GET /api/admin/access-log": "tenant-admin",
  "GET /api/admin/access-log/export": "tenant-admin",
  "GET /api/patients/:patientRef/access-log": "tenant-admin",
  "GET /api/patients/:patientRef/copy": "tenant-admin",
  "POST /api/quality/months/:month/close": "tenant-admin",
  "GET /api/alerts/escalation": "tenant-admin",
  "PUT /api/alerts/escalation": "tenant-admin",
  // An administrator, or an integrator (a role outside the ranks: test/http/messageStore.test.ts).
  "GET /api/messages": "tenant-admin",
  "GET /api/messages/:messageId": "tenant-admin",
  "GET /api/admin/ledger": "admin",
  "GET /api/admin/ledger/verify": "admin",
  "GET /api/admin/clients": "tenant-admin",
  "POST /api/admin/clients": "tenant-admin",
  "DELETE /api/admin/clients/:clientId": "tenant-admin",
  "PUT /api/admin/clients/:clientId/code-map": "tenant-admin",
  "POST /api/admin/clients/:clientId/rotate": "tenant-admin",
  "GET /api/admin/authors": "tenant-admin",
  "POST /api/admin/authors": "tenant-admin",
  "DELETE /api/admin/authors/:authorId": "tenant-admin",
  "POST /api/admin/authors/:authorId/rotate": "tenant-admin",

  "POST /open/v1/lab/reports": "client",
  "POST /open/v1/exam/reports": "client",
  "POST /open/v1/hl7": "client",
  "POST /open/v1/lab/reports/bulk": "client",
  "POST /open/v1/exam/reports/bulk": "client",
  "GET /open/v1/bulk/:jobId": "client",
  "GET /open/v1/bulk/:jobId/rejected": "client",
  "GET /open/v1/dict/lab-items": "client",
  "GET /open/v1/reconcile/lab": "client",
  "GET /open/v1/reconcile/exam": "client",
  "GET /open/v1/ping": "client",

  "GET /fhir/r4/metadata": "public",
  "POST /fhir/r4": "client",
  "GET /fhir/r4/Observation": "author",
  "GET /fhir/r4/Patient": "author",
  "GET /fhir/r4/DiagnosticReport/:id": "author",
  "GET /fhir/r4/MeasureReport": "author",
};

/** A concrete path for a route pattern: each `:name` replaced by `values[name]` (or "x"). */
export function concretePath(pattern: string, values: Record<string, string> = {}): string {
  if (pattern.startsWith("^")) return "/md/getting-started.md"; // the one RegExp route
  return pattern.replace(/:([A-Za-z]+)/g, (_all, name: string) => encodeURIComponent(values[name] ?? "x"));
}

/** "GET /api/reports/:id/view" → ["GET", "/api/reports/:id/view"] */
export function methodAndPattern(key: string): [string, string] {
  const space = key.indexOf(" ");
  return [key.slice(0, space), key.slice(space + 1)];
}

/**
 * The least role (contract E.2) each route of a person needs, beyond a credential of the tenant:
 * every "author" route above names one here, and the security tests call each with a token one
 * role short (403 naming the role) and one holding it. The "tenant-admin" routes need `admin`.
 */
export const LEAST_ROLE: Readonly<Record<string, "viewer" | "clinician" | "author">> = {
  "GET /api/me": "viewer",
  "GET /api/dictionary/lab-items": "viewer",
  "GET /api/dictionary/unmapped": "clinician",
  "GET /api/dictionary/mappings": "clinician",
  "POST /api/dictionary/mappings": "author",
  "POST /api/dictionary/mappings/preview": "author",
  "DELETE /api/dictionary/mappings/:mappingId": "author",
  "PUT /api/reports/:id/draft": "author",
  "DELETE /api/reports/:id/draft": "author",
  "POST /api/reports/:id/publish": "author",
  "POST /api/reports/:id/restore": "author",
  "GET /api/reports/:id/versions/:no/source": "author",
  "GET /api/bulk-jobs": "author",
  "GET /api/bulk-jobs/:jobId/rejected": "author",
  "GET /api/patients": "clinician",
  "GET /api/patients/:patientRef": "clinician",
  "PUT /api/patients/:patientRef": "clinician",
  "GET /api/patients/:patientRef/results": "clinician",
  "GET /api/patients/:patientRef/result-items": "clinician",
  "GET /api/alerts": "clinician",
  "GET /api/alerts/count": "clinician",
  "POST /api/alerts/:alertId/acknowledge": "clinician",
  "GET /api/alerts/stream": "clinician",
  "GET /api/unmatched": "clinician",
  "GET /api/unmatched/summary": "clinician",
  "GET /api/datasources/:name/schema": "author",
  "GET /api/unmatched/:kind/:externalId/check": "clinician",
  "POST /api/unmatched/:kind/:externalId/claim": "clinician",
  "POST /api/unmatched/:kind/:externalId/dismiss": "clinician",
  "GET /api/history/:kind/:externalId": "clinician",
  "GET /api/history/:kind/:externalId/versions/:n": "clinician",
  "GET /api/history/:kind/:externalId/diff": "clinician",
  "GET /fhir/r4/Observation": "clinician",
  "GET /fhir/r4/Patient": "clinician",
  "GET /fhir/r4/DiagnosticReport/:id": "clinician",
  "GET /fhir/r4/MeasureReport": "clinician",
  "GET /api/quality/indicators": "clinician",
  "GET /api/quality/months/:month": "clinician",
  "GET /api/quality/months/:month/restatement": "clinician",
  "GET /api/quality/wards": "clinician",
  "GET /api/quality/months/:month/patients": "clinician",
  "POST /api/quality/months/:month/export": "clinician",
  "GET /api/patients/:patientRef/months/:month": "clinician",
  "GET /api/alerts/timeliness": "clinician",
};

/**
 * Stable codes beside the `{ error }` sentence of the `/api` failures a person meets on the staff
 * pages (issue #34 item 6): the sentence stays for API callers, the pages translate the code.
 * Codes are only ever added.
 */
export const API_ERROR_CODES = [
  "credentials-missing",
  "token-invalid",
  "token-expired",
  "session-ended",
  "csrf-missing",
  "tenant-mismatch",
  "role-needed",
  "patient-not-found",
  "patient-outside-wards",
  "id-card-invalid",
  "id-card-taken",
  "report-not-found",
  "report-already-matched",
  "claim-not-found",
  "alert-not-found",
  "draft-saved-again",
  "draft-gone",
  "report-never-published",
  "credential-exists",
  "credential-not-found",
  "credential-revoked",
  "credential-expired",
  "credentials-other-tenant",
  "credentials-other-wards",
  "lab-key-every-ward",
  "credentials-rebuilding",
  "chart-range-invalid",
  "unmapped-range-invalid",
  "mapping-invalid",
  "mapping-exists",
  "mapping-not-found",
  "queue-entry-changed",
  "report-dismissed",
  "id-card-taken-outside-wards",
  "exports-per-address",
  "exports-busy",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

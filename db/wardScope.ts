import { AsyncLocalStorage } from "node:async_hooks";

/*
 * Ward scope (contract E.2): a caller with wards sees only the patients of those wards, and the
 * rows that belong to them. The scope is set once, where the request's principal is known, and
 * every read of the read tables in that request carries it (readAsTenant, db/tenantScope.ts), so
 * a query cannot forget it: row-level security on each patient table does the filtering
 * (projections/runtime/generations.ts). Outside a scoped request (workers, the open API's senders,
 * callers without wards) nothing is filtered by ward.
 */

/** The wards a caller may see; null: every ward of the tenant. */
export type Wards = readonly string[] | null;

const scope = new AsyncLocalStorage<Wards>();

/** Runs `work` with reads scoped to these wards (null: every ward). */
export function withWardScope<T>(wards: Wards, work: () => T): T {
  return scope.run(wards, work);
}

/** The wards of the current request, or null when it is not scoped. */
export function currentWards(): Wards {
  return scope.getStore() ?? null;
}

/** A ward as patients carry it: 1 to 64 characters, no control characters. */
export const WARD_PATTERN = /^[^\p{Cc}]{1,64}$/u;

/**
 * The `app.wards` setting of a scoped transaction as a literal of a simple query: a JSON array of
 * the wards, '' for no scope. The quotes of a ward are doubled (standard_conforming_strings is on
 * from PostgreSQL 9.1); a ward with a control character never gets here (WARD_PATTERN).
 */
export function wardsSettingLiteral(wards: Wards): string {
  if (wards === null) return "''";
  for (const ward of wards)
    if (!WARD_PATTERN.test(ward)) throw new Error("a ward has 1 to 64 characters and no control characters");
  return `'${JSON.stringify(wards).replace(/'/g, "''")}'`;
}

import type { Principal } from "../http/requestState.ts";
import { HttpError } from "../http/httpError.ts";

/*
 * What an administrator may change among the credentials (contract E.2: role admin is
 * "everything of the tenant, including /api/admin/* for it"). The operator (ADMIN_TOKEN) may
 * change any tenant's. A tenant's administrator changes only that tenant's, and one whose
 * wards are limited only tokens limited to (some of) the same wards: otherwise an administrator
 * of ward 3A could make themselves a token that sees every ward. A laboratory's key serves every
 * ward, so its changes need an administrator of every ward.
 */

/** Whether `caller` administers credentials of `tenant` at all (another tenant's are answered 404, as if absent). */
export function administersTenant(caller: Principal, tenant: string): boolean {
  return caller.tenant === null || caller.tenant === tenant;
}

/** Refuses a new credential for another tenant than the caller's own. */
export function refuseOtherTenant(caller: Principal, tenant: string): void {
  if (!administersTenant(caller, tenant)) {
    throw new HttpError(
      403,
      `An administrator of tenant ${caller.tenant} makes credentials of that tenant only; send tenant: "${caller.tenant}".`,
      {},
      "credentials-other-tenant",
    );
  }
}

/** Refuses an author token (new, or to revoke or rotate) that would see wards beyond the caller's. */
export function refuseWiderWards(caller: Principal, wards: readonly string[] | null | undefined): void {
  if (caller.wards === null) return;
  const allowed = new Set(caller.wards);
  if (wards && wards.length > 0 && wards.every((ward) => allowed.has(ward))) return;
  throw new HttpError(
    403,
    `An administrator of wards ${caller.wards.join(", ")} manages tokens of those wards only; send wards ` +
      `within [${caller.wards.join(", ")}], or ask an administrator of every ward.`,
    {},
    "credentials-other-wards",
  );
}

/** Refuses a change to a laboratory's key by an administrator limited to some wards. */
export function refuseWardLimitedForClients(caller: Principal): void {
  if (caller.wards !== null) {
    throw new HttpError(
      403,
      `A laboratory's key serves every ward, and this administrator's are limited to ${caller.wards.join(", ")}; ask an administrator of every ward.`,
      {},
      "lab-key-every-ward",
    );
  }
}

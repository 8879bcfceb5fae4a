import type pg from "pg";
import { withTransaction, type Db } from "./pool.ts";
import { currentWards, wardsSettingLiteral } from "./wardScope.ts";

export const TENANT_READER_ROLE = "dh_tenant_reader";

export const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A connection that can only read the read.* views, and only the rows of one tenant. */
export type TenantReader = Pick<pg.ClientBase, "query">;

/**
 * The one door to the read tables: a transaction as the tenant-reader role with the tenant set,
 * and the wards of the request's caller when it has some (db/wardScope.ts). Row-level security
 * does the filtering, so no query has to remember a `where tenant = …` or a ward.
 */
export async function readAsTenant<T>(db: Db, tenant: string, work: (reader: TenantReader) => Promise<T>): Promise<T> {
  if (!TENANT_PATTERN.test(tenant)) throw new Error(`invalid tenant id ${JSON.stringify(tenant)}`);
  // Opened with its settings in one round trip (a simple query takes no parameters: the tenant id,
  // letters, digits, _ and - by the pattern above, is written as a literal).
  const begin =
    `begin; select set_config('app.tenant', '${tenant}', true), set_config('app.wards', ` +
    `${wardsSettingLiteral(currentWards())}, true), set_config('role', '${TENANT_READER_ROLE}', true)`;
  return withTransaction(db, work, begin);
}

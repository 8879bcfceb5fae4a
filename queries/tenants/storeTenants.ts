import { SHARED_TENANT } from "../../commands/dictionary/events.ts";
import type { Db } from "../../db/pool.ts";

/**
 * Whether the store holds events of a tenant other than `tenant`: data, credentials, reports,
 * anything (every credential and every report is an event of its tenant); the shared reference
 * data (SHARED_TENANT, the dictionary) is no one's. Two probes of the events' (tenant, …) index,
 * one each side of `tenant`: a look-up, not a scan, however large the store.
 */
export async function holdsAnotherTenant(db: Db, tenant: string): Promise<boolean> {
  const { rows } = await db.query(
    `select exists (select 1 from events where tenant < $1 and tenant <> $2) or exists (select 1 from events where tenant > $1 and tenant <> $2) as other`,
    [tenant, SHARED_TENANT],
  );
  return rows[0].other === true;
}

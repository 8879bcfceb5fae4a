import { secretDigest } from "../../commands/credentials/events.ts";
import type { Db } from "../../db/pool.ts";

/*
 * Credential look-ups are the one read that precedes knowing the tenant (the key decides it), so
 * they run as the service itself rather than through the tenant-scoped reader.
 */

export interface Client {
  clientId: string;
  name: string;
  tenant: string;
  codeMap: Record<string, string>;
}

export interface Author {
  authorId: string;
  name: string;
  tenant: string;
}

export async function clientByKey(db: Db, key: string): Promise<Client | null> {
  const { rows } = await db.query(
    "select client_id, name, tenant, code_map from read.clients where key_digest = $1 and revoked_at is null",
    [secretDigest(key)],
  );
  const row = rows[0];
  return row ? { clientId: row.client_id, name: row.name, tenant: row.tenant, codeMap: row.code_map } : null;
}

export async function clientById(db: Db, clientId: string): Promise<(Client & { revoked: boolean }) | null> {
  const { rows } = await db.query("select client_id, name, tenant, code_map, revoked_at from read.clients where client_id = $1", [clientId]);
  const row = rows[0];
  return row ? { clientId: row.client_id, name: row.name, tenant: row.tenant, codeMap: row.code_map, revoked: row.revoked_at !== null } : null;
}

/** The tenant's clients of this name whose keys still work (names are not unique: the caller decides what two mean). */
export async function activeClientsNamed(db: Db, tenant: string, name: string): Promise<Client[]> {
  const { rows } = await db.query("select client_id, name, tenant, code_map from read.clients where tenant = $1 and name = $2 and revoked_at is null order by created_at", [tenant, name]);
  return rows.map((row) => ({ clientId: row.client_id, name: row.name, tenant: row.tenant, codeMap: row.code_map }));
}

export async function authorByToken(db: Db, token: string): Promise<Author | null> {
  const { rows } = await db.query("select author_id, name, tenant from read.authors where token_digest = $1", [secretDigest(token)]);
  const row = rows[0];
  return row ? { authorId: row.author_id, name: row.name, tenant: row.tenant } : null;
}

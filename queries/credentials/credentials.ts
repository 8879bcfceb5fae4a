import { z } from "zod";
import type { Db } from "../../db/pool.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { storedMomentText } from "../../db/localDateTime.ts";

/*
 * Credential look-ups are the one read that precedes knowing the tenant (the key decides it), so
 * they run as the service itself rather than through the tenant-scoped reader. They are never
 * cached: a revocation or a rotation's end holds from the next call on, on every process.
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
  /** What the author's tokens may do (contract E.2). */
  roles: string[];
  /** The wards whose patients they see; null: every ward. */
  wards: string[] | null;
}

interface ClientRow {
  client_id: string;
  name: string;
  tenant: string;
  code_map: Record<string, string>;
}

const clientOfRow = (row: ClientRow): Client => ({
  clientId: row.client_id,
  name: row.name,
  tenant: row.tenant,
  codeMap: row.code_map,
});

interface AuthorRow {
  author_id: string;
  name: string;
  tenant: string;
  roles: string[];
  wards: string[] | null;
}

const authorOfRow = (row: AuthorRow): Author => ({
  authorId: row.author_id,
  name: row.name,
  tenant: row.tenant,
  roles: row.roles,
  wards: row.wards,
});

/** What a presented secret amounts to now. */
export type CredentialLookup<T> =
  | { status: "valid"; credential: T }
  /** The credential's expiresInDays ran out. */
  | { status: "expired"; at: Date }
  /** The secret was replaced by a rotation, and its overlap ended. */
  | { status: "replaced"; at: Date }
  /** No credential has this secret, or its credential was revoked: the caller learns nothing more. */
  | { status: "unknown" };

interface Standing {
  expires_at: Date | null;
  revoked_at: Date | null;
  valid_until: Date | null;
}

function lookupOf<R extends Standing, T>(
  row: R | undefined,
  credential: (row: R) => T,
  now: Date,
): CredentialLookup<T> {
  if (!row || row.revoked_at !== null) return { status: "unknown" };
  if (row.expires_at !== null && row.expires_at <= now) return { status: "expired", at: row.expires_at };
  if (row.valid_until !== null && row.valid_until <= now) return { status: "replaced", at: row.valid_until };
  return { status: "valid", credential: credential(row) };
}

/**
 * Whether a read failed for a table or column the credentials read model's version 1 lacks. At the
 * first start after the upgrade the runtime rebuilds it by replay while version 1 keeps serving
 * (projections/runtime/rebuild.ts), for seconds or, over a large store, minutes.
 */
export function readsVersion1(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "42P01" || code === "42703"; // undefined_table, undefined_column
}

/**
 * Runs `current`, or `version1` while version 1 still serves (one digest column per credential, no
 * expiry, no author revocation). Events appended meanwhile reach neither until the rebuild is
 * live, and their commands wait for that, so a look-up of version 1 answers what it would have.
 */
async function withVersion1Fallback<R>(
  db: Db,
  current: string,
  version1: string,
  digests: string[],
): Promise<R | undefined> {
  try {
    return (await db.query(current, [digests])).rows[0];
  } catch (error) {
    if (!readsVersion1(error)) throw error;
    return (await db.query(version1, [digests])).rows[0];
  }
}

/** The client one of `digests` (the forms a presented key may be stored as) belongs to. */
export async function clientBySecret(db: Db, digests: string[], now = new Date()): Promise<CredentialLookup<Client>> {
  const row = await withVersion1Fallback<Standing & ClientRow>(
    db,
    `select c.client_id, c.name, c.tenant, c.code_map, c.expires_at, c.revoked_at, s.valid_until
     from read.credential_secrets s join read.clients c on c.client_id = s.credential_id
     where s.digest = any($1) and s.kind = 'client'`,
    `select client_id, name, tenant, code_map, null::timestamptz as expires_at, revoked_at, null::timestamptz as valid_until
     from read.clients where key_digest = any($1)`,
    digests,
  );
  return lookupOf(row, clientOfRow, now);
}

/** The author one of `digests` (the forms a presented token may be stored as) belongs to. */
export async function authorBySecret(db: Db, digests: string[], now = new Date()): Promise<CredentialLookup<Author>> {
  const row = await withVersion1Fallback<Standing & AuthorRow>(
    db,
    `select a.author_id, a.name, a.tenant, a.roles, a.wards, a.expires_at, a.revoked_at, s.valid_until
     from read.credential_secrets s join read.authors a on a.author_id = s.credential_id
     where s.digest = any($1) and s.kind = 'author'`,
    `select author_id, name, tenant, array['author'] as roles, null::text[] as wards, null::timestamptz as expires_at,
       null::timestamptz as revoked_at, null::timestamptz as valid_until
     from read.authors where token_digest = any($1)`,
    digests,
  );
  return lookupOf(row, authorOfRow, now);
}

export async function clientById(db: Db, clientId: string): Promise<(Client & { revoked: boolean }) | null> {
  const { rows } = await db.query(
    "select client_id, name, tenant, code_map, revoked_at from read.clients where client_id = $1",
    [clientId],
  );
  const row = rows[0];
  return row ? { ...clientOfRow(row), revoked: row.revoked_at !== null } : null;
}

export async function authorById(db: Db, authorId: string): Promise<(Author & { revoked: boolean }) | null> {
  const { rows } = await db.query(
    "select author_id, name, tenant, roles, wards, revoked_at from read.authors where author_id = $1",
    [authorId],
  );
  const row = rows[0];
  return row ? { ...authorOfRow(row), revoked: row.revoked_at !== null } : null;
}

/** The tenant's clients of this name whose keys still work (names are not unique: the caller decides what two mean). */
export async function activeClientsNamed(db: Db, tenant: string, name: string): Promise<Client[]> {
  const { rows } = await db.query(
    "select client_id, name, tenant, code_map from read.clients where tenant = $1 and name = $2 and revoked_at " +
      "is null and (expires_at is null or expires_at > now()) order by created_at",
    [tenant, name],
  );
  return rows.map(clientOfRow);
}

const when = (description: string) => z.iso.datetime().nullable().meta({ description });
const credentialListFields = {
  name: z.string(),
  tenant: z.string(),
  createdAt: z.iso.datetime().meta({ description: "When the credential was issued (ISO 8601, UTC)" }),
  expiresAt: when("When it stops working (expiresInDays), or null: it does not expire"),
  lastUsedAt: when(
    "The last call that presented it while it worked, shown within a few seconds; null: none since lastUsedAt was first recorded",
  ),
  revokedAt: when("When it was revoked, or null"),
  formerValidUntil: when(
    "After a rotation, until when the former secret still works (the overlap); null when no former secret works now",
  ),
};

/** An entry of `GET /api/admin/clients` (contract E.3): never the key or its digest. */
export const clientListEntrySchema = z.object({ clientId: z.string(), ...credentialListFields });
/** An entry of `GET /api/admin/authors` (contract E.3): never the token or its digest. */
export const authorListEntrySchema = z.object({
  authorId: z.string(),
  ...credentialListFields,
  roles: z.array(z.string()).meta({ description: "What the author's tokens may do (contract E.2)" }),
  wards: z.array(z.string()).nullable().meta({ description: "The wards whose patients they see; null: every ward" }),
});

export type ClientListEntry = z.infer<typeof clientListEntrySchema>;
export type AuthorListEntry = z.infer<typeof authorListEntrySchema>;

interface ListedRow {
  id: string;
  name: string;
  tenant: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  former_valid_until: Date | null;
}

const listed = (row: ListedRow) => ({
  name: row.name,
  tenant: row.tenant,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at?.toISOString() ?? null,
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
  revokedAt: row.revoked_at?.toISOString() ?? null,
  // Nothing works of a credential revoked or expired, its former secrets neither.
  formerValidUntil:
    row.revoked_at || (row.expires_at && row.expires_at <= new Date())
      ? null
      : (row.former_valid_until?.toISOString() ?? null),
});

/** The latest end of a former secret that still works: a rotation's overlap, while it lasts (contract E.3). */
const FORMER_VALID_UNTIL = (table: string, id: string) =>
  `(select max(s.valid_until) from read.credential_secrets s
     where s.credential_id = ${table}.${id} and s.valid_until > now()) as former_valid_until`;

/** Where a page of credentials ends: when its last was created (as PostgreSQL writes it), and its id. */
export const credentialListKey = z.tuple([storedMomentText, z.string().max(200)]);
export type CredentialListKey = z.infer<typeof credentialListKey>;

/** A page of credentials, oldest first, after `after`; every one when no limit is given (the command line's list). */
export interface CredentialPage {
  limit?: number | null;
  after?: CredentialListKey | null;
}

const KEYSET = (
  table: string,
  id: string,
) => `where $1::timestamptz is null or (${table}.created_at, ${table}.${id}) > ($1::timestamptz, $2::text)
     order by ${table}.created_at, ${table}.${id} limit $3::int`;
const keyOf = (row: ListedRow & { created_key: string }): CredentialListKey => [row.created_key, row.id];

/** The reader's tenant's clients, oldest first, revoked ones included. */
export async function listClients(
  reader: TenantReader,
  { limit = null, after = null }: CredentialPage = {},
): Promise<Array<ClientListEntry & { key: CredentialListKey }>> {
  const { rows } = await reader.query<ListedRow & { created_key: string }>(
    `select c.client_id as id, c.name, c.tenant, c.created_at, c.created_at::text as created_key, c.expires_at, u.last_used_at, c.revoked_at,
       ${FORMER_VALID_UNTIL("c", "client_id")}
     from read.clients c left join read.credential_uses u on u.credential_id = c.client_id
     ${KEYSET("c", "client_id")}`,
    [after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return rows.map((row) => ({ clientId: row.id, ...listed(row), key: keyOf(row) }));
}

/** The reader's tenant's authors, oldest first, revoked ones included. */
export async function listAuthors(
  reader: TenantReader,
  { limit = null, after = null }: CredentialPage = {},
): Promise<Array<AuthorListEntry & { key: CredentialListKey }>> {
  const { rows } = await reader.query<ListedRow & { created_key: string; roles: string[]; wards: string[] | null }>(
    `select a.author_id as id, a.name, a.tenant, a.roles, a.wards, a.created_at, a.created_at::text as created_key, a.expires_at, u.last_used_at, a.revoked_at,
       ${FORMER_VALID_UNTIL("a", "author_id")}
     from read.authors a left join read.credential_uses u on u.credential_id = a.author_id
     ${KEYSET("a", "author_id")}`,
    [after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return rows.map((row) => ({ authorId: row.id, ...listed(row), roles: row.roles, wards: row.wards, key: keyOf(row) }));
}

/** What a secret amounts to now, without the credential (a long-lived answer re-checks only this). */
export type SecretStanding = CredentialLookup<unknown>["status"];

/**
 * The standing of each of `digests` that a credential holds, in one statement for every secret
 * this process's long-lived answers hold (src/credentials/credentialWatch.ts). A digest absent
 * from the answer belongs to no credential: unknown, as a look-up would find it.
 */
export async function standingOfSecrets(
  db: Db,
  digests: readonly string[],
  now = new Date(),
): Promise<Map<string, SecretStanding>> {
  const { rows } = await db.query<Standing & { digest: string }>(
    `select s.digest, coalesce(c.expires_at, a.expires_at) as expires_at, coalesce(c.revoked_at, a.revoked_at) as revoked_at, s.valid_until
     from read.credential_secrets s
     left join read.clients c on s.kind = 'client' and c.client_id = s.credential_id
     left join read.authors a on s.kind = 'author' and a.author_id = s.credential_id
     where s.digest = any($1) and (c.client_id is not null or a.author_id is not null)`,
    [digests],
  );
  return new Map(rows.map((row) => [row.digest, lookupOf(row, () => null, now).status]));
}

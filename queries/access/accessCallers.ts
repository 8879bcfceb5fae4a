import type { Db } from "../../db/pool.ts";

/** An author as an access record names it. */
export interface RecordedAuthor {
  authorId: string;
  name: string;
  tenant: string;
  roles: string[];
}

/**
 * The authors holding tokens of these digests (as the credentials read model keeps
 * them), by digest: the access log resolves, a batch at a time and off the answer's path, who
 * called when the answer knew only the token. Like every credential look-up, this one runs as the
 * service (the token decides the tenant).
 */
export async function authorsByTokenDigest(db: Db, digests: readonly string[]): Promise<Map<string, RecordedAuthor>> {
  if (digests.length === 0) return new Map();
  const { rows } = await db.query<{ digest: string; author_id: string; name: string; tenant: string; roles: string[] }>(
    `select s.digest, a.author_id, a.name, a.tenant, a.roles
     from read.credential_secrets s join read.authors a on a.author_id = s.credential_id
     where s.kind = 'author' and s.digest = any($1::text[])`,
    [digests],
  );
  return new Map(
    rows.map((row) => [row.digest, { authorId: row.author_id, name: row.name, tenant: row.tenant, roles: row.roles }]),
  );
}

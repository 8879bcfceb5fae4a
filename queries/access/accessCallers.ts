import type { Db } from "../../db/pool.ts";

/** An author as an access record names it. */
export interface RecordedAuthor {
  authorId: string;
  name: string;
  tenant: string;
}

/**
 * The authors holding tokens of these digests (`secretDigest`, as the credentials read model keeps
 * them), by digest: the access log resolves, a batch at a time and off the answer's path, who
 * called when the answer knew only the token. Like every credential look-up, this one runs as the
 * service (the token decides the tenant).
 */
export async function authorsByTokenDigest(db: Db, digests: readonly string[]): Promise<Map<string, RecordedAuthor>> {
  if (digests.length === 0) return new Map();
  const { rows } = await db.query<{ token_digest: string; author_id: string; name: string; tenant: string }>(
    "select token_digest, author_id, name, tenant from read.authors where token_digest = any($1::text[])",
    [digests],
  );
  return new Map(rows.map((row) => [row.token_digest, { authorId: row.author_id, name: row.name, tenant: row.tenant }]));
}

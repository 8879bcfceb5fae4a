import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import type { Queryable } from "../../db/eventStore.ts";

const BLOCK_BYTES = 64;

/**
 * Writes the key of the research pseudonyms (db/researchViews.ts) as its two RFC 2104 pads, so
 * that the research views compute HMAC-SHA256 with sha256() alone. The key is derived from the
 * identifier hash key for this purpose only: every process arrives at the same one, a copy of the
 * research source reveals nothing of it, and a pseudonym says nothing in any other use.
 * Idempotent; called at every start.
 */
export async function storeResearchKey(db: Queryable, hasher: IdentifierHasher): Promise<void> {
  const key = Buffer.alloc(BLOCK_BYTES);
  Buffer.from(hasher.digest("research pseudonym key", "v1"), "hex").copy(key);
  const pad = (byte: number) => Buffer.from(key.map((b) => b ^ byte));
  await db.query(
    `insert into research_pseudonym_key (inner_pad, outer_pad) values ($1, $2)
     on conflict (one) do update set inner_pad = excluded.inner_pad, outer_pad = excluded.outer_pad
     where research_pseudonym_key.inner_pad <> excluded.inner_pad`,
    [pad(0x36), pad(0x5c)],
  );
}

/** The pseudonym the research views give `patientRef` of `tenant` (for tests and the docs' example). */
export function researchPseudonymKey(hasher: IdentifierHasher): Buffer {
  return Buffer.from(hasher.digest("research pseudonym key", "v1"), "hex");
}

import { createHmac } from "node:crypto";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import type { Queryable } from "../../db/eventStore.ts";

const BLOCK_BYTES = 64;

/** The key of the queue's search by id card, derived from the identifier hash key for this use only. */
function searchKey(hasher: IdentifierHasher): Buffer {
  return Buffer.from(hasher.digest("id-card search key", "v1"), "hex");
}

/**
 * Writes the key of the unmatched queue's search by id card (db/migrations/0020) as its two RFC
 * 2104 pads, so that the database computes the same HMAC-SHA256 with sha256() alone and a search
 * sends it the hash of the number typed, never the number. Idempotent; called at every start.
 */
export async function storeIdCardSearchKey(db: Queryable, hasher: IdentifierHasher): Promise<void> {
  const key = Buffer.alloc(BLOCK_BYTES);
  searchKey(hasher).copy(key);
  const pad = (byte: number) => Buffer.from(key.map((b) => b ^ byte));
  await db.query(
    `insert into id_card_search_key (inner_pad, outer_pad) values ($1, $2)
     on conflict (one) do update set inner_pad = excluded.inner_pad, outer_pad = excluded.outer_pad
     where id_card_search_key.inner_pad <> excluded.inner_pad`,
    [pad(0x36), pad(0x5c)],
  );
}

/** The keyed hash of an id card (normalised) as `id_card_search_digest` computes it in the database. */
export function idCardSearchDigest(hasher: IdentifierHasher, idCard: string): string {
  return createHmac("sha256", searchKey(hasher)).update(idCard.trim().toUpperCase(), "utf8").digest("hex");
}

import { storedDigestsOf } from "../../commands/credentials/secrets.ts";
import type { Db } from "../../db/pool.ts";
import {
  authorBySecret,
  clientBySecret,
  type Author,
  type Client,
  type CredentialLookup,
} from "../../queries/credentials/credentials.ts";
import { loadIdentifierHasher } from "../../src/secrets/identifierKey.ts";

/** The client whose key this is, while it works (as the open API would find it), else null. */
export async function clientByKey(db: Db, key: string): Promise<Client | null> {
  return working(await clientBySecret(db, storedDigestsOf(await loadIdentifierHasher(db, undefined), key)));
}

/** The author whose token this is, while it works (as /api would find them), else null. */
export async function authorByToken(db: Db, token: string): Promise<Author | null> {
  return working(await authorBySecret(db, storedDigestsOf(await loadIdentifierHasher(db, undefined), token)));
}

const working = <T>(found: CredentialLookup<T>): T | null => (found.status === "valid" ? found.credential : null);

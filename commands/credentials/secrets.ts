import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { IdentifierHasher } from "../kit/identifierHasher.ts";

/*
 * Keys and tokens are 192 random bits, shown once and stored only as a digest. For secrets this
 * long a slow password hash adds nothing but latency on every request; what a digest must not be
 * is one anyone can compute: since contract E.3 it is an HMAC under the deployment's key, so a
 * copy of the events alone (a backup, a replica) cannot be used to test guessed or leaked secrets.
 */

/** The deployment's keyed hasher, as the wiring passes it (src/secrets/identifierKey.ts); commands never load it. */
export type SecretHasher = Pick<IdentifierHasher, "digest">;

/** Marks a keyed digest. A digest without it is the plain SHA-256 hex of a secret issued before E.3, still accepted. */
export const KEYED_DIGEST_PREFIX = "hmac:";

/** The digest a new secret is stored as. */
export function keyedSecretDigest(hasher: SecretHasher, secret: string): string {
  return `${KEYED_DIGEST_PREFIX}${hasher.digest("credential", secret)}`;
}

/** The digest of secrets issued before E.3 (events keep it for good). */
export function plainSecretDigest(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Every digest a presented secret may be stored as: keyed (new) and plain (issued before). */
export function storedDigestsOf(hasher: SecretHasher, secret: string): string[] {
  return [keyedSecretDigest(hasher, secret), plainSecretDigest(secret)];
}

/** A new key (`dhk_`) or token (`dha_`) and the digest stored in its place. */
export function newSecret(prefix: "dhk" | "dha", hasher: SecretHasher): { secret: string; digest: string } {
  const secret = `${prefix}_${randomBytes(24).toString("base64url")}`;
  return { secret, digest: keyedSecretDigest(hasher, secret) };
}

/** A new credential: its id, and its first secret. */
export function newCredential(
  prefix: "dhk" | "dha",
  hasher: SecretHasher,
): { id: string; secret: string; digest: string } {
  return { id: randomUUID(), ...newSecret(prefix, hasher) };
}

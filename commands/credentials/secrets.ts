import { createHash, randomBytes, randomUUID } from "node:crypto";

/**
 * A new credential: its id, its key or token, and the digest stored in its place. Keys and tokens
 * are 192 random bits, shown once and stored only as a SHA-256 digest. For secrets this long a
 * slow password hash adds nothing but latency on every request.
 */
export function newCredential(prefix: "dhk" | "dha"): { id: string; secret: string; digest: string } {
  const secret = `${prefix}_${randomBytes(24).toString("base64url")}`;
  return { id: randomUUID(), secret, digest: secretDigest(secret) };
}

export function secretDigest(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

import { createHash, randomBytes, randomUUID } from "node:crypto";

/**
 * Keys and tokens are 192 random bits, shown once and stored only as a SHA-256 digest. For secrets
 * this long a slow password hash adds nothing but latency on every request.
 */
export function newSecret(prefix: "dhk" | "dha"): string {
  return `${prefix}_${randomBytes(24).toString("base64url")}`;
}

export function secretDigest(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function newId(): string {
  return randomUUID();
}

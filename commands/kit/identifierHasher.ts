import { createHmac } from "node:crypto";

/**
 * Keyed hashes of identifiers (HMAC-SHA256). A plain hash of a national id card number is
 * inverted in seconds: the numbers are few (region, birth date, sequence, check digit). Each
 * purpose hashes with a key of its own, derived from the deployment's key, so that a digest made
 * for one use says nothing in another. The key comes from the wiring (src/secrets/identifierKey.ts).
 */
export class IdentifierHasher {
  readonly #key: Buffer;
  readonly #keys = new Map<string, Buffer>();

  constructor(key: Buffer) {
    if (key.length < 32) throw new Error("an identifier hash key has at least 32 bytes");
    this.#key = key;
  }

  /** The hex HMAC-SHA256 of `value` under this purpose's key. */
  digest(purpose: string, value: string): string {
    return createHmac("sha256", this.#keyFor(purpose)).update(value, "utf8").digest("hex");
  }

  /** Names this key without revealing it: the same key always gives the same fingerprint. */
  fingerprint(): string {
    return this.digest("fingerprint", "dialysis-hub identifier hash key").slice(0, 16);
  }

  #keyFor(purpose: string): Buffer {
    let key = this.#keys.get(purpose);
    if (!key) {
      key = createHmac("sha256", this.#key).update(`dialysis-hub ${purpose}`).digest();
      this.#keys.set(purpose, key);
    }
    return key;
  }
}

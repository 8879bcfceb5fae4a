import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import type { PendingSignIn } from "./oidcRelyingParty.ts";

/*
 * A sign-in under way lives in the browser that started it, not in the database (issue #51): the
 * pre-sign-in cookie holds its state, nonce and PKCE verifier, sealed (AES-256-GCM) under a key
 * only the service's processes share. So the callback finds them only in that browser, and an
 * attacker's callback link opened in someone else's browser signs no one in (login CSRF); and
 * `/staff/login` writes nothing, so a flood of it grows no table.
 */

export const SIGN_IN_COOKIE = "dh_sign_in";
/** Only the callback needs it: no other request of the service carries it. */
export const SIGN_IN_COOKIE_PATH = "/staff/callback";
/** A sign-in lives this long: a person at the provider's page for longer starts again. */
export const SIGN_IN_MINUTES = 15;

/** A sign-in sent to the provider, as its browser keeps it until the callback. */
export interface StartedSignIn extends PendingSignIn {
  /** The tenant `/staff/login` named: used only where nothing safer names one (signInTenant.ts). */
  asked: string;
}

/** Also bound into the seal: a cookie sealed for another purpose (or version) does not open as this one. */
const PURPOSE = Buffer.from("dialysis-hub staff sign-in 1");
const sealed = z.tuple([z.string(), z.string(), z.string(), z.string(), z.number()]);

export class SignInSeal {
  readonly #key: Buffer;

  /** The key is the deployment's identifier key's, for this purpose: every process has it, and it survives a restart. */
  constructor(hasher: IdentifierHasher) {
    this.#key = Buffer.from(hasher.digest("staff sign-in cookie key", "AES-256-GCM"), "hex");
  }

  /** The pre-sign-in cookie's value for a sign-in starting now. */
  seal(signIn: StartedSignIn, now = Date.now()): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv).setAAD(PURPOSE);
    const plain = JSON.stringify([signIn.state, signIn.codeVerifier, signIn.nonce, signIn.asked, now] satisfies z.infer<
      typeof sealed
    >);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /**
   * The sign-in this browser started, when the callback's `state` is its own: `not-this-browser`
   * when the browser holds none (another browser, a cookie gone or forged) or holds another
   * (started again since); `stale` when it is older than SIGN_IN_MINUTES.
   */
  open(value: string | undefined, state: string, now = Date.now()): StartedSignIn | "not-this-browser" | "stale" {
    const opened = value ? this.#unseal(value) : null;
    if (!opened) return "not-this-browser";
    const [sealedState, codeVerifier, nonce, asked, startedAt] = opened;
    if (sealedState !== state) return "not-this-browser";
    if (now - startedAt > SIGN_IN_MINUTES * 60_000 || startedAt > now + 60_000) return "stale";
    return { state, codeVerifier, nonce, asked };
  }

  #unseal(value: string): z.infer<typeof sealed> | null {
    try {
      const bytes = Buffer.from(value, "base64url");
      if (bytes.length < 12 + 16 + 2) return null;
      const decipher = createDecipheriv("aes-256-gcm", this.#key, bytes.subarray(0, 12)).setAAD(PURPOSE);
      decipher.setAuthTag(bytes.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
      const parsed = sealed.safeParse(JSON.parse(plain));
      return parsed.success ? parsed.data : null;
    } catch {
      // Not sealed by this deployment, or altered: as if the browser held no sign-in.
      return null;
    }
  }
}

import type { Middleware } from "koa";
import { storedDigestsOf, type SecretHasher } from "../../commands/credentials/secrets.ts";
import type { Db } from "../../db/pool.ts";
import {
  authorBySecret,
  clientBySecret,
  type Author,
  type Client,
  type CredentialLookup,
} from "../../queries/credentials/credentials.ts";
import type { CredentialUses } from "./credentialUses.ts";

/**
 * How this process checks a presented client key or author token: the deployment's hasher gives
 * the digests it may be stored as, the read model says what it amounts to now, and an accepted
 * one is noted as used. One look-up per call, never cached (queries/credentials/credentials.ts).
 */
export class CredentialCheck {
  constructor(
    private readonly db: Db,
    private readonly hasher: SecretHasher,
    private readonly uses: CredentialUses,
  ) {}

  /** The digests a presented secret may be stored as (keyed, and the plain form of before E.3). */
  digestsOf(secret: string): string[] {
    return storedDigestsOf(this.hasher, secret);
  }

  async client(key: string): Promise<CredentialLookup<Client>> {
    const found = await clientBySecret(this.db, storedDigestsOf(this.hasher, key));
    if (found.status === "valid") this.uses.used(found.credential.clientId, found.credential.tenant);
    return found;
  }

  async author(token: string): Promise<CredentialLookup<Author>> {
    const found = await authorBySecret(this.db, storedDigestsOf(this.hasher, token));
    if (found.status === "valid") this.uses.used(found.credential.authorId, found.credential.tenant);
    return found;
  }
}

/**
 * The sentence for a secret that once worked: when it stopped and how to get one that works. A
 * secret never known, or of a revoked credential, gets the interface's own "unknown" sentence.
 */
export function endedCredential(
  lookup: { status: "expired" | "replaced"; at: Date },
  what: "client key" | "author token",
): string {
  const at = lookup.at.toISOString();
  return lookup.status === "expired"
    ? `This ${what} expired at ${at}; ask the administrator for a new one.`
    : `This ${what} was replaced by a new one and expired at ${at}, when the overlap after the rotation ended; ` +
        "use the new one, or ask the administrator for one.";
}

/** Hands the process's credential check to the authentication middleware of the routes below. */
export function offerCredentialCheck(check: CredentialCheck): Middleware {
  return (ctx, next) => {
    ctx.state.credentials = check;
    return next();
  };
}

/** The credential check of this request; a route without one is a wiring fault, not a caller's. */
export function credentialCheckOf(ctx: { state: { credentials?: CredentialCheck } }): CredentialCheck {
  if (!ctx.state.credentials)
    throw new Error("this route checks credentials but its interface offers no credential check (httpApp.ts)");
  return ctx.state.credentials;
}

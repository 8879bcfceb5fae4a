import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import type { ApiErrorCode } from "../../commands/kit/errorCodes.ts";
import type { Db } from "../../db/pool.ts";
import { standingOfSecrets, type SecretStanding } from "../../queries/credentials/credentials.ts";
import type { SessionStanding, SessionStore } from "../staffSessions/sessionStore.ts";

/*
 * Access ends everywhere at once (issue #51): an answer that stays open — the alert stream, an
 * export being written, an MLLP connection — was let in by a credential checked once, when it
 * began. Every other call checks its credential again; a long-lived answer asks this watch to
 * tell it when its credential stops working (revoked, expired, replaced by a rotation whose
 * overlap ended, signed out, or the session's idle or absolute time up), and ends then.
 *
 * One periodic re-check of the credentials' state in the database, whichever process revoked
 * them (several API processes share one database): each round is one statement for every
 * secret and one for every session that this process's open answers hold, however many answers
 * share one, and it runs only while some answer is watched. A round every WATCH_ROUND_MS keeps
 * revocation → end under a second with the round's own time (docs/operations.md, Credential
 * lifecycle).
 */

/** How often the held credentials are checked again: an end is seen within this, plus one statement. */
export const WATCH_ROUND_MS = 250;

/** A credential an answer holds: the digests of a presented secret (author token or client key), or a staff session by its stored id. */
export type HeldCredential = { kind: "secret"; digests: readonly string[] } | { kind: "session"; id: string };

/** Why a credential stopped working: said to the holder (the alert stream's `ended` event), and in the log. */
export type CredentialEnd = "revoked" | "expired" | "replaced" | "signed-out" | "session-expired";

/** A sentence for each end, for the holder of the answer that ends (English; the staff pages show their own words by the code). */
export const CREDENTIAL_END_SENTENCES: Record<CredentialEnd, string> = {
  revoked: "The credential was revoked; ask the administrator for a new one.",
  expired: "The credential expired; ask the administrator for a new one.",
  replaced: "The credential was replaced by a new one and the overlap after the rotation ended; use the new one.",
  "signed-out": "The session ended: the person signed out. Sign in again at /staff/login.",
  "session-expired": "The session ended (idle too long, or past its hours); sign in again at /staff/login.",
};

/** The `/api` error code of each end (commands/kit/errorCodes.ts): an answer refused because its credential ended says it as any later call would. */
export const CREDENTIAL_END_CODES: Record<CredentialEnd, ApiErrorCode> = {
  revoked: "token-invalid",
  expired: "token-expired",
  replaced: "token-expired",
  "signed-out": "session-ended",
  "session-expired": "session-ended",
};

type Told = (end: CredentialEnd) => void;

const SECRET_ENDS: Record<Exclude<SecretStanding, "valid">, CredentialEnd> = {
  unknown: "revoked",
  expired: "expired",
  replaced: "replaced",
};
const SESSION_ENDS: Record<Exclude<SessionStanding, "live">, CredentialEnd> = {
  "signed-out": "signed-out",
  expired: "session-expired",
};

export class CredentialWatch {
  /** The holders of each watched credential, by key (`secret:<digests>` or `session:<id>`). */
  private readonly watched = new Map<string, { held: HeldCredential; told: Set<Told> }>();
  private round: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly sessions: Pick<SessionStore, "standingOf">,
    private readonly log: Logger,
    private readonly everyMs = WATCH_ROUND_MS,
  ) {}

  /**
   * Calls `ended` once, when `held` stops working; the answer calls the returned function when it
   * ends for any other reason. `null` (the operator's ADMIN_TOKEN, or no credential) never ends.
   */
  watch(held: HeldCredential | null, ended: Told): () => void {
    if (!held || this.stopped) return () => {};
    const key = held.kind === "secret" ? `secret:${[...held.digests].sort().join(",")}` : `session:${held.id}`;
    const entry = this.watched.get(key) ?? { held, told: new Set<Told>() };
    // Each watch its own function, so that one holder's unwatch leaves another's of the same credential.
    const told: Told = (end) => ended(end);
    entry.told.add(told);
    this.watched.set(key, entry);
    this.schedule();
    return () => {
      entry.told.delete(told);
      if (entry.told.size === 0 && this.watched.get(key) === entry) this.watched.delete(key);
    };
  }

  stop(): void {
    this.stopped = true;
    if (this.round) clearTimeout(this.round);
    this.round = null;
    this.watched.clear();
  }

  private schedule(): void {
    if (this.round || this.stopped || this.watched.size === 0) return;
    this.round = setTimeout(() => void this.check(), this.everyMs);
    this.round.unref();
  }

  /** One round: the state of every held credential, and the holders of those that ended told. */
  private async check(): Promise<void> {
    const entries = [...this.watched];
    try {
      const secrets = entries.flatMap(([, { held }]) => (held.kind === "secret" ? held.digests : []));
      const sessions = entries.flatMap(([, { held }]) => (held.kind === "session" ? [held.id] : []));
      const [secretStanding, sessionStanding] = await Promise.all([
        secrets.length ? standingOfSecrets(this.db, secrets) : new Map<string, SecretStanding>(),
        sessions.length ? this.sessions.standingOf(sessions) : new Map<string, SessionStanding>(),
      ]);
      for (const [key, entry] of entries) {
        const end =
          entry.held.kind === "secret"
            ? secretEnd(entry.held.digests, secretStanding)
            : sessionEnd(sessionStanding.get(entry.held.id));
        if (!end) continue;
        if (this.watched.get(key) === entry) this.watched.delete(key);
        for (const told of entry.told) told(end);
      }
    } catch (err) {
      // The database is away: nothing new reaches the answers either; the next round asks again.
      this.log.warn(
        { err },
        "the credentials of open streams and connections could not be checked again; trying at the next round",
      );
    } finally {
      this.round = null;
      this.schedule();
    }
  }
}

/** A secret's end: the standing of whichever of its digests a credential holds (none: it is not known, as a revoked one). */
function secretEnd(digests: readonly string[], standing: Map<string, SecretStanding>): CredentialEnd | null {
  const found = digests.map((digest) => standing.get(digest)).find((status) => status !== undefined) ?? "unknown";
  return found === "valid" ? null : SECRET_ENDS[found];
}

function sessionEnd(standing: SessionStanding | undefined): CredentialEnd | null {
  return standing === undefined || standing === "live" ? null : SESSION_ENDS[standing];
}

/** Hands the process's credential watch to the long-lived answers of the routes below. */
export function offerCredentialWatch(watch: CredentialWatch): Middleware {
  return (ctx, next) => {
    ctx.state.watch = watch;
    return next();
  };
}

/**
 * Calls `ended` once when the credential this request was let in by stops working; answers the
 * function that stops watching (call it when the answer ends for any other reason). A request
 * without a token or session (a viewing call through the proxy) or with the ADMIN_TOKEN holds
 * nothing that can end.
 */
export function watchCaller(ctx: Pick<Context, "state">, ended: (end: CredentialEnd) => void): () => void {
  const watch = ctx.state.watch;
  if (!watch)
    throw new Error("this answer watches its credential but its interface offers no credential watch (httpApp.ts)");
  return watch.watch(ctx.state.held ?? null, ended);
}

import { randomBytes } from "node:crypto";
import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import type { Db } from "../../db/pool.ts";

/*
 * Staff sessions, in PostgreSQL: they survive a restart and every API process sees the same ones
 * (contract E.1). Working state rather than history (db/migrations/0012_staff-sessions.sql): rows
 * past their time are deleted. The cookie's value is kept only as a keyed digest, so a copy of the
 * table signs no one in. A sign-in under way is not here: its browser keeps it (signInSeal.ts).
 */

export interface SessionTimes {
  /** A session ends after this long without a call (SESSION_IDLE_MINUTES). */
  idleMs: number;
  /** And this long after sign-in whatever happens (SESSION_MAX_HOURS). */
  maxMs: number;
}

export interface StaffSession {
  sub: string;
  name: string;
  tenant: string;
  roles: string[];
  wards: string[] | null;
  csrf: string;
  idToken: string;
  /** When it ends if it stays idle (or at its absolute end, whichever comes first). */
  expiresAt: Date;
}

/** What a session amounts to now: it works, the person signed out, or its idle or absolute time is up. */
export type SessionStanding = "live" | "signed-out" | "expired";

export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly hasher: IdentifierHasher,
    private readonly times: SessionTimes,
  ) {}

  /** A new session; answers the cookie's value (shown to the browser only) and the session. */
  async open(session: Omit<StaffSession, "csrf" | "expiresAt">): Promise<{ cookie: string; session: StaffSession }> {
    const cookie = randomBytes(32).toString("base64url");
    const csrf = randomBytes(24).toString("base64url");
    const { rows } = await this.db.query(
      `insert into staff_sessions (id_digest, sub, name, tenant, roles, wards, csrf, id_token, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9))
       returning least(expires_at, last_seen_at + make_interval(secs => $10)) as expires_at`,
      [
        this.#digest("session", cookie),
        session.sub,
        session.name,
        session.tenant,
        session.roles,
        session.wards,
        csrf,
        session.idToken,
        this.times.maxMs / 1000,
        this.times.idleMs / 1000,
      ],
    );
    return { cookie, session: { ...session, csrf, expiresAt: rows[0].expires_at } };
  }

  /**
   * The live session of this cookie, its idle clock restarted; null when there is none, it was
   * ended, or its idle or absolute time is up. One statement, on every request: the clock is
   * moved only when it is a step behind (a tenth of the idle time, at most 30 s), so most calls
   * write nothing and wait for no WAL flush (issue #33: identity.session_check_p99_ms). A session
   * may thus end up to one step before its idle time is quite up, never after.
   */
  async touch(cookie: string): Promise<StaffSession | null> {
    return this.touchById(this.idOf(cookie));
  }

  /**
   * touch() by what the database keeps of the cookie (idOf): for an embed page's calls from a
   * sandboxed frame, which carry no cookie but an embed token naming the session that opened the
   * page (src/reports/http/embedAccess.ts).
   */
  async touchById(id: string): Promise<StaffSession | null> {
    const idleSeconds = this.times.idleMs / 1000;
    // Named: each connection plans it once, as it runs on every request a session makes.
    const { rows } = await this.db.query({
      name: "staff-session-touch",
      text: `with live as (
         select sub, name, tenant, roles, wards, csrf, id_token, least(expires_at, last_seen_at + make_interval(secs => $2)) as idle_end
         from staff_sessions
         where id_digest = $1 and ended_at is null and expires_at > now() and last_seen_at > now() - make_interval(secs => $2)
       ),
       touched as (
         update staff_sessions set last_seen_at = now()
         where id_digest = $1 and last_seen_at < now() - make_interval(secs => $3) and exists (select 1 from live)
         returning least(expires_at, now() + make_interval(secs => $2)) as expires_at
       )
       select sub, name, tenant, roles, wards, csrf, id_token, coalesce((select expires_at from touched), idle_end) as expires_at from live`,
      values: [id, idleSeconds, Math.min(30, idleSeconds / 10)],
    });
    const row = rows[0];
    return row
      ? {
          sub: row.sub,
          name: row.name,
          tenant: row.tenant,
          roles: row.roles,
          wards: row.wards,
          csrf: row.csrf,
          idToken: row.id_token,
          expiresAt: row.expires_at,
        }
      : null;
  }

  /** What the database keeps of a session cookie: a long-lived answer watches the session by it (src/credentials/credentialWatch.ts). */
  idOf(cookie: string): string {
    return this.#digest("session", cookie);
  }

  /**
   * Whether each of these sessions (by idOf) still works, as touch() would find it, without
   * moving its idle clock: an open stream is not a person's call. One statement for every
   * session this process's long-lived answers hold.
   */
  async standingOf(ids: readonly string[]): Promise<Map<string, SessionStanding>> {
    const { rows } = await this.db.query<{ id_digest: string; live: boolean; ended: boolean }>(
      `select id_digest, ended_at is not null as ended,
              ended_at is null and expires_at > now() and last_seen_at > now() - make_interval(secs => $2) as live
       from staff_sessions where id_digest = any($1)`,
      [ids, this.times.idleMs / 1000],
    );
    const found = new Map<string, SessionStanding>(
      rows.map((row) => [row.id_digest, row.live ? "live" : row.ended ? "signed-out" : "expired"]),
    );
    // A row deleted (a day after its end) ended long ago.
    return new Map(ids.map((id) => [id, found.get(id) ?? "expired"]));
  }

  /** Ends the session at once, on every process; answers whether it was live. */
  async end(cookie: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      "update staff_sessions set ended_at = now() where id_digest = $1 and ended_at is null",
      [this.#digest("session", cookie)],
    );
    await this.db.query("delete from staff_sessions where expires_at < now() - interval '1 day'");
    return (rowCount ?? 0) > 0;
  }

  #digest(purpose: string, value: string): string {
    return this.hasher.digest(`staff ${purpose}`, value);
  }
}

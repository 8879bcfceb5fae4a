import type { Logger } from "pino";
import type { Db } from "../../db/pool.ts";
import { isTransient } from "../../db/transientErrors.ts";

/** How often a process writes the uses it noted: lastUsedAt shows within about this long. */
export const CREDENTIAL_USES_FLUSH_MS = 2000;

/**
 * When each credential was last accepted (contract E.3 lastUsedAt). A call only notes it in
 * memory; every few seconds, and at shutdown, the process writes what it noted in one statement,
 * keeping the later of its time and the one stored (another process may have written a later
 * one). So no request waits for a write of its own, and a busy key costs a row update per flush,
 * not per call. Telemetry, not history: never an event (docs/operations.md, Credential lifecycle).
 */
export class CredentialUses {
  private noted = new Map<string, { tenant: string; at: Date }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly everyMs = CREDENTIAL_USES_FLUSH_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.everyMs);
    this.timer.unref();
  }

  used(credentialId: string, tenant: string, at = new Date()): void {
    const known = this.noted.get(credentialId);
    if (!known || known.at < at) this.noted.set(credentialId, { tenant, at });
  }

  /** Writes what was noted since the last flush, after any flush under way. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.noted.size === 0) return;
      const batch = this.noted;
      this.noted = new Map();
      try {
        await this.db.query(
          `insert into credential_uses (credential_id, tenant, last_used_at)
           select * from unnest($1::text[], $2::text[], $3::timestamptz[])
           on conflict (credential_id) do update set last_used_at = greatest(credential_uses.last_used_at, excluded.last_used_at)`,
          [[...batch.keys()], [...batch.values()].map((use) => use.tenant), [...batch.values()].map((use) => use.at)],
        );
      } catch (err) {
        // Kept for the next round: a use is worth less than a call, so nothing waits or fails for it.
        for (const [credentialId, use] of batch) this.used(credentialId, use.tenant, use.at);
        this.log[isTransient(err) ? "warn" : "error"](
          { err, credentials: batch.size },
          "credential uses not recorded; trying again at the next round",
        );
      }
    });
    return this.flushing;
  }

  /** Stops the rounds and writes what is left (the HTTP server and MLLP listener have stopped by then). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

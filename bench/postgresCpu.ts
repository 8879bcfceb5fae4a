import type { Db } from "../db/pool.ts";
import { cpuMilliseconds } from "./processStats.ts";

/*
 * CPU time of the PostgreSQL backends serving one database, read from /proc as for the service's
 * own process (the server runs on this machine): the database's share of a run, which no
 * statement timing in the client shows (compression, index maintenance, jsonb parsing happen
 * there). Backends come and go, so they are looked for every SAMPLE_MS; a backend's CPU before it
 * was first seen, or after it was last seen, is missed.
 */

const SAMPLE_MS = 250;

export class PostgresCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private readonly applicationOf = new Map<number, string>();
  private timer: NodeJS.Timeout | null = null;
  private sampling: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db) {}

  start(): void {
    const sample = async () => {
      const { rows } = await this.db.query(
        "select pid, application_name from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
      );
      for (const row of rows) {
        const pid = Number(row.pid);
        let ms: number;
        try {
          ms = cpuMilliseconds(pid);
        } catch {
          continue; // ended meanwhile
        }
        if (!this.first.has(pid)) this.first.set(pid, ms);
        this.last.set(pid, ms);
        this.applicationOf.set(pid, row.application_name || "(unnamed)");
      }
    };
    this.sampling = sample();
    this.timer = setInterval(() => {
      this.sampling = this.sampling.then(sample).catch(() => {});
    }, SAMPLE_MS);
  }

  /** Stops and tells the CPU milliseconds used since start, per application_name of the backends. */
  async stop(): Promise<Record<string, number>> {
    clearInterval(this.timer!);
    await this.sampling;
    const byApplication: Record<string, number> = {};
    for (const [pid, first] of this.first) {
      const application = this.applicationOf.get(pid)!;
      byApplication[application] = (byApplication[application] ?? 0) + (this.last.get(pid)! - first);
    }
    return byApplication;
  }
}

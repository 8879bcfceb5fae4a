import type { Logger } from "pino";
import pg from "pg";
import type { Db } from "./pool.ts";

/*
 * The planner's statistics of the service's own tables, kept current by the service itself. A bulk
 * import takes the store from nothing to a million item rows in minutes, and autovacuum analyzes
 * late (once a minute at best, some 10% behind) or never (it is off on some servers, this project's
 * test server among them). Planned without statistics, the projections' statements chose the wrong
 * index or a scan of the whole table: the month summaries probed lab_results by item (some 110
 * pages a probe, not 4), and the report rows read every event to find a batch's (issue #35).
 *
 * So, every CHECK_EVERY_MS, each table of ours is analyzed (a sample of its rows) once the rows
 * changed since it was last analyzed (pg_stat_user_tables counts them, whoever analyzed) pass
 * ANALYZE_AFTER_ROWS plus as many as it had: a table that doubled is planned anew, so a load from
 * nothing to a million rows is analyzed some ten times (lab_results' analysis takes 0.5 s at
 * 400,000 rows; at every 20% of growth they cost more than they saved). A table that changes
 * slowly is analyzed as autovacuum would, a tenth changed, but not more often than every
 * SLOW_CHANGE_AFTER. pg-boss's tables are left to pg-boss's own upkeep (wakeups.ts).
 */

const CHECK_EVERY_MS = 5_000;
const ANALYZE_AFTER_ROWS = 1_000;
const SLOW_CHANGE_SHARE = 0.1;
const SLOW_CHANGE_AFTER = "10 minutes";

const GROWN_TABLES_SQL = `
  select s.schemaname, s.relname
  from pg_stat_user_tables s
  join pg_class c on c.oid = s.relid
  where c.relowner = (select oid from pg_roles where rolname = current_user)
    and s.schemaname <> 'pgboss'
    and (s.n_mod_since_analyze > $1 + greatest(c.reltuples, 0)
         or (s.n_mod_since_analyze > $1 + $2 * greatest(c.reltuples, 0)
             and coalesce(greatest(s.last_analyze, s.last_autoanalyze), '-infinity') < now() - $3::interval))
  order by s.n_mod_since_analyze desc`;

/** Analyzes the tables of ours that changed enough since their last analysis; returns their names. */
export async function analyzeChangedTables(db: Db): Promise<string[]> {
  const { rows } = await db.query(GROWN_TABLES_SQL, [ANALYZE_AFTER_ROWS, SLOW_CHANGE_SHARE, SLOW_CHANGE_AFTER]);
  const analyzed: string[] = [];
  for (const { schemaname, relname } of rows as Array<{ schemaname: string; relname: string }>) {
    const name = `${pg.escapeIdentifier(schemaname)}.${pg.escapeIdentifier(relname)}`;
    try {
      await db.query(`analyze ${name}`);
      analyzed.push(`${schemaname}.${relname}`);
    } catch (error) {
      // Dropped meanwhile (a generation replaced by a rebuild): nothing to keep.
      if ((error as { code?: string }).code !== "42P01") throw error;
    }
  }
  return analyzed;
}

/** Runs analyzeChangedTables every CHECK_EVERY_MS, one run at a time, in a process that applies projections. */
export class TableStatistics {
  private timer: NodeJS.Timeout | null = null;
  /** The check under way: a tick that finds one (analyses of a large store take seconds) lets it be, rather than queue another behind it. */
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly everyMs = CHECK_EVERY_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.check().finally(() => (this.running = null));
    }, this.everyMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    try {
      const analyzed = await analyzeChangedTables(this.db);
      if (analyzed.length > 0) this.log.debug({ analyzed }, "table statistics brought up to date");
    } catch (err) {
      // The database is away or busy: the next check tries again.
      this.log.warn({ err }, "table statistics not brought up to date");
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}

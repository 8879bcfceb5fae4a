import PgBoss from "pg-boss";
import type { Logger } from "pino";
import { deadPeerLimits, type DeadPeerLimits } from "../../db/pool.ts";
import { connectionToPrimary } from "../../db/primaryHosts.ts";
import type { Projection } from "./projection.ts";

/*
 * pg-boss carries wake-ups, never events: one "stately" queue per projection holds at most one
 * queued and one active job, so any number of appends costs at most one pending wake-up. Each
 * queue is its own partition of pg-boss's job table (pg-boss 10), which keeps the fetch on a
 * small table; the periodic ANALYZE keeps the planner's picture of it current.
 */

export function wakeupQueueOf(projection: Projection): string {
  return `projection.${projection.name}`;
}

export function createBoss(connectionString: string, log: Logger, limits: DeadPeerLimits = {}): PgBoss {
  const boss = new PgBoss({
    ...deadPeerLimits(limits),
    ...connectionToPrimary(connectionString),
    schema: "pgboss",
    max: 3,
    application_name: "dialysis-hub-jobs",
    archiveCompletedAfterSeconds: 60,
    deleteAfterHours: 1,
    maintenanceIntervalSeconds: 120,
  });
  boss.on("error", (err) => log.warn({ err }, "job queue fault"));
  return boss;
}

/**
 * A wake-up job is active for an instant (the handler only wakes the runner), so a job still
 * active after seconds was lost with its process or its database connection. Worker processes
 * fail such jobs themselves (releaseStuckWakeups); the expiry is pg-boss's own net, at its next
 * maintenance run.
 */
const WAKEUP_QUEUE = { policy: "stately", retryLimit: 0, expireInSeconds: 60 } as const;

export async function createWakeupQueues(boss: PgBoss, projections: readonly Projection[]): Promise<void> {
  for (const projection of projections) await ensureWakeupQueue(boss, wakeupQueueOf(projection));
}

/**
 * Processes started together on a new database race to create the queues, and two of pg-boss's
 * create_queue calls (a row plus a partition of the job table) can deadlock: the one PostgreSQL
 * aborts looks again and finds the queue the other made.
 */
export async function ensureWakeupQueue(boss: PgBoss, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const existing = await boss.getQueue(name);
    if (existing) {
      if (existing.expireInSeconds !== WAKEUP_QUEUE.expireInSeconds)
        await boss.updateQueue(name, { name, ...WAKEUP_QUEUE });
      return;
    }
    try {
      return await boss.createQueue(name, { name, ...WAKEUP_QUEUE });
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 50 * (1 + Math.random())));
    }
  }
}

/**
 * For processes without a worker: appends in one tick coalesce into one send per projection.
 * A send that finds a wake-up already queued is dropped by the stately policy, as intended.
 */
export class WakeupSender {
  private readonly dirty = new Set<Projection>();
  private scheduled = false;

  constructor(
    private readonly boss: PgBoss,
    private readonly projections: readonly Projection[],
    private readonly log: Logger,
  ) {}

  notify(eventTypes: ReadonlySet<string>): void {
    for (const projection of this.projections) {
      if (projection.handles.some((type) => eventTypes.has(type))) this.dirty.add(projection);
    }
    if (this.scheduled || this.dirty.size === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const projections = [...this.dirty];
    this.dirty.clear();
    await Promise.all(
      projections.map((projection) =>
        this.boss
          .send(wakeupQueueOf(projection), {})
          .catch((err) => this.log.warn({ err, projection: projection.name }, "wake-up not sent")),
      ),
    );
  }
}

/** A wake-up job active this long was lost: its handler only wakes a runner, an instant's work. */
export const STUCK_WAKEUP_SECONDS = 10;

/**
 * Fails the wake-up jobs of these projections that were fetched but never completed: the database
 * went away (or the connection was cut) between pg-boss's fetch and its completion. A stately
 * queue fetches nothing while such a job is active — the fetch breaks pg-boss's one-active-job
 * index — so without this a restart of PostgreSQL held every wake-up of that projection until
 * pg-boss expired the job at a maintenance run, minutes later, and the projection waited for the
 * safety net meanwhile. The wake-up it carried is not lost: its runner ran, or runs at the next one.
 */
export async function releaseStuckWakeups(boss: PgBoss, projections: readonly Projection[]): Promise<number> {
  const queues = projections.map(wakeupQueueOf);
  const { rows } = await boss
    .getDb()
    .executeSql(
      `select name, id from pgboss.job where name = any($1) and state = 'active' and started_on < now() - make_interval(secs => $2)`,
      [queues, STUCK_WAKEUP_SECONDS],
    );
  const byQueue = new Map<string, string[]>();
  for (const row of rows as Array<{ name: string; id: string }>)
    byQueue.set(row.name, [...(byQueue.get(row.name) ?? []), row.id]);
  for (const [queue, ids] of byQueue) await boss.fail(queue, ids);
  return rows.length;
}

/** Keeps pg-boss's job table statistics fresh: its fetch plan degrades badly on stale ones. */
export async function analyzeJobTable(boss: PgBoss): Promise<void> {
  await boss.getDb().executeSql("analyze pgboss.job", []);
}

import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { Db } from "../../db/pool.ts";
import type { Projection } from "./projection.ts";
import { prepareProjections } from "./rebuild.ts";
import { rebuildInTurn } from "./rebuildInTurn.ts";
import { ProjectionRunner, type RunnerOptions } from "./runner.ts";
import {
  analyzeJobTable,
  createWakeupQueues,
  releaseStuckWakeups,
  STUCK_WAKEUP_SECONDS,
  wakeupQueueOf,
} from "./wakeups.ts";

export interface WorkerOptions extends RunnerOptions {
  /** How often every projection is woken regardless of wake-ups: the net under lost ones. */
  safetyNetMs?: number;
  /** How often a worker of another process looks for wake-up jobs. */
  pollingIntervalSeconds?: number;
  /** Outdated projections rebuilt at once (each holds two of the pool's connections while it runs). */
  rebuildsAtOnce?: number;
}

/** Runs every projection of this process: pg-boss wake-ups, local wake-ups, a periodic safety net. */
export class ProjectionWorker {
  private readonly runners = new Map<string, ProjectionRunner>();
  private safetyNet: NodeJS.Timeout | null = null;
  private jobTableUpkeep: NodeJS.Timeout | null = null;
  private stuckWakeups: NodeJS.Timeout | null = null;
  private rebuilds: Promise<unknown> = Promise.resolve();
  private running = false;

  constructor(
    private readonly db: Db,
    private readonly boss: PgBoss,
    private readonly projections: readonly Projection[],
    private readonly log: Logger,
    private readonly options: WorkerOptions = {},
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    const toBuild = await prepareProjections(this.db, this.projections, this.log);
    await createWakeupQueues(this.boss, this.projections);
    for (const projection of this.projections) {
      const runner = new ProjectionRunner(this.db, projection, this.log, {
        ...this.options,
        onEmitted: (types) => this.wakeFor(types),
      });
      this.runners.set(projection.name, runner);
      // The job is done once the runner is woken, not when its run ends: pg-boss completes a job
      // after its handler, so a job held through a long run stays `active` if the database goes
      // away or this process dies meanwhile, and a stately queue fetches nothing more until that
      // job expires. The runner coalesces wake-ups itself.
      await this.boss.work(
        wakeupQueueOf(projection),
        { pollingIntervalSeconds: this.options.pollingIntervalSeconds ?? 0.5 },
        async () => {
          void runner.wakeForNewEvents();
        },
      );
    }
    this.safetyNet = setInterval(() => void this.wakeAll(), this.options.safetyNetMs ?? 5000);
    this.safetyNet.unref();
    this.jobTableUpkeep = setInterval(() => void analyzeJobTable(this.boss).catch(() => {}), 5 * 60_000);
    this.jobTableUpkeep.unref();
    this.stuckWakeups = setInterval(() => this.releaseStuckWakeups(), (STUCK_WAKEUP_SECONDS * 1000) / 2);
    this.stuckWakeups.unref();
    this.running = true;
    this.rebuilds = rebuildInTurn(this.db, toBuild, this.log, {
      atOnce: this.options.rebuildsAtOnce ?? 2,
      onRebuilt: (projection) => void this.runners.get(projection.name)?.wake(),
      stopped: () => !this.running,
    }).catch((err) => this.log.error({ err }, "rebuilds stopped"));
    void this.wakeAll(); // a runner reports its own faults and never rejects
  }

  private releaseStuckWakeups(): void {
    releaseStuckWakeups(this.boss, this.projections)
      .then((released) => {
        if (released > 0) this.log.info({ released }, "wake-up jobs left active by a lost connection were released");
      })
      .catch(() => {}); // the database is away: the next tick tries again
  }

  /** Wakes the runners of projections that handle any of these event types. */
  wakeFor(eventTypes: ReadonlySet<string>): void {
    for (const runner of this.runners.values()) {
      if (runner.projection.handles.some((type) => eventTypes.has(type))) void runner.wakeForNewEvents();
    }
  }

  wakeAll(): Promise<void[]> {
    return Promise.all([...this.runners.values()].map((runner) => runner.wake()));
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.safetyNet) clearInterval(this.safetyNet);
    if (this.jobTableUpkeep) clearInterval(this.jobTableUpkeep);
    if (this.stuckWakeups) clearInterval(this.stuckWakeups);
    await Promise.all([...this.runners.values()].map((runner) => runner.stop()));
    await this.rebuilds;
  }
}

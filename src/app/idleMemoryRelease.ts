import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import type { Logger } from "pino";

type Collect = (options: { type: "major"; execution: "async" }) => Promise<void> | void;

/** How often the process looks at its memory and its event loop. */
const LOOK_MS = 1000;
/**
 * Looks in a row with the event loop busy less than this before the heap is collected: the load is
 * over. An idle service (projections, the job queue's polling) keeps its loop 5–20 % busy.
 */
const QUIET_LOOKS = 2;
const QUIET_UTILIZATION = 0.25;
/** At most one collection this often, however memory goes. */
const MIN_INTERVAL_MS = 10_000;

/**
 * Gives memory back once a load is over (issue #52, finding 6). After eight concurrent 32 MB
 * report answers the process stayed at 500 to 830 MB for minutes: V8 returns its heap's pages to
 * the system only after a full collection, and an idle process makes no garbage that would start
 * one (V8's own memory reducer waits for one). So when the resident memory is `aboveBytes` above
 * what it was after the last collection here, and the event loop has been idle for two seconds,
 * the heap is collected once (V8's gc(), asked for without starting node with --expose-gc, as
 * jest's leak detector asks for it). It holds the event loop for as long as a full collection
 * takes (about 250 ms after eight 32 MB answers, on two busy cores), so it waits for a quiet loop
 * and runs at most once in ten seconds. IDLE_MEMORY_RELEASE_MB=0 leaves it to V8.
 */
export class IdleMemoryRelease {
  private timer: NodeJS.Timeout | null = null;
  private floor = process.memoryUsage.rss();
  private loop = performance.eventLoopUtilization();
  private quietLooks = 0;
  private lastAt = 0;
  private collecting = false;

  private constructor(
    private readonly aboveBytes: number,
    private readonly collect: Collect,
    private readonly log: Logger,
  ) {}

  /** Starts looking; null when switched off or when V8 does not give its gc(). */
  static start(aboveMb: number, log: Logger): IdleMemoryRelease | null {
    if (aboveMb <= 0) return null;
    const collect = fullCollection();
    if (!collect) {
      log.warn("Memory is left to V8 after loads: its gc() could not be had.");
      return null;
    }
    const release = new IdleMemoryRelease(aboveMb * 1024 * 1024, collect, log);
    release.timer = setInterval(() => release.look(), LOOK_MS);
    release.timer.unref();
    return release;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private look(): void {
    const since = performance.eventLoopUtilization(this.loop);
    this.loop = performance.eventLoopUtilization();
    this.quietLooks = since.utilization < QUIET_UTILIZATION ? this.quietLooks + 1 : 0;
    const rss = process.memoryUsage.rss();
    this.floor = Math.min(this.floor, rss);
    if (
      this.collecting ||
      this.quietLooks < QUIET_LOOKS ||
      rss < this.floor + this.aboveBytes ||
      Date.now() - this.lastAt < MIN_INTERVAL_MS
    )
      return;
    this.collecting = true;
    this.lastAt = Date.now();
    let pauseMs = 0;
    const started = performance.now();
    void Promise.resolve(this.collect({ type: "major", execution: "async" }))
      .then(() => (pauseMs = performance.now() - started))
      // Freed pages go back as the sweeper gets to them: the new floor is read a moment later.
      .then(() => new Promise((resolve) => setTimeout(resolve, LOOK_MS).unref()))
      .then(
        () => {
          const after = process.memoryUsage.rss();
          this.log.debug(
            { beforeMb: Math.round(rss / 1048576), afterMb: Math.round(after / 1048576), pauseMs: Math.round(pauseMs) },
            "memory collected after a load",
          );
          this.floor = after;
        },
        (err: unknown) => this.log.warn({ err }, "memory collection after a load failed"),
      )
      .finally(() => (this.collecting = false));
  }
}

/** V8's gc(), exposed for a moment to a context of its own (the service's own context never has it). */
function fullCollection(): Collect | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === "function") return exposed as Collect;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    return typeof gc === "function" ? (gc as Collect) : null;
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}

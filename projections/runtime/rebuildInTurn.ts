import type { Logger } from "pino";
import type { Db } from "../../db/pool.ts";
import type { Projection } from "./projection.ts";
import { rebuildProjection } from "./rebuild.ts";

export interface RebuildInTurnOptions {
  /** Rebuilds at once: each holds two connections for its whole run, so a few, well below the pool. */
  atOnce: number;
  /** Called once a projection is rebuilt and live (its runner then catches up on what came meanwhile). */
  onRebuilt: (projection: Projection) => void;
  /** True once the worker stops: nothing more is started or retried. */
  stopped: () => boolean;
  /** The first pause after a rebuild that a fault broke off, and the longest; each fault doubles it. */
  retryFirstMs?: number;
  retryMaxMs?: number;
}

/**
 * Builds the outdated projections by replay a few at a time, and tries again after a fault of the
 * database (a full pool, a restart): all at once, a pool of ten left eight of eleven without a
 * connection and those stopped for good. A tenant's event a rebuild cannot apply holds back only
 * that tenant (applyBatch.ts), and a rebuild busy in another process is its own.
 */
export async function rebuildInTurn(
  db: Db,
  projections: readonly Projection[],
  log: Logger,
  options: RebuildInTurnOptions,
): Promise<void> {
  const queue = [...projections];
  const { retryFirstMs = 1000, retryMaxMs = 60_000 } = options;
  const slot = async () => {
    for (let next = queue.shift(); next && !options.stopped(); next = queue.shift()) {
      for (let fault = 0; !options.stopped(); fault++) {
        try {
          const result = await rebuildProjection(db, next, log);
          if (result.status === "rebuilt") options.onRebuilt(next);
          break;
        } catch (err) {
          const pause = Math.min(retryMaxMs, retryFirstMs * 2 ** fault);
          log.warn({ err, projection: next.name, retryInMs: pause }, "rebuild broken off by a fault; trying again");
          await new Promise((resolve) => setTimeout(resolve, pause).unref());
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.atOnce) }, slot));
}

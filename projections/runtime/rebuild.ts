import type { Logger } from "pino";
import { ensureClinicalViews } from "../../db/clinicalViews.ts";
import { withTransaction, type Db } from "../../db/pool.ts";
import { applyNextBatch, type BatchOutcome } from "./applyBatch.ts";
import { finishSideBySide } from "./finishSideBySide.ts";
import {
  createGeneration,
  discardBuilding,
  dropRetiredSchemas,
  findLive,
  lockGeneration,
  promote,
  type Generation,
} from "./generations.ts";
import { loadAtOnce } from "./loadAtOnce.ts";
import type { Projection } from "./projection.ts";

export type RebuildResult =
  | {
      status: "rebuilt";
      generation: number;
      events: number;
      seconds: number;
      /** Of them, loaded by set (Projection.loadThrough). */ loadedAtOnce: number;
      /** Tenants held back in the new generation at an event that failed (contract E.6); their retries go on when it is live. */
      heldBack: string[];
    }
  | { status: "busy" };

/** How far a rebuild has read: events passed (handled or not) and the store's last position when it began. */
export interface RebuildProgress {
  eventsRead: number;
  /** Positions are numbered without gaps but for rolled-back appends: about the number of events to read. */
  lastPosition: number;
}

export interface RebuildOptions {
  batchSize?: number;
  /** Told after every batch (a progress bar). */
  onProgress?: (progress: RebuildProgress) => void;
}

/**
 * Replays every event into a fresh generation while the live one keeps serving, then swaps them
 * in one transaction. Only one rebuild of a projection runs at a time (a session advisory lock).
 */
export async function rebuildProjection(
  db: Db,
  projection: Projection,
  log: Logger,
  { batchSize = 2000, onProgress }: RebuildOptions = {},
): Promise<RebuildResult> {
  const lockHolder = await db.connect();
  const started = Date.now();
  try {
    const { rows } = await lockHolder.query(
      "select pg_try_advisory_lock(hashtext('projection-rebuild'), hashtext($1)) as ok",
      [projection.name],
    );
    if (!rows[0].ok) return { status: "busy" };

    const building = await withTransaction(db, async (tx) => {
      await discardBuilding(tx, projection.name);
      return createGeneration(tx, projection, "building");
    });
    log.info({ projection: projection.name, generation: building.generation }, "rebuilding projection");
    const { rows: last } = await db.query("select coalesce(max(position), 0) as position from events");
    const progress: RebuildProgress = { eventsRead: 0, lastPosition: Number(last[0].position) };
    const advance = (count: number) => {
      progress.eventsRead += count;
      onProgress?.({ ...progress, lastPosition: Math.max(progress.lastPosition, progress.eventsRead) });
    };

    const loadedAtOnce = await withTransaction(db, async (tx) => {
      const gen = (await lockGeneration(tx, projection.name, { generation: building.generation }, false))!;
      return loadAtOnce(tx, projection, gen, log);
    });
    const noteHeld = (outcome: BatchOutcome) => {
      if (outcome.kind !== "quarantined") return;
      for (const held of outcome.held) {
        log.error(
          {
            projection: projection.name,
            tenant: held.tenant,
            position: held.position,
            code: held.code ?? "PROJECTION_ERROR",
          },
          "rebuild holds a tenant back at an event it cannot apply; the others go on",
        );
      }
    };
    // Catches up without holding up the live runner; the swap below takes the last stretch.
    const catchUp = async (loading: boolean) => {
      for (;;) {
        const outcome = await withTransaction(db, async (tx) => {
          const gen = (await lockGeneration(tx, projection.name, { generation: building.generation }, false))!;
          return applyNextBatch(tx, projection, gen, batchSize, loading);
        });
        if (outcome.kind === "idle" || outcome.kind === "waiting") return outcome;
        noteHeld(outcome);
        advance(outcome.count);
      }
    };
    if (loadedAtOnce > 0) {
      // The indexes a load by set deferred are built before any batch meets its tables, and the
      // events that arrived meanwhile are then applied as the live generation applies them; a
      // reactor's stay `loading`, as its live generation acts on them.
      advance(loadedAtOnce);
      await finishSideBySide(db, projection, building, log, lockHolder);
    }
    await catchUp(loadedAtOnce > 0 ? Boolean(projection.emits?.length) : true);
    if (loadedAtOnce === 0) await finishSideBySide(db, projection, building, log, lockHolder);

    const swapped = await whenReadersAllow(log, projection.name, () =>
      withTransaction(db, async (tx) => {
        // Waiting for the live row stops the live runner between two of its batches.
        const live = await lockGeneration(tx, projection.name, { state: "live" }, false);
        const gen = (await lockGeneration(tx, projection.name, { generation: building.generation }, false))!;
        for (;;) {
          const outcome = await applyNextBatch(tx, projection, gen, batchSize);
          if (outcome.kind === "idle" || outcome.kind === "waiting") break;
          noteHeld(outcome);
          advance(outcome.count);
        }
        await tx.query(`set local lock_timeout = ${SWAP_LOCK_WAIT_MS}`);
        await promote(tx, projection, gen, live);
        await ensureClinicalViews(tx);
        return { kind: "promoted" as const, gen };
      }),
    );

    await whenReadersAllow(log, projection.name, () =>
      withTransaction(db, async (tx) => {
        await tx.query(`set local lock_timeout = ${SWAP_LOCK_WAIT_MS}`);
        await dropRetiredSchemas(tx);
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    log.info(
      { projection: projection.name, generation: swapped.gen.generation, events: swapped.gen.appliedCount, seconds },
      "projection rebuilt",
    );
    const heldBack = swapped.gen.quarantined.map((held) => held.tenant);
    return {
      status: "rebuilt",
      generation: swapped.gen.generation,
      events: swapped.gen.appliedCount,
      seconds,
      loadedAtOnce,
      heldBack,
    };
  } finally {
    await lockHolder.query("select pg_advisory_unlock_all()").catch(() => {});
    lockHolder.release();
  }
}

/*
 * Pointing the read views at the new generation, and dropping the old one, need each view's or
 * table's exclusive lock; a reader holding it (a report export's long transaction) makes the
 * request wait, and every new reader of that view then queues behind the request: a stalled
 * export once made GET /api/unmatched answer 503 after 30 s (issue #32). So the swap waits at most
 * SWAP_LOCK_WAIT_MS for a lock, gives way (the old generation keeps serving, readers go on), and
 * tries again after a pause that doubles up to half a minute.
 */
const SWAP_LOCK_WAIT_MS = 1000;
const SWAP_RETRY_MAX_MS = 30_000;
const LOCK_NOT_AVAILABLE = "55P03";

async function whenReadersAllow<T>(log: Logger, name: string, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      const pauseMs = Math.min(SWAP_RETRY_MAX_MS, 250 * 2 ** tries);
      log.info({ projection: name, tries, pauseMs }, "rebuilt projection waits for readers of its views; trying again");
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

/**
 * Makes sure every projection has a live generation of its current version, and returns those to
 * build by replay (the caller runs rebuildProjection for each): one whose version changed (the old
 * generation serves meanwhile), and a new one whose events the store already holds. Only a new
 * projection with nothing to replay starts empty and live: made live empty over existing events,
 * it would serve a partial read model until it caught up, and take over the view of a table that
 * moved to it from another projection's complete copy.
 */
export async function prepareProjections(
  db: Db,
  projections: readonly Projection[],
  log: Logger,
): Promise<Projection[]> {
  const toBuild: Projection[] = [];
  for (const projection of projections) {
    const live: Generation | null = await withTransaction(db, async (tx) => {
      await tx.query("select pg_advisory_xact_lock(hashtext('projection-setup'), hashtext($1))", [projection.name]);
      const found = await findLive(tx, projection.name);
      if (found) return found;
      const { rows } = await tx.query("select exists (select 1 from events where type = any($1::text[])) as held", [
        projection.handles,
      ]);
      if (!rows[0].held) return createGeneration(tx, projection, "live");
      // Set up now all the same, so that a projection that cannot be set up stops the start.
      await discardBuilding(tx, projection.name);
      await createGeneration(tx, projection, "building");
      return null;
    });
    if (!live || live.version !== projection.version) toBuild.push(projection);
  }
  await withTransaction(db, ensureClinicalViews);
  if (toBuild.length > 0)
    log.info({ projections: toBuild.map((p) => p.name) }, "projections new or changed; building them by replay");
  return toBuild;
}

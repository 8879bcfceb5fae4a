import type { Logger } from "pino";
import { ensureClinicalViews } from "../db/clinicalViews.ts";
import { withTransaction, type Db } from "../db/pool.ts";
import { applyNextBatch } from "./applyBatch.ts";
import { createGeneration, discardBuilding, findLive, lockGeneration, promote, type Generation } from "./generations.ts";
import type { Projection } from "./projection.ts";

export type RebuildResult =
  | { status: "rebuilt"; generation: number; events: number; seconds: number }
  | { status: "busy" }
  | { status: "failed"; position: number; message: string };

/**
 * Replays every event into a fresh generation while the live one keeps serving, then swaps them
 * in one transaction. Only one rebuild of a projection runs at a time (a session advisory lock).
 */
export async function rebuildProjection(db: Db, projection: Projection, log: Logger, batchSize = 2000): Promise<RebuildResult> {
  const lockHolder = await db.connect();
  const started = Date.now();
  try {
    const { rows } = await lockHolder.query("select pg_try_advisory_lock(hashtext('projection-rebuild'), hashtext($1)) as ok", [projection.name]);
    if (!rows[0].ok) return { status: "busy" };

    const building = await withTransaction(db, async (tx) => {
      await discardBuilding(tx, projection.name);
      return createGeneration(tx, projection, "building");
    });
    log.info({ projection: projection.name, generation: building.generation }, "rebuilding projection");

    // Catch up without holding up the live runner; the swap below takes the last stretch.
    for (;;) {
      const outcome = await withTransaction(db, async (tx) => {
        const gen = (await lockGeneration(tx, projection.name, { generation: building.generation }, false))!;
        return applyNextBatch(tx, projection, gen, batchSize);
      });
      if (outcome.kind === "failed") return { status: "failed", position: outcome.position, message: outcome.message };
      if (outcome.kind !== "applied") break;
    }

    const swapped = await withTransaction(db, async (tx) => {
      // Waiting for the live row stops the live runner between two of its batches.
      const live = await lockGeneration(tx, projection.name, { state: "live" }, false);
      const gen = (await lockGeneration(tx, projection.name, { generation: building.generation }, false))!;
      for (;;) {
        const outcome = await applyNextBatch(tx, projection, gen, batchSize);
        if (outcome.kind === "failed") return outcome;
        if (outcome.kind !== "applied") break;
      }
      const retiredSchema = await promote(tx, projection, gen, live);
      await ensureClinicalViews(tx);
      return { kind: "promoted" as const, gen, retiredSchema };
    });
    if (swapped.kind === "failed") return { status: "failed", position: swapped.position, message: swapped.message };

    if (swapped.retiredSchema) await db.query(`drop schema if exists ${swapped.retiredSchema} cascade`);
    const seconds = (Date.now() - started) / 1000;
    log.info({ projection: projection.name, generation: swapped.gen.generation, events: swapped.gen.appliedCount, seconds }, "projection rebuilt");
    return { status: "rebuilt", generation: swapped.gen.generation, events: swapped.gen.appliedCount, seconds };
  } finally {
    await lockHolder.query("select pg_advisory_unlock_all()").catch(() => {});
    lockHolder.release();
  }
}

/**
 * Makes sure every projection has a live generation of its current version: a new projection
 * starts empty and live; one whose version changed is rebuilt (the old one serves meanwhile).
 */
export async function prepareProjections(db: Db, projections: readonly Projection[], log: Logger): Promise<Projection[]> {
  const stale: Projection[] = [];
  for (const projection of projections) {
    const live: Generation | null = await withTransaction(db, async (tx) => {
      await tx.query("select pg_advisory_xact_lock(hashtext('projection-setup'), hashtext($1))", [projection.name]);
      return (await findLive(tx, projection.name)) ?? createGeneration(tx, projection, "live");
    });
    if (live.version !== projection.version) stale.push(projection);
  }
  await withTransaction(db, ensureClinicalViews);
  if (stale.length > 0) log.info({ projections: stale.map((p) => p.name) }, "projection versions changed; rebuilding by replay");
  return stale;
}

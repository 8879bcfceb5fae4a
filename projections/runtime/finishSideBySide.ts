import type { Logger } from "pino";
import { inTransaction, withTransaction, type Db, type Tx } from "../../db/pool.ts";
import { NO_EVENTS_WRITTEN_SQL } from "./applyBatch.ts";
import { analyzeTables, type Generation } from "./generations.ts";
import { deferredIndexSteps, completeDeferredIndexes } from "./deferredIndexes.ts";
import type { Projection } from "./projection.ts";

/*
 * A rebuild's finish (Projection.finishLoad, and the indexes its load deferred) over millions of
 * rows is a few long statements, each on one core of the server: the item rows' three indexes,
 * the month summaries, the latest results.
 * Run one after the other they took 210 s at two million reports while the server's second core
 * stood idle (issue #35, deliverable 4); the steps are independent, so the rebuild runs them side
 * by side, each in a transaction of its own. Two at a time: the machines this runs on have two
 * cores or more, and each step beyond the cores only queues for one.
 */
export const FINISH_STEPS_AT_ONCE = 2;

/**
 * Runs `projection`'s finish steps on `gen` (a building generation whose load is committed and
 * which nothing else writes meanwhile), at most `atOnce` at a time in their declared order, then
 * the index builds its load deferred, then gathers its tables' statistics. A step that fails
 * fails the rebuild, once every step begun has ended: the generation is discarded by the next
 * attempt, so none may still be running then.
 */
export async function finishSideBySide(
  db: Db,
  projection: Projection,
  gen: Pick<Generation, "schemaName">,
  log: Logger,
  held?: Tx,
  atOnce = FINISH_STEPS_AT_ONCE,
): Promise<void> {
  const deferred = await withTransaction(db, (tx) => deferredIndexSteps(tx, gen.schemaName));
  const steps = [...(projection.finishLoad ?? []), ...deferred];
  const failures: unknown[] = [];
  // The first slot runs on `held` when given (the rebuild's idle lock-holding session): a rebuild
  // then holds two connections while it finishes, as it does while it loads.
  const slot = async (index: number) => {
    const transaction = <T>(work: (tx: Tx) => Promise<T>) =>
      held && index === 0 ? inTransaction(held, work) : withTransaction(db, work);
    for (let step = steps.shift(); step && failures.length === 0; step = steps.shift()) {
      const started = performance.now();
      try {
        await transaction(async (tx) => {
          // Minutes of index building and counting: the store's readers need not wait for them.
          await tx.query(`${NO_EVENTS_WRITTEN_SQL}set local search_path to ${gen.schemaName}, public`);
          await step.run(tx);
        });
      } catch (error) {
        failures.push(error);
        return;
      }
      log.info(
        { projection: projection.name, step: step.name, seconds: (performance.now() - started) / 1000 },
        "rebuild finish step done",
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, atOnce) }, (_, index) => slot(index)));
  if (failures.length > 0) throw failures[0];
  await withTransaction(db, async (tx) => {
    await tx.query(NO_EVENTS_WRITTEN_SQL);
    await completeDeferredIndexes(tx, gen.schemaName);
    await analyzeTables(tx, projection, gen);
  });
}

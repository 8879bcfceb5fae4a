import type { StoredEvent } from "../../db/eventStore.ts";
import type { Db, Tx } from "../../db/pool.ts";
import type { Projection } from "../../projections/runtime/projection.ts";
import { prepareProjections } from "../../projections/runtime/rebuild.ts";
import { ProjectionRunner, type RunnerOptions } from "../../projections/runtime/runner.ts";
import { silentLogger } from "../../src/logger.ts";

/** Records every event it applies, one row each: a duplicate would violate the primary key. */
export function recordingProjection(
  name: string,
  handles: string[] = ["Counted"],
  poison?: (event: StoredEvent) => boolean,
): Projection {
  return {
    name,
    version: 1,
    handles,
    tables: [`${name}_seen`],
    async setup(tx: Tx) {
      await tx.query(`create table ${name}_seen (position bigint primary key, tenant text not null, n integer)`);
    },
    async apply(tx: Tx, event: StoredEvent) {
      if (poison?.(event)) throw new Error(`cannot apply event ${event.position}`);
      await tx.query(`insert into ${name}_seen values ($1, $2, $3)`, [
        event.position,
        event.tenant,
        (event.data as { n?: number }).n ?? null,
      ]);
    },
    async applyBatch(tx: Tx, events: StoredEvent[]) {
      const poisoned = events.find((event) => poison?.(event));
      if (poisoned) throw new Error(`cannot apply event ${poisoned.position}`);
      await tx.query(`insert into ${name}_seen select * from unnest($1::bigint[], $2::text[], $3::int[])`, [
        events.map((e) => e.position),
        events.map((e) => e.tenant),
        events.map((e) => (e.data as { n?: number }).n ?? null),
      ]);
    },
  };
}

/** recordingProjection(`name`) with its tables prepared on `db`, and a runner for it that has not run yet. */
export async function prepareRecording(
  db: Db,
  name: string,
  options?: RunnerOptions,
): Promise<{ projection: Projection; runner: ProjectionRunner }> {
  const projection = recordingProjection(name);
  await prepareProjections(db, [projection], silentLogger);
  return { projection, runner: new ProjectionRunner(db, projection, silentLogger, options) };
}

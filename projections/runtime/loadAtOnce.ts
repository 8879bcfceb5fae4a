import type { Logger } from "pino";
import type { Tx } from "../../db/pool.ts";
import { isTransient } from "../../db/transientErrors.ts";
import { NO_EVENTS_WRITTEN_SQL } from "./applyBatch.ts";
import type { Checkpoint } from "./eventFeed.ts";
import { saveProgress, type Generation } from "./generations.ts";
import type { Projection } from "./projection.ts";

/*
 * A rebuild's load by set (issue #35, deliverable 4): a projection that can build its tables from
 * every event at once (Projection.loadThrough) does so up to the last event readable now, in the
 * transaction that records that event as its checkpoint; the events past it are applied batch by
 * batch as before. At two million reports the item rows' batches of 5,000 took 218 s to write
 * what one statement writes in 90 s.
 */

/** The last event a reader may take now, in the feed's order (eventFeed.ts), and how many events lie up to it. */
const THROUGH_SQL = `
  select last.transaction_id::text as transaction_id, last.position,
         (select count(*) from events where (transaction_id, position) <= (last.transaction_id, last.position)) as events
  from (select transaction_id, position from events
        where transaction_id < (select events_read_horizon())
        order by transaction_id desc, position desc
        limit 1) last`;

/**
 * Loads `gen` (its row locked by the caller in `tx`) through the last readable event, and resolves
 * with the number of events that covers; 0 when the projection cannot load by set, the store
 * holds nothing readable, or the load failed on something other than a fault of the database (the
 * batches then apply the same events and stop at the one at fault).
 */
export async function loadAtOnce(tx: Tx, projection: Projection, gen: Generation, log: Logger): Promise<number> {
  // Only an empty generation: every event up to `through` is applied by the load.
  if (!projection.loadThrough || gen.checkpoint.position !== 0) return 0;
  const { rows } = await tx.query(THROUGH_SQL);
  if (rows.length === 0) return 0;
  const through: Checkpoint = { transactionId: rows[0].transaction_id, position: Number(rows[0].position) };
  const events = Number(rows[0].events);
  // The progress bar moves only once the load commits: minutes at millions of reports.
  log.info(
    { projection: projection.name, through: through.position, events },
    "loading by set through the last readable event",
  );
  await tx.query(
    `${projection.emits?.length ? "" : NO_EVENTS_WRITTEN_SQL}savepoint load; set local search_path to ${gen.schemaName}, public`,
  );
  try {
    await projection.loadThrough(tx, through);
  } catch (error) {
    await tx.query("rollback to savepoint load; set local search_path to default");
    if (isTransient(error)) throw error;
    log.warn(
      { projection: projection.name, err: error },
      "loading by set failed; applying the events in batches instead",
    );
    return 0;
  }
  await tx.query("set local search_path to default");
  await saveProgress(tx, gen, through, events);
  gen.checkpoint = through;
  return events;
}

/** A load's parameters $1 and $2: the last event it covers (Projection.loadThrough's `through`). */
export const throughParams = (through: Checkpoint): [string, number] => [through.transactionId, through.position];

/** The events up to a load's `through` ($1, $2: throughParams), as a condition on an `events` row aliased `alias`. */
export const upTo = (alias: string) => `(${alias}.transaction_id, ${alias}.position) <= ($1::xid8, $2::bigint)`;

/** Each stream's last event of `types` (names from code, never input) up to a load's `through`, as a parenthesised subquery of `events` rows. */
export const lastOfEachStream = (types: readonly string[]) =>
  `(select distinct on (tenant, stream_id) * from events e
    where e.type in (${types.map((type) => `'${type}'`).join(", ")}) and ${upTo("e")}
    order by tenant, stream_id, stream_version desc)`;

import type pg from "pg";
import { toStoredEvent, type StoredEvent } from "../db/eventStore.ts";

/** Where a reader stands in the global order: the last event it applied. */
export interface Checkpoint {
  transactionId: string;
  position: number;
}

export const START: Checkpoint = { transactionId: "0", position: 0 };

/*
 * Gap-free reading. `position` comes from a sequence, and sequence values are handed out when a
 * row is inserted, not when its transaction commits: a transaction holding position 7 may commit
 * after another has committed position 8. A reader that remembered "I am past 8" would skip 7
 * forever. So readers order by the writing transaction's id (xid8) first, and only read events
 * of transactions older than the oldest transaction still running (the snapshot's xmin): every
 * transaction below xmin has finished, so no event can appear later below the checkpoint
 * (transaction id, position). Any event of a newer transaction is left for a later read.
 * This is the technique used by Marten, Eventuous and Emmett.
 *
 * The text copy of the id is selected under another name on purpose: were it called
 * `transaction_id`, ORDER BY would sort by that text column ("100003" < "99999").
 *
 * Events of types the reader does not handle are still read (the checkpoint must move past
 * them) but without their payload; of the handled ones, the reader names what it wants
 * (`payload`, an SQL expression over the row: a projection's constant, never outside input).
 */
function readSql(payload: string): string {
  return `
  select position, transaction_id::text as transaction_id_text, tenant, stream_id, stream_version, type,
         case when type = any($4::text[]) then ${payload} end as data, metadata, recorded_at
  from events
  where (transaction_id, position) > ($1::xid8, $2::bigint)
    and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  order by transaction_id, position
  limit $3`;
}

export async function readAfter(
  db: Pick<pg.ClientBase, "query">,
  after: Checkpoint,
  limit: number,
  handledTypes: readonly string[],
  payload = "data",
): Promise<StoredEvent[]> {
  const { rows } = await db.query(readSql(payload), [after.transactionId, after.position, limit, handledTypes]);
  return rows.map(toStoredEvent);
}

/** True when events exist past the checkpoint that are not readable yet (their writers are still open or just committed). */
export async function hasEventsAfter(db: Pick<pg.ClientBase, "query">, after: Checkpoint): Promise<boolean> {
  const { rows } = await db.query(
    "select exists (select 1 from events where (transaction_id, position) > ($1::xid8, $2::bigint)) as more",
    [after.transactionId, after.position],
  );
  return rows[0].more === true;
}

export function checkpointOf(event: StoredEvent): Checkpoint {
  return { transactionId: event.transactionId, position: event.position };
}

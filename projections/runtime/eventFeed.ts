import type pg from "pg";
import { toStoredEvent, type StoredEvent } from "../../db/eventStore.ts";

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
 * of transactions older than the oldest transaction still running that could write them: every
 * transaction below that horizon has finished, so no event can appear later below the checkpoint
 * (transaction id, position). Any event of a newer transaction is left for a later read.
 * This is the technique used by Marten, Eventuous and Emmett, with one refinement: the horizon
 * (`events_read_horizon()`, migration 0009) passes over transactions running in other databases
 * of the server, which cannot write these events, so another application's long transaction does
 * not hold this store's readers back; and (migration 0015) over transactions that declared they
 * write no events, as every projection's batch that emits none does (applyBatch.ts), so the read
 * models no longer wait for one another's batches. A scalar subquery, worked out once per read.
 *
 * The text copy of the id is selected under another name on purpose: were it called
 * `transaction_id`, ORDER BY would sort by that text column ("100003" < "99999").
 *
 * A reader passes over events of types it does not handle: the database scans them (the
 * checkpoint must move past them) but returns only the handled ones, and the last event scanned,
 * so the checkpoint can move to it; that one comes without its payload when not handled. Of the
 * handled ones, the reader names what it wants (`payload`, an SQL expression over the row: a
 * projection's constant, never outside input).
 */
function readSql(payload: string): string {
  return `
  with scanned as materialized (
    select position as at, transaction_id as tx, type as kind, owner,
           row_number() over (order by transaction_id, position) as passed, count(*) over () as scanned
    from (select position, transaction_id, type, tenant as owner from events
          where (transaction_id, position) > ($1::xid8, $2::bigint)
            and transaction_id < (select events_read_horizon())
            and ($7::xid8 is null or (transaction_id, position) <= ($7::xid8, $8::bigint))
          order by transaction_id, position
          limit $3) page
  )
  select position, transaction_id::text as transaction_id_text, tenant, stream_id, stream_version, type,
         case when handled then ${payload} end as data,
         case when handled then metadata end as metadata,
         recorded_at, passed, scanned, handled
  from scanned
  cross join lateral (select kind = any($4::text[]) and not (owner = any($5::text[])) and ($6::text is null or owner = $6) as handled) h
  join events on position = at
  where handled or passed = scanned
  order by tx, at`;
}

/** Which events of the page a reader takes (besides their types): none of tenants held back, or only one tenant's, up to a point. */
export interface FeedFilter {
  /** Tenants whose events the reader passes over (held back in it: projection_quarantines). */
  skipTenants?: readonly string[];
  /** Only this tenant's events (a held-back tenant catching up). */
  onlyTenant?: string;
  /** No event past this one. */
  until?: Checkpoint;
}

export interface FeedPage {
  /** The handled events in order, and last the last event scanned when the reader does not handle it. */
  events: StoredEvent[];
  /** For each of `events`, how many events the page passed up to and including it. */
  passed: number[];
  /** For each of `events`, whether the reader takes it (false only for a last event scanned that it passes over). */
  handled: boolean[];
  /** How many events the page passed in all, handled or not. */
  scanned: number;
}

export async function readAfter(
  db: Pick<pg.ClientBase, "query">,
  after: Checkpoint,
  limit: number,
  handledTypes: readonly string[],
  payload = "data",
  filter: FeedFilter = {},
): Promise<FeedPage> {
  const { rows } = await db.query(readSql(payload), [
    after.transactionId,
    after.position,
    limit,
    handledTypes,
    filter.skipTenants ?? [],
    filter.onlyTenant ?? null,
    filter.until?.transactionId ?? null,
    filter.until?.position ?? null,
  ]);
  return {
    events: rows.map(toStoredEvent),
    passed: rows.map((row) => Number(row.passed)),
    handled: rows.map((row) => row.handled === true),
    scanned: rows.length ? Number(rows[0].scanned) : 0,
  };
}

/*
 * Whether any event lies past a checkpoint. Not `exists (…)`: with no statistics on events (a new
 * store before its first ANALYZE, or a server with autovacuum off) the planner expects a third of
 * the rows past any point and scans the table for the first one, reading every row when there is
 * none: 7 ms at 100,000 events, after every batch of every projection (issue #35). The first row
 * in the index's order, by ORDER BY … LIMIT 1, is read from the index whatever the statistics say.
 */
export const EVENTS_AFTER_SQL =
  "select (select position from events where (transaction_id, position) > ($1::xid8, $2::bigint) order by " +
  "transaction_id, position limit 1) is not null as more";

/** True when events exist past the checkpoint that are not readable yet (their writers are still open or just committed). */
export async function hasEventsAfter(db: Pick<pg.ClientBase, "query">, after: Checkpoint): Promise<boolean> {
  const { rows } = await db.query(EVENTS_AFTER_SQL, [after.transactionId, after.position]);
  return rows[0].more === true;
}

export function checkpointOf(event: StoredEvent): Checkpoint {
  return { transactionId: event.transactionId, position: event.position };
}

import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import { isTransient } from "../../db/transientErrors.ts";
import { checkpointOf, hasEventsAfter, readAfter, type FeedPage } from "./eventFeed.ts";
import { recordError, saveProgress, type Generation } from "./generations.ts";
import type { ApplyContext, Projection, TransactionalJobs } from "./projection.ts";

/**
 * - `applied`: a batch was applied (`full` when there may be more right behind it; when it was
 *   not full, `heldBack` says whether events past it wait behind transactions still open);
 * - `idle`: nothing left to read;
 * - `waiting`: events exist but their transactions are not all finished yet: look again shortly;
 * - `failed`: the projection threw on an event; it stops there with the error recorded (`code`:
 *   its SQLSTATE when the database raised it).
 */
export type BatchOutcome =
  | { kind: "applied"; count: number; full: boolean; heldBack?: boolean }
  | { kind: "idle" }
  | { kind: "waiting" }
  | { kind: "failed"; position: number; message: string; code: string | null };

/**
 * Declares that this transaction appends no event, so that the readers of the store do not wait for
 * it (events_read_horizon, migration 0015): a projection that emits none writes its read tables
 * only. Taken before the batch's first write, for the whole transaction; it gives the transaction
 * its id, which the batch's writes would a moment later.
 */
export const NO_EVENTS_WRITTEN_SQL = "select pg_advisory_xact_lock(1145569333, (pg_current_xact_id()::text::bigint & 4294967295)::bit(32)::int); ";

/**
 * Applies the next batch to a generation whose row the caller has locked in `tx`. The projection's
 * writes and the checkpoint commit together, so each event takes effect exactly once.
 */
export async function applyNextBatch(tx: Tx, projection: Projection, gen: Generation, batchSize: number, loading = false, jobs?: TransactionalJobs): Promise<BatchOutcome> {
  const read = await readAfter(tx, gen.checkpoint, batchSize, projection.handles, projection.payload);
  const page = cutAfterFirst(read, projection.batchEndsAfter);
  const { events } = page;
  if (events.length === 0) {
    return (await hasEventsAfter(tx, gen.checkpoint)) ? { kind: "waiting" } : { kind: "idle" };
  }
  // A page cut short has more behind it, as a full one may.
  const full = page.scanned === batchSize || page !== read;
  // Asked only of a projection that can use it: one more look at the events index a batch.
  const behind = full && !loading && projection.afterBatch !== undefined && (await hasEventsAfter(tx, checkpointOf(events.at(-1)!)));
  const context: ApplyContext = { loading, jobs, behind };
  const handled = events.filter((event) => projection.handles.includes(event.type));
  // One round trip for all (the schema name is the generation's own, never outside input).
  await tx.query(`${projection.emits?.length ? "" : NO_EVENTS_WRITTEN_SQL}savepoint batch; set local search_path to ${gen.schemaName}, public`);
  try {
    await applyAll(tx, projection, handled, context);
    if (!loading) await projection.afterBatch?.(tx, context);
  } catch (error) {
    await tx.query("rollback to savepoint batch");
    // A fault of the database (disk full, a deadlock, a lost connection) is no event's fault:
    // the runner pauses and tries the batch again, instead of stopping the projection for good.
    if (isTransient(error)) throw error;
    return applyUntilFailure(tx, projection, gen, page, context);
  }
  await tx.query("set local search_path to default");
  const last = checkpointOf(events.at(-1)!);
  await saveProgress(tx, gen, last, page.scanned);
  gen.checkpoint = last;
  // A batch short of full read everything readable: asked here, in the same transaction, whether
  // more waits behind open transactions, the runner need not open another one to find out (it
  // did, after every wake-up: about a third of a projection's round trips under load, issue #35).
  if (full) return { kind: "applied", count: page.scanned, full };
  return { kind: "applied", count: page.scanned, full, heldBack: await hasEventsAfter(tx, last) };
}

/** The page up to and including its first event of `types` (the page itself when it has none before its end). */
function cutAfterFirst(page: FeedPage, types: readonly string[] | undefined): FeedPage {
  if (!types) return page;
  const at = page.events.findIndex((event) => types.includes(event.type));
  if (at < 0 || at === page.events.length - 1) return page;
  return { events: page.events.slice(0, at + 1), passed: page.passed.slice(0, at + 1), scanned: page.passed[at]! };
}

async function applyAll(tx: Tx, projection: Projection, events: StoredEvent[], context: ApplyContext): Promise<void> {
  if (events.length === 0) return;
  if (projection.applyBatch) return projection.applyBatch(tx, events, context);
  for (const event of events) await projection.apply(tx, event);
}

/** The slow path after a failed batch: one savepoint per event finds the event that fails. */
async function applyUntilFailure(tx: Tx, projection: Projection, gen: Generation, { events, passed }: FeedPage, context: ApplyContext): Promise<BatchOutcome> {
  await tx.query(`set local search_path to ${gen.schemaName}, public`);
  let applied = 0;
  let failure: { position: number; message: string; code: string | null } | null = null;
  for (const event of events) {
    if (projection.handles.includes(event.type)) {
      await tx.query("savepoint one_event");
      try {
        await applyAll(tx, projection, [event], context);
        await tx.query("release savepoint one_event");
      } catch (error) {
        await tx.query("rollback to savepoint one_event");
        if (isTransient(error)) throw error;
        failure = { position: event.position, message: describe(error), code: sqlstateOf(error) };
        break;
      }
    }
    applied += 1;
  }
  // What earlier batches left for later is completed here too: this path ends the run.
  if (!context.loading && failure === null) await projection.afterBatch?.(tx, { ...context, behind: false });
  await tx.query("set local search_path to default");
  if (applied > 0) {
    const last = checkpointOf(events[applied - 1]!);
    await saveProgress(tx, gen, last, passed[applied - 1]!);
    gen.checkpoint = last;
  }
  if (!failure) return { kind: "applied", count: applied > 0 ? passed[applied - 1]! : 0, full: false };
  await recordError(tx, gen, failure);
  return { kind: "failed", ...failure };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The SQLSTATE of an error the database raised; null for any other (a Node error's code is no SQLSTATE). */
function sqlstateOf(error: unknown): string | null {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

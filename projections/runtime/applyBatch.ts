import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import { isTransient } from "../../db/transientErrors.ts";
import { checkpointOf, hasEventsAfter, readAfter, type FeedPage } from "./eventFeed.ts";
import {
  advanceQuarantine,
  liftQuarantine,
  quarantineTenant,
  saveProgress,
  type EventFailure,
  type Generation,
  type Quarantine,
} from "./generations.ts";
import type { ApplyContext, Projection, TransactionalJobs } from "./projection.ts";

/**
 * - `applied`: a batch was applied (`full` when there may be more right behind it; when it was
 *   not full, `heldBack` says whether events past it wait behind transactions still open);
 * - `quarantined`: as `applied`, but an event of each tenant in `held` failed for good (not a fault
 *   of the database): that tenant is held back in this projection from that event on, every other
 *   tenant's events were applied (contract E.6). Also the outcome of a held-back tenant's retry
 *   that failed again (`full`: the runner goes on with its batches);
 * - `released`: a held-back tenant's retry applied its waiting events; it is held back no more;
 * - `idle`: nothing left to read;
 * - `waiting`: events exist but their transactions are not all finished yet: look again shortly.
 */
export type BatchOutcome =
  | { kind: "applied"; count: number; full: boolean; heldBack?: boolean }
  | { kind: "quarantined"; count: number; full: boolean; heldBack?: boolean; held: HeldTenant[] }
  | { kind: "released"; count: 0; full: true; tenant: string; events: number }
  | { kind: "idle" }
  | { kind: "waiting" };

/** A tenant held back at an event that failed (`message` is for the server's log at most: it may quote a value). */
export interface HeldTenant extends EventFailure {
  tenant: string;
}

/**
 * Declares that this transaction appends no event, so that the readers of the store do not wait for
 * it (events_read_horizon, migration 0015): a projection that emits none writes its read tables
 * only. Taken before the batch's first write, for the whole transaction; it gives the transaction
 * its id, which the batch's writes would a moment later.
 */
export const NO_EVENTS_WRITTEN_SQL =
  "select pg_advisory_xact_lock(1145569333, (pg_current_xact_id()::text::bigint & 4294967295)::bit(32)::int); ";

/**
 * Applies the next batch to a generation whose row the caller has locked in `tx`. The projection's
 * writes and the checkpoint commit together, so each event takes effect exactly once. A held-back
 * tenant whose retry is due goes first, in a transaction of its own.
 */
export async function applyNextBatch(
  tx: Tx,
  projection: Projection,
  gen: Generation,
  batchSize: number,
  loading = false,
  jobs?: TransactionalJobs,
): Promise<BatchOutcome> {
  const due = gen.quarantined.find((held) => held.due);
  if (due) return retryHeldTenant(tx, projection, gen, due, batchSize, { loading, jobs, behind: false });
  const skipTenants = gen.quarantined.map((held) => held.tenant);
  const read = await readAfter(tx, gen.checkpoint, batchSize, projection.handles, projection.payload, { skipTenants });
  const page = cutAfterFirst(read, projection.batchEndsAfter);
  const { events } = page;
  if (events.length === 0) {
    return (await hasEventsAfter(tx, gen.checkpoint)) ? { kind: "waiting" } : { kind: "idle" };
  }
  // A page cut short has more behind it, as a full one may.
  const full = page.scanned === batchSize || page !== read;
  // Asked only of a projection that can use it: one more look at the events index a batch.
  const behind =
    full && !loading && projection.afterBatch !== undefined && (await hasEventsAfter(tx, checkpointOf(events.at(-1)!)));
  const context: ApplyContext = { loading, jobs, behind };
  const handled = events.filter((_, at) => page.handled[at]);
  // One round trip for all (the schema name is the generation's own, never outside input).
  await tx.query(
    `${projection.emits?.length ? "" : NO_EVENTS_WRITTEN_SQL}savepoint batch; set local search_path to ${gen.schemaName}, public`,
  );
  try {
    await applyAll(tx, projection, handled, context);
    if (!loading) await projection.afterBatch?.(tx, context);
  } catch (error) {
    await tx.query("rollback to savepoint batch");
    // A fault of the database (disk full, a deadlock, a lost connection) is no event's fault:
    // the runner pauses and tries the batch again, instead of holding a tenant back for good.
    if (isTransient(error)) throw error;
    return applyHoldingBack(tx, projection, gen, page, context, full);
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

/** The page up to and including its first event of `types` it takes (the page itself when it has none before its end). */
function cutAfterFirst(page: FeedPage, types: readonly string[] | undefined): FeedPage {
  if (!types) return page;
  const at = page.events.findIndex((event, index) => page.handled[index] && types.includes(event.type));
  if (at < 0 || at === page.events.length - 1) return page;
  return {
    events: page.events.slice(0, at + 1),
    passed: page.passed.slice(0, at + 1),
    handled: page.handled.slice(0, at + 1),
    scanned: page.passed[at]!,
  };
}

async function applyAll(tx: Tx, projection: Projection, events: StoredEvent[], context: ApplyContext): Promise<void> {
  if (events.length === 0) return;
  if (projection.applyBatch) return projection.applyBatch(tx, events, context);
  for (const event of events) await projection.apply(tx, event);
}

/** One event in a savepoint of its own: the failure when it failed for good (a fault of the database is thrown). */
async function applyOne(
  tx: Tx,
  projection: Projection,
  event: StoredEvent,
  context: ApplyContext,
): Promise<EventFailure | null> {
  await tx.query("savepoint one_event");
  try {
    await applyAll(tx, projection, [event], context);
    await tx.query("release savepoint one_event");
    return null;
  } catch (error) {
    await tx.query("rollback to savepoint one_event");
    if (isTransient(error)) throw error;
    return { position: event.position, message: describe(error), code: sqlstateOf(error) };
  }
}

/**
 * The slow path after a failed batch: one savepoint per event finds each event that fails, holds
 * its tenant back from there on, and applies every other tenant's events of the page (E.6: one
 * tenant's event that fails every try never stops another's progress).
 */
async function applyHoldingBack(
  tx: Tx,
  projection: Projection,
  gen: Generation,
  page: FeedPage,
  context: ApplyContext,
  full: boolean,
): Promise<BatchOutcome> {
  await tx.query(`set local search_path to ${gen.schemaName}, public`);
  const held: HeldTenant[] = [];
  for (const [at, event] of page.events.entries()) {
    if (!page.handled[at] || held.some((h) => h.tenant === event.tenant)) continue;
    const failure = await applyOne(tx, projection, event, context);
    if (!failure) continue;
    await quarantineTenant(tx, gen, event.tenant, checkpointOf(event), failure);
    // The caller may apply another batch with this same generation (a rebuild's swap does).
    gen.quarantined.push({
      tenant: event.tenant,
      after: { transactionId: event.transactionId, position: event.position - 1 },
      due: false,
    });
    held.push({ tenant: event.tenant, ...failure });
  }
  // What earlier batches left for later is completed here too.
  if (!context.loading) await projection.afterBatch?.(tx, { ...context, behind: false });
  await tx.query("set local search_path to default");
  const last = checkpointOf(page.events.at(-1)!);
  await saveProgress(tx, gen, last, page.scanned);
  gen.checkpoint = last;
  const heldBack = full ? undefined : await hasEventsAfter(tx, last);
  if (held.length === 0) return { kind: "applied", count: page.scanned, full, heldBack };
  return { kind: "quarantined", count: page.scanned, full, heldBack, held };
}

/**
 * A held-back tenant's try: its waiting events, up to the generation's checkpoint, a page at a
 * time, applied one by one in order. The first that fails again keeps it held back from there
 * (with a longer pause); a try that reaches the checkpoint lifts it, in the transaction that
 * holds the generation, so the next batch takes the tenant's events with everyone's.
 */
async function retryHeldTenant(
  tx: Tx,
  projection: Projection,
  gen: Generation,
  held: Quarantine,
  batchSize: number,
  context: ApplyContext,
): Promise<BatchOutcome> {
  const page = await readAfter(tx, held.after, batchSize, projection.handles, projection.payload, {
    onlyTenant: held.tenant,
    until: gen.checkpoint,
  });
  await tx.query(
    `${projection.emits?.length ? "" : NO_EVENTS_WRITTEN_SQL}set local search_path to ${gen.schemaName}, public`,
  );
  let applied = 0;
  for (const [at, event] of page.events.entries()) {
    if (!page.handled[at]) continue;
    const failure = await applyOne(tx, projection, event, context);
    if (failure) {
      await tx.query("set local search_path to default");
      await quarantineTenant(tx, gen, held.tenant, checkpointOf(event), failure);
      held.after = { transactionId: event.transactionId, position: event.position - 1 };
      held.due = false;
      return { kind: "quarantined", count: 0, full: true, held: [{ tenant: held.tenant, ...failure }] };
    }
    applied += 1;
  }
  if (!context.loading && applied > 0) await projection.afterBatch?.(tx, context);
  await tx.query("set local search_path to default");
  if (page.scanned === batchSize) {
    held.after = checkpointOf(page.events.at(-1)!);
    await advanceQuarantine(tx, gen, held.tenant, held.after);
    return { kind: "applied", count: 0, full: true };
  }
  await liftQuarantine(tx, gen, held.tenant);
  gen.quarantined = gen.quarantined.filter((other) => other !== held);
  return { kind: "released", count: 0, full: true, tenant: held.tenant, events: applied };
}
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The SQLSTATE of an error the database raised; null for any other (a Node error's code is no SQLSTATE). */
function sqlstateOf(error: unknown): string | null {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

import { hash } from "node:crypto";
import { z } from "zod";
import { localDateTimeText, localDateTime } from "./localDateTime.ts";
import { withTransaction, type Db } from "./pool.ts";

/*
 * Tamper evidence for the event store (contract D.2). Events are sealed in blocks in the order
 * projections read them (writing transaction id, then position), and only below the oldest
 * transaction still running: every event that will ever exist there already does, so a sealed
 * stretch is final. Each event's hash covers its position, tenant, stream, version, type, data,
 * metadata and recorded time; a block's root is the Merkle root of its events' hashes, and each
 * block names the previous block's root. Sealing runs on the workers, never on the append path,
 * one sealer at a time across processes (an advisory lock).
 */

/**
 * The hash of an events row `e`, in SQL: SHA-256 of the JSON text of
 * `jsonb_build_array(position, tenant, stream_id, stream_version, type, data, metadata, recorded_at
 * in microseconds since 1970)`, the same wherever and in whatever time zone it is computed. The
 * text is put together piece by piece rather than by building that array, which would copy every
 * payload once more: byte for byte the same text (jsonb writes nested values as it writes them
 * alone, `, ` between elements), in two thirds of the time.
 */
export const EVENT_HASH_SQL = `encode(sha256(convert_to('[' || e.position || ', ' || to_jsonb(e.tenant)::text || ', ' || to_jsonb(e.stream_id)::text || ', '
  || e.stream_version || ', ' || to_jsonb(e.type)::text || ', ' || e.data::text || ', ' || e.metadata::text || ', '
  || (extract(epoch from e.recorded_at) * 1000000)::bigint || ']', 'UTF8')), 'hex')`;

/** Events per block at most: a burst is sealed as several blocks, each one transaction. */
const MAX_BLOCK_EVENTS = 10_000;

/**
 * SHA-256 Merkle root of hex hashes: pairs hashed together level by level, an odd last node
 * carried up unchanged; the root of one hash is that hash.
 */
export function merkleRoot(hashes: readonly string[]): string {
  if (hashes.length === 0) throw new Error("a block has at least one event");
  let level: Buffer[] = hashes.map((hash) => Buffer.from(hash, "hex"));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? hash("sha256", Buffer.concat([level[i]!, level[i + 1]!]), "buffer") : level[i]!);
    }
    level = next;
  }
  return level[0]!.toString("hex");
}

export interface SealedBlock {
  no: number;
  events: number;
  root: string;
  /** The block before, when this block is the first sealed on a new local day: the root that day ended with. */
  closesDay?: { day: string; block: number; root: string };
}

/**
 * Seals every event that can be sealed now, as blocks of at most MAX_BLOCK_EVENTS; nothing when
 * another process is sealing. Returns the blocks sealed.
 */
export async function sealPending(db: Db): Promise<SealedBlock[]> {
  const sealed: SealedBlock[] = [];
  for (;;) {
    const block = await withTransaction(db, async (tx) => {
      const { rows: lock } = await tx.query("select pg_try_advisory_xact_lock(hashtext('ledger sealer')) as mine");
      if (!lock[0].mine) return null;
      const { rows: last } = await tx.query(
        "select no, root, last_tx::text as last_tx, last_tx_position, sealed_at, clock_timestamp() as now from ledger_blocks order by no desc limit 1",
      );
      const after = last[0] ?? { no: 0, root: null, last_tx: "0", last_tx_position: 0 };
      const { rows: events } = await tx.query(
        `select e.position, e.transaction_id::text as tx, ${EVENT_HASH_SQL} as hash
         from events e
         where (e.transaction_id, e.position) > ($1::xid8, $2::bigint) and e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         order by e.transaction_id, e.position
         limit ${MAX_BLOCK_EVENTS}`,
        [after.last_tx, after.last_tx_position],
      );
      if (events.length === 0) return null;
      const no = Number(after.no) + 1;
      const hashes = events.map((event) => event.hash as string);
      const root = merkleRoot(hashes);
      const positions = events.map((event) => Number(event.position));
      const end = events[events.length - 1]!;
      await tx.query(
        `insert into ledger_blocks (no, events, first_position, last_position, last_tx, last_tx_position, root, prev)
         values ($1, $2, $3, $4, $5::xid8, $6, $7, $8)`,
        [no, events.length, Math.min(...positions), Math.max(...positions), end.tx, end.position, root, after.root],
      );
      await tx.query(
        `insert into ledger_event_hashes (position, block_no, ordinal, hash)
         select position, $1, ordinal::integer, hash from unnest($2::bigint[], $3::text[]) with ordinality as h(position, hash, ordinal)`,
        [no, positions, hashes],
      );
      const [before, today] = after.sealed_at ? [localDateTime(after.sealed_at).slice(0, 10), localDateTime(after.now).slice(0, 10)] : [null, null];
      return { no, events: events.length, root, ...(before !== today ? { closesDay: { day: before!, block: Number(after.no), root: after.root } } : {}) };
    });
    if (!block) return sealed;
    sealed.push(block);
    if (block.events < MAX_BLOCK_EVENTS) return sealed;
  }
}

const blockSchema = z.object({
  no: z.int(),
  root: z.string().meta({ description: "Hex SHA-256 Merkle root of the block's event hashes" }),
  prev: z.string().nullable().meta({ description: "The previous block's root (null for block 1)" }),
  sealedAt: localDateTimeText,
  firstPosition: z.int(),
  lastPosition: z.int(),
});

export const ledgerSummarySchema = z.object({
  blocks: z.int(),
  events: z.int().meta({ description: "Events sealed in all" }),
  lastBlock: blockSchema.nullable(),
});
export type LedgerSummary = z.infer<typeof ledgerSummarySchema>;

export async function ledgerSummary(db: Db): Promise<LedgerSummary> {
  const { rows } = await db.query(
    `select (select count(*) from ledger_blocks)::int as block_count, (select coalesce(sum(events), 0) from ledger_blocks)::int as sealed_events,
            b.no, b.root, b.prev, b.sealed_at, b.first_position, b.last_position
     from (select 1) one left join (select * from ledger_blocks order by no desc limit 1) b on true`,
  );
  const row = rows[0];
  return {
    blocks: row.block_count,
    events: row.sealed_events,
    lastBlock:
      row.no === null
        ? null
        : { no: Number(row.no), root: row.root, prev: row.prev, sealedAt: localDateTime(row.sealed_at), firstPosition: Number(row.first_position), lastPosition: Number(row.last_position) },
  };
}

export interface UnsealedEvents {
  /** Counted up to the cap asked for. */
  events: number;
  /** Age of the oldest; 0 when every event is sealed. */
  oldestSeconds: number;
}

/** The events after the newest block's end, in sealing order: those no block holds yet. */
export async function unsealedEvents(db: Db, cap: number): Promise<UnsealedEvents> {
  const { rows } = await db.query(
    `with sealed as (select last_tx, last_tx_position from ledger_blocks order by no desc limit 1),
          after as (
            select e.recorded_at from events e
            where (e.transaction_id, e.position) > coalesce((select (last_tx, last_tx_position) from sealed), ('0'::xid8, 0::bigint))
            order by e.transaction_id, e.position limit $1)
     select count(*)::int as events, coalesce(extract(epoch from now() - min(recorded_at)), 0)::float8 as oldest_seconds from after`,
    [cap],
  );
  return { events: rows[0].events, oldestSeconds: rows[0].oldest_seconds };
}

export const ledgerProblemSchema = z.object({
  block: z.int(),
  position: z.int().optional(),
  kind: z.enum(["modified", "missing", "inserted", "chain"]),
});
export type LedgerProblem = z.infer<typeof ledgerProblemSchema>;

export const ledgerVerificationSchema = z.object({
  ok: z.boolean(),
  blocksChecked: z.int(),
  eventsChecked: z.int(),
  problems: z.array(ledgerProblemSchema),
});
export type LedgerVerification = z.infer<typeof ledgerVerificationSchema>;

/** How many problems one verification lists at most (a store rewritten wholesale would list millions). */
const MAX_PROBLEMS = 1000;

/**
 * Statements that recompute event hashes side by side, each over a stretch of positions: one
 * statement runs on one core (PostgreSQL 15 runs a join under a LIMIT as a serial merge join).
 * With the inserted-event check and the roots, VERIFY_STREAMS + 2 connections are busy at once.
 */
const VERIFY_STREAMS = 4;

/**
 * Checks every sealed block against the events as they are now: each event's hash recomputed
 * (modified), each sealed position still there (missing), no event written into a sealed stretch
 * afterwards (inserted), each block's root from its hashes and its link to the block before
 * (chain). The comparisons return only what differs, so nothing crosses the wire for an event
 * that is fine; they run side by side, over stretches of positions, while the roots are
 * computed block by block from the kept hashes.
 */
export async function verifyLedger(db: Db): Promise<LedgerVerification> {
  const problems: LedgerProblem[] = [];
  const report = (problem: LedgerProblem) => problems.length < MAX_PROBLEMS && problems.push(problem);
  const { rows: blocks } = await db.query(
    "select no, events, root, prev, first_position, last_position, last_tx::text as last_tx, last_tx_position from ledger_blocks order by no",
  );
  if (blocks.length === 0) return { ok: true, blocksChecked: 0, eventsChecked: 0, problems };
  const end = blocks[blocks.length - 1]!;
  const [changed, inserted, roots] = await Promise.all([
    Promise.all(positionStretches(blocks).map(([from, to]) => changedEvents(db, from, to))).then((parts) => parts.flat()),
    insertedEvents(db, end.last_tx, end.last_tx_position),
    checkRoots(db, blocks),
  ]);
  // An event found unsealed inside the sealed stretch belongs to the first block whose end is after it.
  const ends = blocks.map((block) => ({ no: Number(block.no), tx: BigInt(block.last_tx), position: Number(block.last_tx_position) }));
  const blockOf = (tx: bigint, position: number) => ends.find((block) => tx < block.tx || (tx === block.tx && position <= block.position))!.no;
  for (const row of changed) report({ block: Number(row.block_no), position: Number(row.position), kind: row.kind });
  for (const row of inserted) report({ block: blockOf(BigInt(row.tx), Number(row.position)), position: Number(row.position), kind: "inserted" });
  for (const block of roots.broken) report({ block, kind: "chain" });
  const eventsChecked = roots.eventsChecked;
  problems.sort((a, b) => a.block - b.block || (a.position ?? 0) - (b.position ?? 0));
  return { ok: problems.length === 0, blocksChecked: blocks.length, eventsChecked, problems };
}

/** The sealed positions cut into VERIFY_STREAMS stretches of about the same length. */
function positionStretches(blocks: Array<{ first_position: string | number; last_position: string | number }>): Array<[number, number]> {
  const first = Math.min(...blocks.map((block) => Number(block.first_position)));
  const last = Math.max(...blocks.map((block) => Number(block.last_position)));
  const step = Math.ceil((last - first + 1) / VERIFY_STREAMS);
  return Array.from({ length: VERIFY_STREAMS }, (_, i): [number, number] => [first + i * step, Math.min(last, first + (i + 1) * step - 1)]).filter(([from, to]) => from <= to);
}

/** Sealed events of a stretch of positions that are gone or whose hash is no longer the one sealed. */
async function changedEvents(db: Db, from: number, to: number): Promise<Array<{ block_no: string; position: string; kind: "modified" | "missing" }>> {
  const { rows } = await db.query(
    `select h.block_no, h.position, case when e.position is null then 'missing' else 'modified' end as kind
     from ledger_event_hashes h left join events e on e.position = h.position and e.position between $1 and $2
     where h.position between $1 and $2 and (e.position is null or h.hash <> ${EVENT_HASH_SQL})
     order by h.position limit ${MAX_PROBLEMS}`,
    [from, to],
  );
  return rows;
}

/** Events inside the sealed stretch (up to the newest block's end, in reading order) that no block holds. */
async function insertedEvents(db: Db, lastTx: string, lastTxPosition: string | number): Promise<Array<{ position: string; tx: string }>> {
  const { rows } = await db.query(
    `select e.position, e.transaction_id::text as tx
     from events e
     where (e.transaction_id, e.position) <= ($1::xid8, $2::bigint)
       and not exists (select 1 from ledger_event_hashes h where h.position = e.position)
     order by e.position limit ${MAX_PROBLEMS}`,
    [lastTx, lastTxPosition],
  );
  return rows;
}

/** Each block's root computed again from its kept hashes, and its link to the block before. */
async function checkRoots(db: Db, blocks: Array<{ no: string | number; events: number; root: string; prev: string | null }>): Promise<{ broken: number[]; eventsChecked: number }> {
  const broken: number[] = [];
  let eventsChecked = 0;
  let prevRoot: string | null = null;
  for (const block of blocks) {
    const { rows } = await db.query("select hash from ledger_event_hashes where block_no = $1 order by ordinal", [block.no]);
    const hashes = rows.map((row) => row.hash as string);
    eventsChecked += hashes.length;
    if (hashes.length !== Number(block.events) || hashes.length === 0 || merkleRoot(hashes) !== block.root || block.prev !== prevRoot) broken.push(Number(block.no));
    prevRoot = block.root;
  }
  return { broken, eventsChecked };
}

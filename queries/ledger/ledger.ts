import { z } from "zod";
import { EVENT_HASH_SQL, merkleRoot } from "../../db/ledger.ts";
import { localDateTimeText, localDateTime } from "../../db/localDateTime.ts";
import type { Db } from "../../db/pool.ts";

/*
 * The ledger read back (contract D.2): what is sealed, what waits to be, and whether every sealed
 * event still hashes to its block's root. db/ledger.ts seals; these read and verify.
 */

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
        : {
            no: Number(row.no),
            root: row.root,
            prev: row.prev,
            sealedAt: localDateTime(row.sealed_at),
            firstPosition: Number(row.first_position),
            lastPosition: Number(row.last_position),
          },
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
    Promise.all(positionStretches(blocks).map(([from, to]) => changedEvents(db, from, to))).then((parts) =>
      parts.flat(),
    ),
    insertedEvents(db, end.last_tx, end.last_tx_position),
    checkRoots(db, blocks),
  ]);
  // An event found unsealed inside the sealed stretch belongs to the first block whose end is after it.
  const ends = blocks.map((block) => ({
    no: Number(block.no),
    tx: BigInt(block.last_tx),
    position: Number(block.last_tx_position),
  }));
  const blockOf = (tx: bigint, position: number) =>
    ends.find((block) => tx < block.tx || (tx === block.tx && position <= block.position))!.no;
  for (const row of changed) report({ block: Number(row.block_no), position: Number(row.position), kind: row.kind });
  for (const row of inserted)
    report({ block: blockOf(BigInt(row.tx), Number(row.position)), position: Number(row.position), kind: "inserted" });
  for (const block of roots.broken) report({ block, kind: "chain" });
  const eventsChecked = roots.eventsChecked;
  problems.sort((a, b) => a.block - b.block || (a.position ?? 0) - (b.position ?? 0));
  return { ok: problems.length === 0, blocksChecked: blocks.length, eventsChecked, problems };
}

/** The sealed positions cut into VERIFY_STREAMS stretches of about the same length. */
function positionStretches(
  blocks: Array<{ first_position: string | number; last_position: string | number }>,
): Array<[number, number]> {
  const first = Math.min(...blocks.map((block) => Number(block.first_position)));
  const last = Math.max(...blocks.map((block) => Number(block.last_position)));
  const step = Math.ceil((last - first + 1) / VERIFY_STREAMS);
  return Array.from({ length: VERIFY_STREAMS }, (_, i): [number, number] => [
    first + i * step,
    Math.min(last, first + (i + 1) * step - 1),
  ]).filter(([from, to]) => from <= to);
}

/** Sealed events of a stretch of positions that are gone or whose hash is no longer the one sealed. */
async function changedEvents(
  db: Db,
  from: number,
  to: number,
): Promise<Array<{ block_no: string; position: string; kind: "modified" | "missing" }>> {
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
async function insertedEvents(
  db: Db,
  lastTx: string,
  lastTxPosition: string | number,
): Promise<Array<{ position: string; tx: string }>> {
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
async function checkRoots(
  db: Db,
  blocks: Array<{ no: string | number; events: number; root: string; prev: string | null }>,
): Promise<{ broken: number[]; eventsChecked: number }> {
  const broken: number[] = [];
  let eventsChecked = 0;
  let prevRoot: string | null = null;
  for (const block of blocks) {
    const { rows } = await db.query("select hash from ledger_event_hashes where block_no = $1 order by ordinal", [
      block.no,
    ]);
    const hashes = rows.map((row) => row.hash as string);
    eventsChecked += hashes.length;
    if (
      hashes.length !== Number(block.events) ||
      hashes.length === 0 ||
      merkleRoot(hashes) !== block.root ||
      block.prev !== prevRoot
    )
      broken.push(Number(block.no));
    prevRoot = block.root;
  }
  return { broken, eventsChecked };
}

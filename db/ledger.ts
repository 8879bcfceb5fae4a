import { hash } from "node:crypto";
import { localDateTime } from "./localDateTime.ts";
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
         where (e.transaction_id, e.position) > ($1::xid8, $2::bigint) and e.transaction_id < (select events_read_horizon())
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
      const [before, today] = after.sealed_at
        ? [localDateTime(after.sealed_at).slice(0, 10), localDateTime(after.now).slice(0, 10)]
        : [null, null];
      return {
        no,
        events: events.length,
        root,
        ...(before !== today ? { closesDay: { day: before!, block: Number(after.no), root: after.root } } : {}),
      };
    });
    if (!block) return sealed;
    sealed.push(block);
    if (block.events < MAX_BLOCK_EVENTS) return sealed;
  }
}

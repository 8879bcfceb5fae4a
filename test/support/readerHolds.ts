import type { Db } from "../../db/pool.ts";

/*
 * The longest transaction that holds back every reader of the event store: one with a transaction
 * id that has not declared it appends no events (the advisory lock of NO_EVENTS_WRITTEN_SQL,
 * projections/runtime/applyBatch.ts), as a reactor's batch or a command's append. Sampled from
 * pg_stat_activity (issue #52 finding 2).
 */
const LONGEST_SQL = `select extract(epoch from now() - xact_start) * 1000 as ms, left(query, 100) as query from pg_stat_activity a
  where datname = current_database() and backend_xid is not null and pid <> pg_backend_pid()
    and not exists (select 1 from pg_locks l where l.pid = a.pid and l.locktype = 'advisory' and l.classid = 1145569333)
  order by xact_start limit 1`;

export interface ReaderHold {
  ms: number;
  /** The statement it ran last when seen longest. */
  query: string;
}

/** Samples every `everyMs` until `stop()`, which resolves with the longest hold seen. */
export function sampleReaderHolds(db: Db, everyMs = 25): { stop(): Promise<ReaderHold> } {
  let longest: ReaderHold = { ms: 0, query: "" };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await db.query(LONGEST_SQL);
      if (rows[0] && Number(rows[0].ms) > longest.ms) longest = { ms: Number(rows[0].ms), query: rows[0].query };
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      sampling = false;
      await sampler;
      return longest;
    },
  };
}

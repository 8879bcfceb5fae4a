import pg from "pg";
import { until } from "./service.ts";

/*
 * A table held in ACCESS EXCLUSIVE mode by a transaction of the test's: whoever must read it (a
 * backup) waits, and can be caught waiting and cut off (pg_terminate_backend), as a server restart
 * or a network failure would cut it.
 */

export interface HeldTable {
  /** The backend waiting for the table, once there is one; fails as soon as `run` ends first. */
  waiter(run: Promise<unknown>): Promise<number>;
  /** Ends that backend's session, as a restart of the server would. */
  terminate(pid: number): Promise<void>;
  release(): Promise<void>;
}

export async function holdTable(url: string, table: string): Promise<HeldTable> {
  const holder = new pg.Client({ connectionString: url });
  // Apart from the holder: inside a transaction, pg_stat_activity stays as it was first read.
  const watcher = new pg.Client({ connectionString: url });
  await holder.connect();
  await watcher.connect();
  const { rows } = await holder.query<{ pid: number }>("select pg_backend_pid() as pid");
  const holderPid = rows[0]!.pid;
  await holder.query("begin");
  await holder.query(`lock table ${table} in access exclusive mode`);
  return {
    waiter(run) {
      let ended: unknown = null;
      void run.then((result) => (ended = result));
      return until(
        async () => {
          if (ended) throw new Error(`it ended before it waited: ${JSON.stringify(ended)}`);
          const { rows: waiting } = await watcher.query<{ pid: number }>(
            "select pid from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database() " +
              "and pid <> $1 and $1 = any(pg_blocking_pids(pid))",
            [holderPid],
          );
          return waiting[0]?.pid ?? null;
        },
        30_000,
        100,
      );
    },
    async terminate(pid) {
      await watcher.query("select pg_terminate_backend($1)", [pid]);
    },
    async release() {
      await holder.query("rollback").catch(() => {});
      await holder.end();
      await watcher.end();
    },
  };
}

import { execFile } from "node:child_process";
import { chmod, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { migrate } from "./migrate.ts";

/*
 * Backup and restore of what cannot be rebuilt: the events, the ledger's evidence (blocks and the
 * sealed hashes) and the bodies of bulk jobs not yet imported. Everything else is a projection,
 * rebuilt by replay after a restore, so a backup stays the size of the history.
 *
 * A backup is pg_dump's custom format of those tables' rows, taken in one snapshot while the
 * service runs. Restoring it somewhere else meets one thing pg_dump does not carry over: the
 * events' transaction ids (events.transaction_id, ledger_blocks.last_tx) are the source
 * cluster's. Readers only read below the oldest transaction still running and in (transaction
 * id, position) order (projections/runtime/eventFeed.ts), so restored ids above the new cluster's counter
 * would be unreadable, and new events would sort before them. The restore therefore takes as
 * many fresh transaction ids as the backup holds distinct ones and gives them out in the same
 * order: the reading order, the ledger's stretches and every event hash (which leave the id out)
 * stay what they were.
 */

const execFileAsync = promisify(execFile);

export const KEPT_TABLES = ["events", "ledger_blocks", "ledger_event_hashes", "bulk_job_bodies"] as const;

export class BackupError extends Error {}

/** PostgreSQL's client programs: from PG_BIN_DIR when set, else the PATH. */
function tool(name: "pg_dump" | "pg_restore", env: NodeJS.ProcessEnv): string {
  return env.PG_BIN_DIR ? path.join(env.PG_BIN_DIR, name) : name;
}

async function run(name: "pg_dump" | "pg_restore", args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await execFileAsync(tool(name, env), args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === "ENOENT") {
      throw new BackupError(`${name} was not found: install PostgreSQL's client programs of the server's major version or newer (Debian: apt-get install postgresql-client-<version>), or set PG_BIN_DIR to their folder.`);
    }
    throw new BackupError(`${name} failed: ${(failure.stderr ?? failure.message).trim()}`);
  }
}

export interface BackupSummary {
  file: string;
  bytes: number;
}

/** Writes the rows of KEPT_TABLES to `file` (pg_dump's custom format), consistent while the service runs. */
export async function backupTo(databaseUrl: string, file: string, env: NodeJS.ProcessEnv = process.env): Promise<BackupSummary> {
  // Patients' results are in it: readable by its owner alone from its first byte (pg_dump keeps
  // the mode of a file it writes over), not by whoever may read the folder it lands in.
  await writeFile(file, "", { mode: 0o600 });
  await chmod(file, 0o600);
  await run("pg_dump", ["--format=custom", "--data-only", ...KEPT_TABLES.map((table) => `--table=public.${table}`), `--file=${file}`, `--dbname=${databaseUrl}`], env);
  return { file, bytes: (await stat(file)).size };
}

export interface RestoreSummary {
  events: number;
  ledgerBlocks: number;
  /** Distinct writing transactions of the backup, each given a fresh id in the same order. */
  transactions: number;
}

/**
 * Restores a backup into an empty database: the schema by the migrations, then the rows, then
 * the transaction ids made this cluster's. The read models are left to the caller's replay.
 */
export async function restoreFrom(databaseUrl: string, file: string, env: NodeJS.ProcessEnv = process.env): Promise<RestoreSummary> {
  await stat(file).catch(() => {
    throw new BackupError(`${file} does not exist; name a file written by the backup command.`);
  });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("select count(*)::int as tables from pg_tables where schemaname not in ('pg_catalog', 'information_schema')");
    if (rows[0].tables > 0) {
      throw new BackupError(`restore needs an empty database, and this one holds ${rows[0].tables} tables: create a new one (createdb) and point DATABASE_URL at it.`);
    }
    await migrate(databaseUrl);
    // One transaction: a restore that fails leaves the database as the migrations made it.
    await run("pg_restore", ["--data-only", "--single-transaction", "--exit-on-error", "--no-owner", `--dbname=${databaseUrl}`, file], env);
    const transactions = await renumberTransactions(client);
    const { rows: counts } = await client.query("select (select count(*) from events)::int as events, (select count(*) from ledger_blocks)::int as blocks");
    return { events: counts[0].events, ledgerBlocks: counts[0].blocks, transactions };
  } finally {
    await client.end();
  }
}

/**
 * Gives the restored events' transactions ids of this cluster, below every transaction to come and
 * in their old order. The fresh ids are taken by committing one tiny transaction each (some
 * 150,000 a second); then one transaction rewrites the ids, the append-only triggers set aside
 * for it alone: the only change a restore makes to a stored row, and one no event hash covers.
 */
async function renumberTransactions(client: pg.Client): Promise<number> {
  await client.query("create unlogged table restore_fresh_xids (xid xid8 not null)");
  const { rows } = await client.query("select count(distinct transaction_id)::int as n from events");
  const count = rows[0].n as number;
  await client.query("set synchronous_commit = off");
  await client.query(`do $$ begin for i in 1..${count} loop insert into restore_fresh_xids values (pg_current_xact_id()); commit; end loop; end $$`);
  await client.query("reset synchronous_commit");
  await client.query("begin");
  try {
    await client.query(`
      create temporary table restore_xid_map on commit drop as
      select old.xid as old_xid, fresh.xid as new_xid
      from (select transaction_id as xid, row_number() over (order by transaction_id) as n from (select distinct transaction_id from events) t) old
      join (select xid, row_number() over (order by xid) as n from restore_fresh_xids) fresh using (n)`);
    await client.query("alter table events disable trigger events_no_update_or_delete");
    await client.query("alter table ledger_blocks disable trigger ledger_blocks_append_only");
    await client.query("update events e set transaction_id = m.new_xid from restore_xid_map m where e.transaction_id = m.old_xid");
    await client.query("update ledger_blocks b set last_tx = m.new_xid from restore_xid_map m where b.last_tx = m.old_xid");
    await client.query("alter table events enable trigger events_no_update_or_delete");
    await client.query("alter table ledger_blocks enable trigger ledger_blocks_append_only");
    await client.query("drop table restore_fresh_xids");
    await client.query("commit");
  } catch (error) {
    await client.query("rollback");
    throw error;
  }
  await client.query("vacuum (analyze) events");
  return count;
}

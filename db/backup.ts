import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { open, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { CopyFormatError, isCopyFormat, readCopyBackup, writeCopyBackup } from "./backupCopyFormat.ts";
import { migrate } from "./migrate.ts";
import { CLIENT_PROGRAMS_SOURCE, describeFound, findPrograms, type FoundProgram } from "./postgresClientPrograms.ts";

/*
 * Backup and restore of what cannot be rebuilt: the events, the ledger's evidence (blocks and the
 * sealed hashes), the bodies of bulk jobs not yet imported and when each credential was last used.
 * Everything else is a projection, rebuilt by replay after a restore, so a backup stays the size
 * of the history.
 *
 * A backup is pg_dump's custom format of those tables' rows, taken in one snapshot while the
 * service runs; when no pg_dump fits the server (the embedded PostgreSQL 18 beside a machine's
 * older client programs), the service takes the same snapshot itself (db/backupCopyFormat.ts).
 * Restoring it somewhere else meets one thing pg_dump does not carry over: the events' transaction
 * ids (events.transaction_id, ledger_blocks.last_tx) are the source cluster's. Readers only read
 * below the oldest transaction still running and in (transaction id, position) order
 * (projections/runtime/eventFeed.ts), so restored ids above the new cluster's counter would be
 * unreadable, and new events would sort before them. The restore therefore takes as many fresh
 * transaction ids as the backup holds distinct ones and gives them out in the same order: the
 * reading order, the ledger's stretches and every event hash (which leave the id out) stay what
 * they were.
 */

const execFileAsync = promisify(execFile);

/**
 * What a backup holds. `credential_uses` is not history either, but it cannot be rebuilt: without
 * it a restored installation would show every key and token as never used (lastUsedAt).
 */
export const KEPT_TABLES = [
  "events",
  "ledger_blocks",
  "ledger_event_hashes",
  "bulk_job_bodies",
  "credential_uses",
  // Received messages (contract G.5): what senders sent and were told, kept for no replay to rebuild.
  "messages",
] as const;

export class BackupError extends Error {}

async function run(program: FoundProgram, args: string[], signal?: AbortSignal): Promise<void> {
  try {
    await execFileAsync(program.path, args, { maxBuffer: 16 * 1024 * 1024, signal });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.name === "AbortError") throw error;
    throw new BackupError(
      `${path.basename(program.path)} ${program.major} failed: ${(failure.stderr ?? failure.message).trim()}`,
    );
  }
}

export interface BackupSummary {
  file: string;
  bytes: number;
  /** pg_dump (its custom format), or the service itself when no pg_dump fits the server (db/backupCopyFormat.ts). */
  writer: "pg_dump" | "service";
  /** Why the service wrote it itself, and how pg_dump would write it instead. */
  note?: string;
}

async function serverMajorOf(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ major: number }>(
    "select current_setting('server_version_num')::int / 10000 as major",
  );
  return rows[0]!.major;
}

/** What to install for client programs of PostgreSQL `major`, in one sentence's tail. */
function howToGet(major: number): string {
  return (
    `install PostgreSQL ${major}'s client programs (${CLIENT_PROGRAMS_SOURCE}; Debian and Ubuntu: ` +
    `postgresql-client-${major} from PostgreSQL's own apt repository) or set PG_BIN_DIR to their folder`
  );
}

/**
 * Writes the rows of KEPT_TABLES to `file`, consistent while the service runs: by a pg_dump of
 * the server's major version or newer when one is found (see db/postgresClientPrograms.ts), else
 * by the service itself. The backup is written under a temporary name beside `file` and renamed
 * once whole, so `file` is never a partial backup; the temporary file is removed on any failure.
 */
export async function backupTo(
  databaseUrl: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<BackupSummary> {
  const target = path.resolve(file);
  const partial = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(4).toString("hex")}.partial`,
  );
  // Patients' results are in it: readable by its owner alone from its first byte (pg_dump keeps
  // the mode of a file it writes over), not by whoever may read the folder it lands in.
  await (await open(partial, "wx", 0o600)).close();
  const client = new pg.Client({ connectionString: databaseUrl });
  // A connection lost while idle fails the next statement: that is where it is reported.
  client.on("error", () => {});
  // Stopped by the caller (Ctrl-C): also a statement still waiting, e.g. for a table's lock.
  const stopWaiting = () => void client.end().catch(() => {});
  signal?.addEventListener("abort", stopWaiting, { once: true });
  try {
    signal?.throwIfAborted();
    await client.connect();
    const serverMajor = await serverMajorOf(client);
    const found = await findPrograms("pg_dump", env);
    const dump = found.find((program) => program.major >= serverMajor);
    let summary: Omit<BackupSummary, "bytes">;
    if (dump) {
      await run(
        dump,
        [
          "--format=custom",
          "--data-only",
          ...KEPT_TABLES.map((table) => `--table=public.${table}`),
          `--file=${partial}`,
          `--dbname=${databaseUrl}`,
        ],
        signal,
      );
      summary = { file, writer: "pg_dump" };
    } else if (env.PG_BIN_DIR) {
      throw new BackupError(
        `PG_BIN_DIR holds ${describeFound("pg_dump", found)}, and the server is PostgreSQL ${serverMajor}: ` +
          `pg_dump must be of version ${serverMajor} or newer; ${howToGet(serverMajor)}, or unset PG_BIN_DIR to ` +
          "let the service write the backup itself.",
      );
    } else {
      await writeCopyBackup(client, KEPT_TABLES, partial, signal);
      summary = {
        file,
        writer: "service",
        note:
          `no pg_dump of PostgreSQL ${serverMajor} or newer was found (found: ` +
          `${describeFound("pg_dump", found)}), so the service wrote the backup itself, in a format the restore ` +
          `command reads; for pg_dump's format, ${howToGet(serverMajor)}`,
      };
    }
    await syncFile(partial);
    await rename(partial, target);
    return { ...summary, bytes: (await stat(target)).size };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    signal?.removeEventListener("abort", stopWaiting);
    await client.end().catch(() => {});
  }
}

/** On disk before its name is the backup's: a crash right after the rename must not leave an empty backup. */
async function syncFile(file: string): Promise<void> {
  const handle = await open(file, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface RestoreSummary {
  events: number;
  ledgerBlocks: number;
  /** Distinct writing transactions of the backup, each given a fresh id in the same order. */
  transactions: number;
}

/** The first bytes of a pg_dump custom-format archive. */
const PG_DUMP_MAGIC = "PGDMP";

/**
 * Restores a backup into an empty database: the schema by the migrations, then the rows, then
 * the transaction ids made this cluster's. The read models are left to the caller's replay.
 */
export async function restoreFrom(
  databaseUrl: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RestoreSummary> {
  const firstBytes = await readFirstBytes(file);
  const format = isCopyFormat(firstBytes)
    ? "service"
    : firstBytes.toString("latin1").startsWith(PG_DUMP_MAGIC)
      ? "pg_dump"
      : null;
  if (!format)
    throw new BackupError(
      `${file} is not a backup written by the backup command (neither pg_dump's custom format nor the service's own).`,
    );
  const restorer = format === "pg_dump" ? await pgRestoreFor(env) : null;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select count(*)::int as tables from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
    );
    if (rows[0].tables > 0) {
      throw new BackupError(
        `restore needs an empty database, and this one holds ${rows[0].tables} tables: create a new one (createdb) and point DATABASE_URL at it.`,
      );
    }
    await migrate(databaseUrl);
    // One transaction: a restore that fails leaves the database as the migrations made it.
    if (restorer) {
      await run(restorer, [
        "--data-only",
        "--single-transaction",
        "--exit-on-error",
        "--no-owner",
        `--dbname=${databaseUrl}`,
        file,
      ]).catch((error: unknown) => {
        if (error instanceof BackupError && /unsupported version/.test(error.message)) {
          throw new BackupError(
            `${error.message} (the backup was written by a pg_dump newer than ${restorer.major}: install that ` +
              `PostgreSQL's client programs, ${CLIENT_PROGRAMS_SOURCE}, or set PG_BIN_DIR to their folder)`,
          );
        }
        throw error;
      });
    } else {
      await client.query("begin");
      try {
        await readCopyBackup(client, file, KEPT_TABLES);
        await client.query("commit");
      } catch (error) {
        await client.query("rollback").catch(() => {});
        if (error instanceof CopyFormatError) throw new BackupError(`${file} cannot be restored: ${error.message}.`);
        throw error;
      }
    }
    const transactions = await renumberTransactions(client);
    const { rows: counts } = await client.query(
      "select (select count(*) from events)::int as events, (select count(*) from ledger_blocks)::int as blocks",
    );
    return { events: counts[0].events, ledgerBlocks: counts[0].blocks, transactions };
  } finally {
    await client.end();
  }
}

async function readFirstBytes(file: string): Promise<Buffer> {
  const handle = await open(file, "r").catch(() => {
    throw new BackupError(`${file} does not exist; name a file written by the backup command.`);
  });
  try {
    const buffer = Buffer.alloc(8);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The newest pg_restore found: any reads the archives of its own and older versions. */
async function pgRestoreFor(env: NodeJS.ProcessEnv): Promise<FoundProgram> {
  const [newest] = await findPrograms("pg_restore", env);
  if (!newest) {
    throw new BackupError(
      "this backup was written by pg_dump and needs pg_restore of that version or newer, and none was " +
        `found${env.PG_BIN_DIR ? " in PG_BIN_DIR" : ""}: install PostgreSQL's client programs ` +
        `(${CLIENT_PROGRAMS_SOURCE}; Debian and Ubuntu: postgresql-client) or set PG_BIN_DIR to their folder.`,
    );
  }
  return newest;
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
  await client.query(
    `do $$ begin for i in 1..${count} loop insert into restore_fresh_xids values (pg_current_xact_id()); commit; end loop; end $$`,
  );
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
    await client.query(
      "update events e set transaction_id = m.new_xid from restore_xid_map m where e.transaction_id = m.old_xid",
    );
    await client.query(
      "update ledger_blocks b set last_tx = m.new_xid from restore_xid_map m where b.last_tx = m.old_xid",
    );
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

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./privatePostgres.ts";

/*
 * A primary PostgreSQL and a streaming standby made from it with pg_basebackup, as real
 * processes of the machine's own PostgreSQL (Debian's binaries: the embedded package ships no
 * pg_basebackup). Each server is a child process of the test, so it can be killed outright.
 */

export interface ReplicatedPostgres {
  /** postgres://… of database `hub` on each server. */
  primaryUrl: string;
  standbyUrl: string;
  /** Both hosts, primary first, as a service given them for fail-over (libpq's multi-host URL). */
  bothUrl: string;
  /** Kills the primary with SIGKILL, as a lost server: no shutdown checkpoint, connections cut. */
  killPrimary(): void;
  /** Promotes the standby to primary and resolves once it accepts writes. */
  promoteStandby(): Promise<void>;
  remove(): Promise<void>;
}

/** The bin folder of the newest PostgreSQL installed with pg_basebackup, or null. */
export function postgresBinaries(): string | null {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter(
    (v) => existsSync(path.join(root, v, "bin", "pg_basebackup")) && existsSync(path.join(root, v, "bin", "postgres")),
  );
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : null;
}

/** PostgreSQL refuses to run as root: as root, its processes run as the postgres user. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  return {
    uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
    gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
  };
}

function run(bin: string, args: string[]): void {
  execFileSync(bin, args, { stdio: "pipe", ...(runAs() ?? {}) });
}

async function accepting(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query("select 1");
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** `applyDelayMs`: the standby applies each commit this late (recovery_min_apply_delay), as a replica under load would. */
export async function startReplicatedPostgres({
  synchronous,
  applyDelayMs = 0,
}: {
  synchronous: boolean;
  applyDelayMs?: number;
}): Promise<ReplicatedPostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("no PostgreSQL server binaries with pg_basebackup (apt-get install postgresql)");
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-replica-"));
  const owner = runAs();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primaryDir = path.join(dir, "primary");
  const standbyDir = path.join(dir, "standby");
  const servers = new Map<string, ChildProcess>();
  const start = (name: string, dataDir: string) => {
    const child = spawn(path.join(bin, "postgres"), ["-D", dataDir], { stdio: "ignore", ...(owner ?? {}) });
    servers.set(name, child);
  };

  run(path.join(bin, "initdb"), ["-D", primaryDir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"]);
  appendFileSync(
    primaryDir + "/postgresql.conf",
    [
      `port = ${primaryPort}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      "wal_level = replica",
      "max_wal_senders = 4",
      // The primary keeps the WAL its standby still needs while the standby is being made.
      "wal_keep_size = '256MB'",
      // Killed processes, not a lost machine: the OS keeps what was written.
      "fsync = off",
      "",
    ].join("\n"),
  );
  start("primary", primaryDir);
  const primaryServer = `postgres://postgres@127.0.0.1:${primaryPort}`;
  await accepting(`${primaryServer}/postgres`);
  const admin = new pg.Client({ connectionString: `${primaryServer}/postgres` });
  await admin.connect();
  await admin.query("create database hub");
  await admin.end();

  run(path.join(bin, "pg_basebackup"), [
    "-D",
    standbyDir,
    "-d",
    `host=127.0.0.1 port=${primaryPort} user=postgres application_name=standby1`,
    "-R",
    "-X",
    "stream",
    "--checkpoint=fast",
  ]);
  // Promoted, it stands alone: it must not wait for a standby of its own.
  appendFileSync(
    standbyDir + "/postgresql.conf",
    `port = ${standbyPort}\nhot_standby = on\nsynchronous_standby_names = ''\nrecovery_min_apply_delay = ${applyDelayMs}\n`,
  );
  start("standby", standbyDir);
  const standbyServer = `postgres://postgres@127.0.0.1:${standbyPort}`;
  await accepting(`${standbyServer}/hub`);
  // Synchronous only once the standby streams: until then every commit would wait for it.
  const primary = new pg.Client({ connectionString: `${primaryServer}/postgres` });
  await primary.connect();
  try {
    if (synchronous) {
      await primary.query("alter system set synchronous_standby_names = 'standby1'");
      await primary.query("select pg_reload_conf()");
    }
    const expected = synchronous ? "sync" : "async";
    for (const deadline = Date.now() + 30_000; ;) {
      const { rows } = await primary.query(
        "select sync_state from pg_stat_replication where application_name = 'standby1' and state = 'streaming'",
      );
      if (rows[0]?.sync_state === expected) break;
      if (Date.now() > deadline)
        throw new Error(`the standby is not streaming as ${expected}: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await primary.end();
  }

  return {
    primaryUrl: `${primaryServer}/hub`,
    standbyUrl: `${standbyServer}/hub`,
    bothUrl: `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/hub`,
    killPrimary() {
      servers.get("primary")?.kill("SIGKILL");
    },
    async promoteStandby() {
      const client = new pg.Client({ connectionString: `${standbyServer}/hub` });
      await client.connect();
      try {
        await client.query("select pg_promote(true, 30)");
      } finally {
        await client.end();
      }
    },
    async remove() {
      for (const child of servers.values()) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGINT"); // fast shutdown
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

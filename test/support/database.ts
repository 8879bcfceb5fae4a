import os from "node:os";
import path from "node:path";
import pg from "pg";
import { migrate } from "../../db/migrate.ts";
import { createPool, type Db, type PoolOptions } from "../../db/pool.ts";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/app/embeddedPostgres.ts";

/*
 * Tests run against a real PostgreSQL: DATABASE_URL when set, else the machine's server at
 * 127.0.0.1:5432, else an embedded one. Every database a run creates is dropped at its end.
 *
 * This module is loaded twice in one run: mocha `require`s the test files, which tsx compiles to
 * CommonJS, while the root hook file (test/support/hooks.ts) imports a module with top-level await,
 * cannot be required, and is imported as an ES module. Each copy had its own list of databases,
 * and the copy whose afterAll dropped them had created none (a run left ~44 behind). So the
 * run's state lives on globalThis, one for every copy.
 *
 * A database's name also carries the pid of the run that made it (dh_test_<pid>_…): the end of a
 * run checks on the server itself that none is left, and a later run drops what a killed run left.
 */

const PREFIX = "dh_test_";
interface RunState {
  serverUrl: Promise<string> | null;
  embedded: EmbeddedDatabase | null;
  counter: number;
}
const state: RunState = ((globalThis as { [key: symbol]: RunState })[Symbol.for("dialysis-hub.testDatabases")] ??= {
  serverUrl: null,
  embedded: null,
  counter: 0,
});

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function resolveServer(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const local = "postgres://postgres@127.0.0.1:5432/postgres";
  if (await answers(local)) {
    await dropDatabasesOfEndedRuns(local);
    return local;
  }
  const dir = path.join(os.tmpdir(), `dialysis-hub-test-pg-${process.pid}`);
  state.embedded = await startEmbeddedPostgres(dir, 54000 + (process.pid % 1000));
  return state.embedded.url;
}

export function testServerUrl(): Promise<string> {
  state.serverUrl ??= resolveServer();
  return state.serverUrl;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function withAdmin<T>(server: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

const runPrefix = `${PREFIX}${process.pid}_`;

/** A new, migrated database of its own; dropped when the test run ends. */
export async function createTestDatabase(migrated = true): Promise<string> {
  const server = await testServerUrl();
  const name = `${runPrefix}${Date.now().toString(36)}_${state.counter++}`;
  await withAdmin(server, (admin) => admin.query(`create database ${name}`));
  const url = withDatabase(server, name);
  if (migrated) await migrate(url);
  return url;
}

/**
 * A suite's fixture: a new migrated database and a pool on it (`database.db`), made before its
 * tests (before each test with `eachTest`) and the pool ended after them.
 */
export function useTestDatabase({ eachTest = false, ...pool }: PoolOptions & { eachTest?: boolean } = {}): { db: Db } {
  const database = {} as { db: Db };
  (eachTest ? beforeEach : before)(async () => {
    database.db = createPool(await createTestDatabase(), pool);
  });
  (eachTest ? afterEach : after)(() => database.db?.end());
  return database;
}

async function databasesNamed(admin: pg.Client, prefix: string): Promise<string[]> {
  const { rows } = await admin.query<{ datname: string }>(
    "select datname from pg_database where starts_with(datname, $1) order by datname",
    [prefix],
  );
  return rows.map((row) => row.datname);
}

async function dropAll(admin: pg.Client, names: string[]): Promise<void> {
  for (const name of names) await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
}

/**
 * The machine's own server outlives every run; a run killed before its end (Ctrl-C twice, a CI
 * timeout) leaves its databases there. Those whose run's process is gone are dropped. Only on the
 * local server: a pid says nothing about a process of another machine sharing a DATABASE_URL.
 */
async function dropDatabasesOfEndedRuns(local: string): Promise<void> {
  await withAdmin(local, async (admin) => {
    const ended = (await databasesNamed(admin, PREFIX)).filter(
      (name) => !processIsAlive(Number(/^dh_test_(\d+)_/.exec(name)?.[1])),
    );
    await dropAll(admin, ended);
  });
}

function processIsAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Drops every database of this run, found by name on the server rather than from memory, then
 * fails if the server still holds one.
 */
export async function dropTestDatabases(): Promise<void> {
  await withAdmin(await testServerUrl(), async (admin) => {
    await dropAll(admin, await databasesNamed(admin, runPrefix));
    const left = await databasesNamed(admin, runPrefix);
    if (left.length) throw new Error(`the test run left ${left.length} database(s) behind: ${left.join(", ")}`);
  });
  await state.embedded?.stop();
  state.embedded = null;
  state.serverUrl = null;
}

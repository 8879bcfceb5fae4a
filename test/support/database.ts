import os from "node:os";
import path from "node:path";
import pg from "pg";
import { migrate } from "../../db/migrate.ts";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/embeddedPostgres.ts";

/*
 * Tests run against a real PostgreSQL: DATABASE_URL when set, else the machine's server at
 * 127.0.0.1:5432, else an embedded one. Every database a run creates is dropped at its end.
 */

let serverUrl: Promise<string> | null = null;
let embedded: EmbeddedDatabase | null = null;
const created: string[] = [];
let counter = 0;

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
  if (await answers(local)) return local;
  const dir = path.join(os.tmpdir(), `dialysis-hub-test-pg-${process.pid}`);
  embedded = await startEmbeddedPostgres(dir, 54000 + (process.pid % 1000));
  return embedded.url;
}

export function testServerUrl(): Promise<string> {
  serverUrl ??= resolveServer();
  return serverUrl;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A new, migrated database of its own; dropped when the test run ends. */
export async function createTestDatabase(migrated = true): Promise<string> {
  const server = await testServerUrl();
  const name = `dh_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  created.push(name);
  const url = withDatabase(server, name);
  if (migrated) await migrate(url);
  return url;
}

export async function dropTestDatabases(): Promise<void> {
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: await serverUrl });
    await admin.connect();
    try {
      for (const name of created.splice(0)) await admin.query(`drop database if exists ${name} with (force)`);
    } finally {
      await admin.end();
    }
  }
  await embedded?.stop();
}

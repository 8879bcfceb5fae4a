import pg from "pg";
import { migrate } from "../../../db/migrate.ts";
import { createLogger } from "../../logger.ts";
import { loadConfig } from "../config.ts";
import { embeddedDatabaseUrl } from "../embeddedPostgres.ts";
import { openDatabase } from "../openDatabase.ts";

/**
 * Commands other than `start` use DATABASE_URL, else the embedded database: the running service's
 * if it answers, else one started just for the command.
 */
export async function withDatabase(work: (url: string) => Promise<void>, { migrateFirst = true } = {}): Promise<void> {
  const config = loadConfig();
  const log = createLogger("warn");
  if (!config.DATABASE_URL) {
    const running = embeddedDatabaseUrl(`${config.DATA_DIR}/pg`, config.EMBEDDED_PG_PORT);
    if (running && (await answers(running))) return work(running);
  }
  const { url, embedded } = await openDatabase(config, log);
  try {
    if (migrateFirst) await migrate(url);
    await work(url);
  } finally {
    await embedded?.stop();
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

import type { Logger } from "pino";
import type { Config } from "./config.ts";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "./embeddedPostgres.ts";

/*
 * Apart from the service (service.ts) so that the command line's database commands can open the
 * database without loading the HTTP interface, the queues and the workers.
 */

/** Resolves the database: the configured one, or the embedded one under DATA_DIR. */
export async function openDatabase(
  config: Config,
  log: Logger,
): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: null };
  const embedded = await startEmbeddedPostgres(`${config.DATA_DIR}/pg`, config.EMBEDDED_PG_PORT, (line) =>
    log.debug({ postgres: line }),
  );
  if (embedded.replacedFixedPassword) {
    log.warn(
      { passwordFile: embedded.passwordFile },
      "the embedded PostgreSQL's superuser had the fixed password of earlier versions; it now has a generated " +
        "one, kept in passwordFile (readable by this OS user only)",
    );
  }
  return { url: embedded.url, embedded };
}

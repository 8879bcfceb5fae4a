import { backupTo, restoreFrom } from "../../../db/backup.ts";
import { migrate } from "../../../db/migrate.ts";
import { createPool } from "../../../db/pool.ts";
import { verifyLedger } from "../../../queries/ledger/ledger.ts";
import { createLogger } from "../../logger.ts";
import { withDatabase } from "./database.ts";
import { buildChangedProjections } from "./inProcessProjections.ts";

/** `migrate` */
export function migrateCommand(): Promise<void> {
  return withDatabase(async (url) => {
    const applied = await migrate(url);
    console.log(applied.length ? `applied: ${applied.join(", ")}` : "the schema is up to date");
  });
}

/** `ledger verify`: exit code 1 on any problem. */
export function verifyLedgerCommand(): Promise<void> {
  return withDatabase(async (url) => {
    // The comparisons and the roots run side by side (db/ledger.ts).
    const db = createPool(url, { max: 6 });
    try {
      const verification = await verifyLedger(db);
      console.log(JSON.stringify(verification, null, 2));
      if (!verification.ok) process.exitCode = 1;
    } finally {
      await db.end();
    }
  });
}

/** `backup <file>`: Ctrl-C (or SIGTERM) stops it and removes what it had written. */
export function backupCommand(file: string): Promise<void> {
  return withDatabase(async (url) => {
    const stop = new AbortController();
    const abort = () => stop.abort();
    process.once("SIGINT", abort).once("SIGTERM", abort);
    try {
      const { bytes, note } = await backupTo(url, file, process.env, stop.signal);
      if (note) console.error(note);
      console.log(
        `backup written to ${file} (${(bytes / 1024 / 1024).toFixed(1)} MB); restore it with: npm run cli -- restore ${file}`,
      );
    } catch (error) {
      if (!stop.signal.aborted) throw error;
      console.error(`backup stopped; nothing was written to ${file}`);
      process.exitCode = 130;
    } finally {
      process.off("SIGINT", abort).off("SIGTERM", abort);
    }
  });
}

/** `restore <file>`: into an empty database, then every read model by replay, then the ledger checked. */
export function restoreCommand(file: string): Promise<void> {
  return withDatabase(
    async (url) => {
      const restored = await restoreFrom(url, file);
      console.error(
        `restored ${restored.events} events of ${restored.transactions} transactions and ${restored.ledgerBlocks} ledger blocks; replaying`,
      );
      const log = createLogger("warn");
      const db = createPool(url, { max: 6, applicationName: "dialysis-hub-restore" });
      try {
        await buildChangedProjections(db, log);
        const verification = await verifyLedger(db);
        console.log(JSON.stringify({ ...restored, ledger: verification }, null, 2));
        if (!verification.ok) process.exitCode = 1;
      } finally {
        await db.end();
      }
    },
    { migrateFirst: false },
  );
}

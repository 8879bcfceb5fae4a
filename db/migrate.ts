import { readdirSync } from "node:fs";
import { runner } from "node-pg-migrate";
import { projectFile } from "./projectFiles.ts";
import { primaryUrl } from "./primaryHosts.ts";

const migrationsDir = projectFile("db", "migrations");

/** Applies every pending migration; concurrent starters wait on node-pg-migrate's advisory lock. */
export async function migrate(databaseUrl: string, log: (message: string) => void = () => {}): Promise<string[]> {
  const applied = await runner({
    databaseUrl: await primaryUrl(databaseUrl),
    dir: migrationsDir,
    direction: "up",
    migrationsTable: "schema_migrations",
    checkOrder: true,
    advisoryLockMode: "wait",
    log,
    verbose: false,
  });
  return applied.map((migration) => migration.name);
}

/** Migrations this code knows that the database has not run (readiness: the schema is not behind). */
export async function missingMigrations(db: {
  query: (sql: string) => Promise<{ rows: Array<{ name: string }> }>;
}): Promise<string[]> {
  const known = readdirSync(migrationsDir)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => file.replace(/\.sql$/, ""));
  const { rows } = await db.query("select name from schema_migrations");
  const applied = new Set(rows.map((row) => row.name));
  return known.filter((name) => !applied.has(name));
}

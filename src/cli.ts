import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import pg from "pg";
import { migrate } from "../db/migrate.ts";
import { createPool } from "../db/pool.ts";
import { clearError } from "../projections/generations.ts";
import { allProjections } from "../projections/index.ts";
import { rebuildProjection } from "../projections/rebuild.ts";
import { projectionsReport } from "../queries/projectionStatus.ts";
import { loadConfig, type Config } from "./config.ts";
import { createLogger } from "./logger.ts";
import { openDatabase, startService, type Role } from "./service.ts";

const program = new Command("dialysis-hub").description("Dialysis Hub: clinical report ingestion and report viewing");

program
  .command("start")
  .description("run the service (HTTP and projection workers)")
  .addOption(new Option("--role <role>", "which part of the service this process runs").choices(["all", "api", "worker"]).default("all"))
  .action(async ({ role }: { role: Role }) => {
    const config = withLocalAdminToken(loadConfig());
    const log = createLogger(config.LOG_LEVEL);
    const service = await startService({ config, role, log });
    let signals = 0;
    const shutdown = (signal: string) => {
      if (signals++ > 0) process.exit(1); // a second Ctrl-C means now
      log.info({ signal }, "shutting down");
      service.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
    printWelcome(service.url, config, role);
  });

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(() =>
    withDatabase(async (url) => {
      const applied = await migrate(url);
      console.log(applied.length ? `applied: ${applied.join(", ")}` : "the schema is up to date");
    }),
  );

const projections = program.command("projections").description("inspect and rebuild read models");

projections
  .command("status")
  .description("position, lag and errors of every projection")
  .action(() =>
    withDatabase(async (url) => {
      const db = createPool(url, { max: 2 });
      try {
        console.log(JSON.stringify(await projectionsReport(db), null, 2));
      } finally {
        await db.end();
      }
    }),
  );

projections
  .command("rebuild <name>")
  .description("replay every event into fresh tables, then switch (name or 'all'); the old tables serve meanwhile")
  .action((name: string) =>
    withDatabase(async (url) => {
      const chosen = name === "all" ? allProjections : allProjections.filter((p) => p.name === name);
      if (chosen.length === 0) throw new Error(`no projection ${name}; known: ${allProjections.map((p) => p.name).join(", ") || "none"}`);
      const db = createPool(url, { max: 4 });
      try {
        for (const projection of chosen) {
          const result = await rebuildProjection(db, projection, createLogger("warn"));
          console.log(projection.name, JSON.stringify(result));
          if (result.status !== "rebuilt") process.exitCode = 1;
        }
      } finally {
        await db.end();
      }
    }),
  );

projections
  .command("retry <name>")
  .description("let a projection stopped by an error try its event again (after a fix)")
  .action((name: string) =>
    withDatabase(async (url) => {
      const db = createPool(url, { max: 2 });
      try {
        console.log((await clearError(db, name)) ? `${name} will retry` : `${name} is not stopped`);
      } finally {
        await db.end();
      }
    }),
  );

/**
 * Commands other than `start` use DATABASE_URL, else the embedded database: the running service's
 * if it answers, else one started just for the command.
 */
async function withDatabase(work: (url: string) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const log = createLogger("warn");
  if (!config.DATABASE_URL) {
    const running = `postgres://postgres:postgres@127.0.0.1:${config.EMBEDDED_PG_PORT}/dialysis_hub`;
    if (await answers(running)) return work(running);
  }
  const { url, embedded } = await openDatabase(config, log);
  try {
    await migrate(url);
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

/**
 * On a machine set up by `npm start` alone there is no operator to choose an ADMIN_TOKEN: make one
 * and keep it beside the embedded data, so it survives restarts.
 */
function withLocalAdminToken(config: Config): Config {
  if (config.ADMIN_TOKEN || config.DATABASE_URL) return config;
  const file = path.join(config.DATA_DIR, "admin-token");
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(file, randomBytes(24).toString("base64url"), { mode: 0o600 });
  }
  return { ...config, ADMIN_TOKEN: readFileSync(file, "utf8").trim() };
}

function printWelcome(url: string | null, config: Config, role: Role): void {
  const lines = [`Dialysis Hub is running (role: ${role}).`];
  if (url) {
    lines.push(`  Health:        ${url}/healthz, ${url}/readyz`);
    lines.push(`  Projections:   ${url}/api/admin/projections (Authorization: Bearer <ADMIN_TOKEN>)`);
  }
  if (!config.DATABASE_URL) lines.push(`  Data:          ${path.resolve(config.DATA_DIR)} (embedded PostgreSQL on port ${config.EMBEDDED_PG_PORT})`);
  if (!config.DATABASE_URL && config.ADMIN_TOKEN) lines.push(`  ADMIN_TOKEN:   ${config.ADMIN_TOKEN} (kept in ${path.join(config.DATA_DIR, "admin-token")})`);
  console.log(lines.join("\n"));
}

program.parseAsync().catch((error: Error) => {
  console.error(`dialysis-hub: ${error.message}`);
  process.exit(1);
});

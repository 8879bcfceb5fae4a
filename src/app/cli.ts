import { commandContext } from "./commandContexts.ts";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import pg from "pg";
import type { Logger } from "pino";
import type { z } from "zod";
import type { CommandContext } from "../../commands/kit/commandContext.ts";
import { registerAuthorInput } from "../../commands/credentials/authors.ts";
import { registerClientInput } from "../../commands/credentials/clients.ts";
import { rotateInput } from "../../commands/credentials/credentialLifecycle.ts";
import { createAuthor, createClient, revokeAuthor, revokeClient, rotateAuthorToken, rotateClientKey } from "../../commands/credentials/manageCredentials.ts";
import { importPatientsCsv } from "../../commands/patients/importPatientsCsv.ts";
import { EventStore } from "../../db/eventStore.ts";
import { migrate } from "../../db/migrate.ts";
import { createPool, type Db } from "../../db/pool.ts";
import { readAsTenant, TENANT_PATTERN, type TenantReader } from "../../db/tenantScope.ts";
import { clearError } from "../../projections/runtime/generations.ts";
import { allProjections } from "./allProjections.ts";
import { prepareProjections, rebuildProjection, type RebuildResult } from "../../projections/runtime/rebuild.ts";
import { ProjectionRunner } from "../../projections/runtime/runner.ts";
import { authorById, clientById, listAuthors, listClients } from "../../queries/credentials/credentials.ts";
import { projectionsReport } from "../../queries/runtime/projectionStatus.ts";
import { verifyLedger } from "../../queries/ledger/ledger.ts";
import { backupTo, restoreFrom } from "../../db/backup.ts";
import { idCardRegister } from "../patients/registeredPatients.ts";
import { loadIdentifierHasher } from "../secrets/identifierKey.ts";
import { importFile } from "./bulkImportCli.ts";
import { progressBar, ratePerSecond } from "./progressBar.ts";
import { loadConfig, type Config } from "./config.ts";
import { demoAtStart, demoWelcomeLines, type DemoAtStart } from "../demo/demoAtStart.ts";
import { loadDemo, saveDemoCredentials } from "../demo/loadDemo.ts";
import { consoleDestination, createLogger } from "../logger.ts";
import { openDatabase, startService, type Role } from "./service.ts";
import { embeddedDatabaseUrl, superuserPasswordFile, writeSecret } from "./embeddedPostgres.ts";
import { surviveUnawaitedDatabaseFaults } from "./unawaitedDatabaseFaults.ts";

const program = new Command("dialysis-hub").description("Dialysis Hub: clinical report ingestion and report viewing");

program
  .command("start")
  .description("run the service (HTTP and projection workers)")
  .addOption(new Option("--role <role>", "which part of the service this process runs").choices(["all", "api", "worker"]).default("all"))
  .option("--demo", "load the demo tenant (patients, lab reports, two published reports) also when DATABASE_URL is set")
  .action(async ({ role, demo }: { role: Role; demo?: boolean }) => {
    const { config, adminTokenFile } = withLocalAdminToken(loadConfig());
    const log = createLogger(config.LOG_LEVEL, await consoleDestination(config.LOG_FORMAT));
    surviveUnawaitedDatabaseFaults(log);
    const service = await startService({ config, role, log });
    const demoLoading = new AbortController();
    let signals = 0;
    const shutdown = (signal: string) => {
      if (signals++ > 0) process.exit(1); // a second Ctrl-C means now
      log.info({ signal }, "shutting down");
      demoLoading.abort();
      service.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
    // Contract C.7: the embedded database gets the demo tenant; a configured one only with --demo.
    // A worker-only process has no HTTP interface to load through: only an explicit --demo complains.
    const wantsDemo = demo === true || (!config.DATABASE_URL && service.url !== null);
    const demoState = wantsDemo ? demoAtStart(service.url, config.ADMIN_TOKEN, config.DATA_DIR) : null;
    printWelcome(service.url, config, adminTokenFile, role, demoState);
    if (!demoState || demoState.kind === "unavailable" || !service.url || !config.ADMIN_TOKEN) return;
    try {
      const loaded = await loadDemo(service.url, config.ADMIN_TOKEN, { signal: demoLoading.signal });
      if (loaded) {
        saveDemoCredentials(config.DATA_DIR, loaded);
        const summary = `${loaded.patients} patients, ${loaded.labReports} lab reports (${loaded.unmatchedReports} awaiting a patient in /api/unmatched, ${loaded.criticalResults} critical values of the last hours), ${loaded.reports.length} reports published`;
        console.log([`Demo data loaded in ${(loaded.elapsedMs / 1000).toFixed(1)} s: ${summary}.`, ...demoWelcomeLines(service.url, loaded, config.DATA_DIR)].join("\n"));
      } else if (demoState.kind === "load") {
        console.log(["The demo tenant was loaded by an earlier start.", ...demoWelcomeLines(service.url, null, config.DATA_DIR)].join("\n"));
      }
    } catch (error) {
      if (!demoLoading.signal.aborted) console.error(`dialysis-hub: the demo data could not be loaded: ${(error as Error).message}`);
    }
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

program
  .command("ledger")
  .description("the tamper-evident ledger of the event store")
  .command("verify")
  .description("check every sealed block against the events as they are now; exit code 1 on any problem")
  .action(() =>
    withDatabase(async (url) => {
      // The comparisons and the roots run side by side (db/ledger.ts).
      const db = createPool(url, { max: 6 });
      try {
        const verification = await verifyLedger(db);
        console.log(JSON.stringify(verification, null, 2));
        if (!verification.ok) process.exitCode = 1;
      } finally {
        await db.end();
      }
    }),
  );

program
  .command("backup <file>")
  .description("write the events, the ledger and unfinished bulk job bodies to <file> (pg_dump's custom format) while the service runs")
  .action((file: string) =>
    withDatabase(async (url) => {
      const { bytes } = await backupTo(url, file);
      console.log(`backup written to ${file} (${(bytes / 1024 / 1024).toFixed(1)} MB); restore it with: npm run cli -- restore ${file}`);
    }),
  );

program
  .command("restore <file>")
  .description("restore a backup into an empty database (DATABASE_URL), rebuild every read model by replay, and verify the ledger")
  .action((file: string) =>
    withDatabase(async (url) => {
      const restored = await restoreFrom(url, file);
      console.error(`restored ${restored.events} events of ${restored.transactions} transactions and ${restored.ledgerBlocks} ledger blocks; replaying`);
      const log = createLogger("warn");
      const db = createPool(url, { max: 6, applicationName: "dialysis-hub-restore" });
      try {
        for (const projection of await prepareProjections(db, allProjections, log)) await buildByReplay(db, projection, log);
        const verification = await verifyLedger(db);
        console.log(JSON.stringify({ ...restored, ledger: verification }, null, 2));
        if (!verification.ok) process.exitCode = 1;
      } finally {
        await db.end();
      }
    }, { migrateFirst: false }),
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
          const result = await rebuildWithProgress(db, projection, createLogger("warn"));
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

const keys = program.command("keys").description("open-API keys of sending systems (laboratory, examination)");

keys
  .command("create")
  .description("create a client and its open-API key (printed once, as JSON)")
  .requiredOption("--tenant <tenant>", "the tenant the key sends reports for")
  .requiredOption("--name <name>", "the sending system's name, e.g. 'Central lab LIS'")
  .option("--expires-in-days <days>", "days until the key stops working (fractions allowed); left out: it does not expire")
  .action((options: { tenant: string; name: string; expiresInDays?: string }) =>
    withDatabase((url) =>
      withCommandContext(url, async (ctx, db) => {
        const input = checked(registerClientInput, { ...options, expiresInDays: optionalNumber(options.expiresInDays) });
        const created = await createClient(ctx, await credentialHasher(db), input);
        console.log(JSON.stringify(created, null, 2));
        console.error("Store the key now: it is shown only this once.");
      }),
    ),
  );

keys
  .command("list")
  .description("the tenant's clients with when each was made, expires, was last used and revoked (JSON); never a key")
  .requiredOption("--tenant <tenant>", "the tenant whose clients to list")
  .action((options: { tenant: string }) => withDatabase((url) => listCredentials(url, options.tenant, listClients)));

keys
  .command("revoke <clientId>")
  .description("revoke a client's key at once")
  .action((clientId: string) =>
    withDatabase((url) =>
      withCommandContext(url, async (ctx, db) => {
        const client = await clientById(db, clientId);
        if (!client) throw new Error(`there is no client ${clientId}; check the id printed by \`keys create\``);
        const who = `client ${client.clientId} (${client.name}, tenant ${client.tenant})`;
        if (client.revoked) return console.log(`${who} was already revoked.`);
        await revokeClient(ctx, client.tenant, client.clientId);
        console.log(`Revoked ${who}: its key no longer works.`);
      }),
    ),
  );

keys
  .command("rotate <clientId>")
  .description("give a client a new key (printed once, as JSON); the former key keeps working for the overlap")
  .option("--overlap-hours <hours>", "hours the former key keeps working (0: it stops at once)", "24")
  .action((clientId: string, options: { overlapHours: string }) =>
    withDatabase((url) =>
      withCommandContext(url, async (ctx, db) => {
        const client = await clientById(db, clientId);
        if (!client || client.revoked) throw new Error(`there is no active client ${clientId}; a revoked client gets no new key (create one with \`keys create\`)`);
        const { overlapHours } = checked(rotateInput, { overlapHours: optionalNumber(options.overlapHours) });
        const rotated = await rotateClientKey(ctx, await credentialHasher(db), client.tenant, client.clientId, overlapHours);
        console.log(JSON.stringify(rotated, null, 2));
        console.error(`Store the key now: it is shown only this once. The former key works ${overlapHours === 0 ? "no more" : `${overlapHours} hours more`}.`);
      }),
    ),
  );

const authors = program.command("authors").description("authoring credentials (reports and patients through /api)");

authors
  .command("create")
  .description("create an author and their token (printed once, as JSON)")
  .requiredOption("--tenant <tenant>", "the tenant the author works for")
  .requiredOption("--name <name>", "the author's name, shown as 'who' on what they publish")
  .option("--expires-in-days <days>", "days until the token stops working (fractions allowed); left out: it does not expire")
  .option("--roles <roles>", "what the token may do, comma-separated: admin, author, clinician, viewer; left out: author")
  .option("--wards <wards>", "the wards whose patients the token sees, comma-separated; left out: every ward")
  .action((options: { tenant: string; name: string; expiresInDays?: string; roles?: string; wards?: string }) =>
    withDatabase((url) =>
      withCommandContext(url, async (ctx, db) => {
        const input = checked(registerAuthorInput, { ...options, expiresInDays: optionalNumber(options.expiresInDays), roles: listOption(options.roles), wards: listOption(options.wards) });
        const created = await createAuthor(ctx, await credentialHasher(db), input);
        console.log(JSON.stringify(created, null, 2));
        console.error("Store the token now: it is shown only this once.");
      }),
    ),
  );

authors
  .command("list")
  .description("the tenant's authors with their roles, wards and when each was made, expires, was last used and revoked (JSON); never a token")
  .requiredOption("--tenant <tenant>", "the tenant whose authors to list")
  .action((options: { tenant: string }) => withDatabase((url) => listCredentials(url, options.tenant, listAuthors)));

authors
  .command("revoke <authorId>")
  .description("revoke an author's tokens at once")
  .action((authorId: string) =>
    withDatabase((url) =>
      withCommandContext(url, async (ctx, db) => {
        const author = await authorById(db, authorId);
        if (!author) throw new Error(`there is no author ${authorId}; check the id printed by \`authors create\``);
        const who = `author ${author.authorId} (${author.name}, tenant ${author.tenant})`;
        if (author.revoked) return console.log(`${who} was already revoked.`);
        await revokeAuthor(ctx, author.tenant, author.authorId);
        console.log(`Revoked ${who}: their tokens no longer work.`);
      }),
    ),
  );

authors
  .command("rotate <authorId>")
  .description("give an author a new token (printed once, as JSON); the former token keeps working for the overlap")
  .option("--overlap-hours <hours>", "hours the former token keeps working (0: it stops at once)", "24")
  .action((authorId: string, options: { overlapHours: string }) =>
    withDatabase((url) =>
      withCommandContext(url, async (ctx, db) => {
        const author = await authorById(db, authorId);
        if (!author || author.revoked) throw new Error(`there is no active author ${authorId}; a revoked author gets no new token (create one with \`authors create\`)`);
        const { overlapHours } = checked(rotateInput, { overlapHours: optionalNumber(options.overlapHours) });
        const rotated = await rotateAuthorToken(ctx, await credentialHasher(db), author.tenant, author.authorId, overlapHours);
        console.log(JSON.stringify(rotated, null, 2));
        console.error(`Store the token now: it is shown only this once. The former token works ${overlapHours === 0 ? "no more" : `${overlapHours} hours more`}.`);
      }),
    ),
  );

program
  .command("import <kind> <file>")
  .description("submit a local NDJSON file (gzip recognised) of lab or exam reports as a bulk job and follow it to its end")
  .requiredOption("--tenant <tenant>", "the tenant the reports belong to")
  .requiredOption("--client <name>", "the sending system the reports come from (the name of a client with a working key)")
  .option("--no-wait", "print the job id and return; the service's workers import it")
  .action((kind: string, file: string, options: { tenant: string; client: string; wait: boolean }) =>
    withDatabase((url) => withCommandContext(url, (ctx) => importFile(ctx.store, createLogger("warn"), kind, file, options))),
  );

const patients = program.command("patients").description("dialysis patients");

patients
  .command("import <file>")
  .description("register or update patients from a UTF-8 CSV file: patientRef,name,idCard[,hisPatientId,ward,active]")
  .requiredOption("--tenant <tenant>", "the tenant the patients belong to")
  .action((file: string, { tenant }: { tenant: string }) => {
    if (!TENANT_PATTERN.test(tenant)) throw new Error("--tenant must be 1 to 64 letters, digits, '_' or '-'");
    const text = readUtf8(file);
    return withDatabase((url) =>
      withCommandContext(url, async (ctx, db) => {
        const result = await importPatientsCsv(ctx, idCardRegister(db, await loadIdentifierHasher(db, process.env.ID_HASH_KEY)), tenant, text);
        for (const { line, message } of result.rejected) console.log(`line ${line}: ${message}`);
        const imported = result.created + result.updated + result.unchanged;
        console.log(
          `imported ${imported} (created ${result.created}, updated ${result.updated}, unchanged ${result.unchanged}), rejected ${result.rejected.length}`,
        );
        if (result.rejected.length > 0) process.exitCode = 1;
      }),
    );
  });

/** An option's text as the number a schema checks; text that is no number stays text, for the schema to refuse. */
function optionalNumber(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** `a, b,c` → ["a", "b", "c"]; left out stays left out. */
function listOption(text: string | undefined): string[] | undefined {
  return text === undefined ? undefined : text.split(",").map((item) => item.trim()).filter(Boolean);
}

/** Prints a tenant's credentials as the admin lists answer them (E.3). */
async function listCredentials(url: string, tenant: string, list: (reader: TenantReader) => Promise<unknown>): Promise<void> {
  if (!TENANT_PATTERN.test(tenant)) throw new Error("--tenant: 1 to 64 letters, digits, '_' or '-'");
  const db = createPool(url, { max: 1, applicationName: "dialysis-hub-cli" });
  try {
    console.log(JSON.stringify(await readAsTenant(db, tenant, list), null, 2));
  } finally {
    await db.end();
  }
}

/** The deployment's hasher, for the digests of new keys and tokens (as the service loads it). */
function credentialHasher(db: Db) {
  return loadIdentifierHasher(db, process.env.ID_HASH_KEY);
}

function checked<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  const option = (path: PropertyKey[]) => `--${path.join(".").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => `${option(issue.path)}: ${issue.message}`).join("; "));
  return parsed.data;
}

function readUtf8(file: string): string {
  const bytes = readFileSync(file);
  try {
    // The BOM stays in the text: the CSV parser removes it.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`${file} is not UTF-8 text (saved as GBK/ANSI?); in Excel choose "Save as" → "CSV UTF-8"`);
  }
}

/**
 * A writing command's context. Commands wait for their read models (`waitForProjection`), and a
 * CLI process has no projection workers: run the projections in this process for the duration of
 * the command, woken by its own appends as the service does. A service on the same database may
 * apply the events first; the checkpoint row locks keep that safe.
 */
async function withCommandContext(url: string, work: (ctx: CommandContext, db: Db) => Promise<void>): Promise<void> {
  const log = createLogger("warn");
  const db = createPool(url, { max: 4, applicationName: "dialysis-hub-cli" });
  const runners: ProjectionRunner[] = [];
  try {
    const toBuild = await prepareProjections(db, allProjections, log);
    // A projection new or changed stays stopped until built (the service's worker does it at start).
    for (const projection of toBuild) await buildByReplay(db, projection, log);
    for (const projection of allProjections) runners.push(new ProjectionRunner(db, projection, log));
    const store = new EventStore(db);
    store.onAppended((types) => {
      for (const runner of runners) if (runner.projection.handles.some((type) => types.has(type))) void runner.wake();
    });
    await work(commandContext(store, { actor: "cli" }), db);
  } finally {
    await Promise.all(runners.map((runner) => runner.stop()));
    await db.end();
  }
}

/** A rebuild with a progress bar of the events read (events/s and ETA). */
async function rebuildWithProgress(db: Db, projection: (typeof allProjections)[number], log: Logger): Promise<RebuildResult> {
  const bar = progressBar("events");
  const startedAt = performance.now();
  let started = false;
  try {
    return await rebuildProjection(db, projection, log, {
      onProgress: ({ eventsRead, lastPosition }) => {
        if (!started) bar.start(lastPosition, 0, { rate: 0, status: projection.name });
        started = true;
        bar.setTotal(lastPosition);
        bar.update(eventsRead, { rate: ratePerSecond(startedAt, eventsRead), status: projection.name });
      },
    });
  } finally {
    if (started) bar.stop();
  }
}

async function buildByReplay(db: Db, projection: (typeof allProjections)[number], log: Logger): Promise<void> {
  console.error(`building projection ${projection.name} by replay (it is new, or its version changed)…`);
  const result = await rebuildWithProgress(db, projection, log);
  if (result.status === "failed") throw new Error(`projection ${projection.name} stopped at event ${result.position}: ${result.message}`);
}

/**
 * Commands other than `start` use DATABASE_URL, else the embedded database: the running service's
 * if it answers, else one started just for the command.
 */
async function withDatabase(work: (url: string) => Promise<void>, { migrateFirst = true } = {}): Promise<void> {
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

/**
 * On a machine set up by `npm start` alone there is no operator to choose an ADMIN_TOKEN: make one
 * and keep it beside the embedded data, so it survives restarts. Contract E.3: in a file only this
 * OS user may read, never on the console or in the log.
 */
function withLocalAdminToken(config: Config): { config: Config; adminTokenFile: string | null } {
  if (config.ADMIN_TOKEN || config.DATABASE_URL) return { config, adminTokenFile: null };
  const file = path.resolve(config.DATA_DIR, "admin-token");
  const kept = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  const token = kept || randomBytes(24).toString("base64url");
  writeSecret(file, token); // also narrows the mode of a file an earlier version left wider
  return { config: { ...config, ADMIN_TOKEN: token }, adminTokenFile: file };
}

/** Where things are; never a secret itself (contract E.3): the files that hold them are named instead. */
function printWelcome(url: string | null, config: Config, adminTokenFile: string | null, role: Role, demo: DemoAtStart | null = null): void {
  const lines = [`Dialysis Hub is running (role: ${role}).`];
  if (url) {
    lines.push(`  Health:        ${url}/healthz, ${url}/readyz`);
    lines.push(`  Projections:   ${url}/api/admin/projections (Authorization: Bearer <ADMIN_TOKEN>)`);
  }
  if (!config.DATABASE_URL) {
    lines.push(`  Data:          ${path.resolve(config.DATA_DIR)} (embedded PostgreSQL on 127.0.0.1:${config.EMBEDDED_PG_PORT})`);
    lines.push(`  DB password:   in ${superuserPasswordFile(`${config.DATA_DIR}/pg`)} (user postgres, database dialysis_hub; readable by this OS user only)`);
  }
  if (adminTokenFile) lines.push(`  ADMIN_TOKEN:   in ${adminTokenFile} (readable by this OS user only)`);
  else if (config.ADMIN_TOKEN) lines.push("  ADMIN_TOKEN:   the one set in the environment");
  if (demo?.kind === "load") lines.push("  Demo:          loading demo data … (the service already answers; where its keys are kept follows)");
  if (demo?.kind === "known" && url) lines.push(...demoWelcomeLines(url, demo.credentials, config.DATA_DIR));
  if (demo?.kind === "unavailable") lines.push(`  Demo:          not loaded: ${demo.reason}`);
  console.log(lines.join("\n"));
}

program.parseAsync().catch((error: unknown) => {
  console.error(`dialysis-hub: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

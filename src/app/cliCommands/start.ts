import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import { demoAtStart, demoWelcomeLines, type DemoAtStart } from "../../demo/demoAtStart.ts";
import { loadDemo, saveDemoCredentials } from "../../demo/loadDemo.ts";
import { consoleDestination, createLogger } from "../../logger.ts";
import { loadConfig, type Config } from "../config.ts";
import { superuserPasswordFile, writeSecret } from "../embeddedPostgres.ts";
import type { DemoDataState } from "../../http/healthRoutes.ts";
import { startService, type Role } from "../service.ts";
import { surviveUnawaitedDatabaseFaults } from "../unawaitedDatabaseFaults.ts";

/**
 * How far V8 lets its heap grow past what the last full collection kept before collecting again.
 * Left to itself it grows it up to fourfold while allocation is fast: a bulk import (whose pieces
 * outlive a young collection while their database round trips run) took the process from 163 to
 * 430 MB, most of it garbage. Read by V8 at every collection, so setting it here is in time.
 */
function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** `start`: runs the service until a signal stops it, and loads the demo tenant where wanted. */
export async function start({ role, demo }: { role: Role; demo?: boolean }): Promise<void> {
  const { config, adminTokenFile } = withLocalAdminToken(loadConfig());
  limitHeapGrowth(config.HEAP_GROWING_PERCENT);
  const log = createLogger(config.LOG_LEVEL, await consoleDestination(config.LOG_FORMAT));
  const faults = surviveUnawaitedDatabaseFaults(log);
  // Contract C.7: the embedded database gets the demo tenant; a configured one only with --demo.
  // A worker-only process has no HTTP interface to load through: only an explicit --demo complains.
  const wantsDemo = demo === true || (!config.DATABASE_URL && role !== "worker");
  const demoState = wantsDemo ? demoAtStart(role !== "worker", config.ADMIN_TOKEN, config.DATA_DIR) : null;
  // Loading from the first /readyz on: the service answers before the demo tenant is all there.
  let demoData: DemoDataState | undefined = demoState && demoState.kind !== "unavailable" ? "loading" : undefined;
  const service = await startService({ config, role, log, demoData: () => demoData });
  const demoLoading = new AbortController();
  let signals = 0;
  const shutdown = (signal: string) => {
    if (signals++ > 0) process.exit(1); // a second Ctrl-C means now
    log.info({ signal }, "shutting down");
    faults.stopping();
    demoLoading.abort();
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  printWelcome(service.url, config, adminTokenFile, role, demoState);
  if (!demoState || demoState.kind === "unavailable" || !service.url || !config.ADMIN_TOKEN) return;
  try {
    const loaded = await loadDemo(service.url, config.ADMIN_TOKEN, { signal: demoLoading.signal });
    demoData = "loaded";
    if (loaded) {
      saveDemoCredentials(config.DATA_DIR, loaded);
      const summary =
        `${loaded.patients} patients, ${loaded.labReports} lab reports (${loaded.unmatchedReports} awaiting a ` +
        `patient in /api/unmatched, ${loaded.claimableReports} of them registered patients' to try a claim on; ` +
        `${loaded.criticalResults} critical values of the last hours; ${loaded.unmappedReports} with items to map ` +
        `on the staff pages' Item mappings), ${loaded.reports.length} reports published`;
      console.log(
        [
          `Demo data loaded in ${(loaded.elapsedMs / 1000).toFixed(1)} s: ${summary}.`,
          ...demoWelcomeLines(service.url, loaded, config.DATA_DIR),
        ].join("\n"),
      );
      // The load leaves some 40 MB for the embedded PostgreSQL to write out, which its stop would
      // otherwise do (a second or more): written now, a newcomer's first Ctrl-C ends at once.
      if (!config.DATABASE_URL) void service.db.query("checkpoint").catch(() => {});
    } else if (demoState.kind === "load") {
      console.log(
        [
          "The demo tenant was loaded by an earlier start.",
          ...demoWelcomeLines(service.url, null, config.DATA_DIR),
        ].join("\n"),
      );
    }
  } catch (error) {
    if (demoLoading.signal.aborted) return;
    demoData = "failed";
    console.error(
      `dialysis-hub: the demo data could not be loaded (/readyz says "demoData": "failed"): ${(error as Error).message}`,
    );
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
function printWelcome(
  url: string | null,
  config: Config,
  adminTokenFile: string | null,
  role: Role,
  demo: DemoAtStart | null = null,
): void {
  const lines = [`Dialysis Hub is running (role: ${role}).`];
  if (url) {
    lines.push(`  Health:        ${url}/healthz, ${url}/readyz`);
    lines.push(`  Projections:   ${url}/api/admin/projections (Authorization: Bearer <ADMIN_TOKEN>)`);
  }
  if (!config.DATABASE_URL) {
    lines.push(
      `  Data:          ${path.resolve(config.DATA_DIR)} (embedded PostgreSQL on 127.0.0.1:${config.EMBEDDED_PG_PORT})`,
    );
    lines.push(
      `  DB password:   in ${superuserPasswordFile(`${config.DATA_DIR}/pg`)} (user postgres, database dialysis_hub; readable by this OS user only)`,
    );
  }
  if (adminTokenFile) lines.push(`  ADMIN_TOKEN:   in ${adminTokenFile} (readable by this OS user only)`);
  else if (config.ADMIN_TOKEN) lines.push("  ADMIN_TOKEN:   the one set in the environment");
  if (demo?.kind === "load" && url) {
    const whenIn = `${url}/readyz says "demoData": "loaded" once it is in`;
    lines.push(
      `  Demo:          loading demo data … (the service already answers; ${whenIn}; where its keys are kept follows)`,
    );
  }
  if (demo?.kind === "known" && url) lines.push(...demoWelcomeLines(url, demo.credentials, config.DATA_DIR));
  if (demo?.kind === "unavailable") lines.push(`  Demo:          not loaded: ${demo.reason}`);
  console.log(lines.join("\n"));
}

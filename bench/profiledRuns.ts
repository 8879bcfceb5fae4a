import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { jobDone, JOB_REPORTS, uploadJob, writeJobFile } from "./bulkJobs.ts";
import { summariseCpuProfile, type CategoryTime, type CpuProfile } from "./cpuProfileSummary.ts";
import { atStoreHead, benchService, until } from "./ingest.ts";
import { REPORTS_PER_BATCH, runSenders, SENDERS } from "./ingestSenders.ts";
import { PostgresCpu } from "./postgresCpu.ts";
import { CONNECTIONS, sendOverMllp, WINDOW } from "./hl7.ts";
import { freePort } from "../test/support/privatePostgres.ts";
import { cpuMilliseconds } from "./processStats.ts";

/*
 * Where a bulk import's and a JSON push burst's time goes (#35): each runs once on a fresh service
 * started with `--cpu-prof`, with every statement timed in its process (queryTiming.mjs) and JSON
 * given frames of its own (jsonFrames.mjs), while the CPU of the database's backends is read from
 * /proc (postgresCpu.ts). Only the run's window counts: from the upload (the first push) until
 * lab_reports and lab_results hold every report.
 */

const preload = (file: string) => pathToFileURL(fileURLToPath(new URL(file, import.meta.url))).href;
/** Modules loaded into the profiled service before it starts: statement timing, and frames of their own for JSON. */
const PRELOADS = ["--import", preload("./queryTiming.mjs"), "--import", preload("./jsonFrames.mjs")];
const TOP_STATEMENTS = 25;

export interface StatementTime {
  statement: string;
  calls: number;
  totalMs: number;
  maxMs: number;
  rows: number;
}

export interface ProfiledRun {
  path: "bulk" | "push" | "hl7";
  reports: number;
  seconds: number;
  reportsPerSecond: number;
  serviceCpuMs: number;
  /** CPU of the database's backends in the window, by their application_name. */
  postgresCpuMs: Record<string, number>;
  /** The service's CPU profile: self time by category in the window. */
  cpu: CategoryTime[];
  /** The functions with the most self time in the window. */
  topFunctions: Array<{ fn: string; category: string; ms: number }>;
  /** Statements by total time in the service's driver (queryTiming.mjs), the window only. */
  statements: StatementTime[];
  statementsTotalMs: number;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * A fresh profiled service; `run` does the work and waits until the read models hold it. Returns
 * what the window held once the service has stopped (its profile and timings are written at exit).
 */
type BenchService = Awaited<ReturnType<typeof benchService>>;

/**
 * `run` does the work, waits until the read models hold it, and may tell when the work itself
 * began (µs, process.hrtime), if later than its call: the senders' process takes seconds to start.
 */
async function profiled(
  pathName: ProfiledRun["path"],
  reports: number,
  run: (service: BenchService) => Promise<number | void>,
  warmup?: (service: BenchService) => Promise<void>,
  env: Record<string, string> = {},
): Promise<ProfiledRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-profile-"));
  try {
    const queriesFile = path.join(dir, "queries.json");
    const service = await benchService({ ...env, BENCH_QUERY_TIMING_FILE: queriesFile }, [
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      ...PRELOADS,
    ]);
    const pid = service.service.pid;
    let window: { from: number; to: number; seconds: number; cpuMs: number; postgres: Record<string, number> };
    try {
      await warmup?.(service);
      const postgres = new PostgresCpu(service.db);
      postgres.start();
      process.kill(pid, "SIGUSR2"); // the statements' count starts here
      const cpuBefore = cpuMilliseconds(pid);
      const called = nowUs();
      const from = (await run(service)) ?? called;
      const to = nowUs();
      window = {
        from,
        to,
        seconds: (to - from) / 1e6,
        cpuMs: cpuMilliseconds(pid) - cpuBefore,
        postgres: await postgres.stop(),
      };
    } finally {
      await service.db.end();
      await service.service.stop();
    }
    const profileFile = readdirSync(dir).find((file) => file.endsWith(".cpuprofile") && file.includes(`.${pid}.0.`));
    if (!profileFile) throw new Error(`the service (pid ${pid}) wrote no CPU profile: ${readdirSync(dir).join(", ")}`);
    const profile = JSON.parse(readFileSync(path.join(dir, profileFile), "utf8")) as CpuProfile;
    const { categories, topFunctions, windowMs } = summariseCpuProfile(profile, window.from, window.to);
    // The profile's clock is CLOCK_MONOTONIC, as process.hrtime's here: samples must fill the window.
    if (windowMs < window.seconds * 500)
      throw new Error(
        `the profile's samples cover ${windowMs} ms of a ${window.seconds.toFixed(1)} s window: its clock is not this process's`,
      );
    const statements = existsSync(queriesFile)
      ? (JSON.parse(readFileSync(queriesFile, "utf8")) as StatementTime[])
      : [];
    return {
      path: pathName,
      reports,
      seconds: window.seconds,
      reportsPerSecond: reports / window.seconds,
      serviceCpuMs: window.cpuMs,
      postgresCpuMs: window.postgres,
      cpu: categories,
      topFunctions,
      statements: statements.slice(0, TOP_STATEMENTS).map((s) => ({
        ...s,
        totalMs: Math.round(s.totalMs),
        maxMs: Math.round(s.maxMs),
        statement: s.statement.slice(0, 400),
      })),
      statementsTotalMs: Math.round(statements.reduce((sum, s) => sum + s.totalMs, 0)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readModelsCaughtUp(db: BenchService["db"]): Promise<void> {
  await until(
    "read models caught up",
    async () => (await atStoreHead(db, "lab_reports")) && (await atStoreHead(db, "lab_results")),
    600_000,
  );
}

/** A bulk job of `reports` (the bulk group's reports, one job), uploaded and imported. */
export async function profiledBulk(reports: number): Promise<ProfiledRun> {
  if (reports > JOB_REPORTS || reports % REPORTS_PER_BATCH !== 0)
    throw new Error(`a profiled bulk job has a multiple of ${REPORTS_PER_BATCH} reports up to ${JOB_REPORTS}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-profile-job-"));
  try {
    const file = path.join(dir, "job.ndjson");
    await writeJobFile(file, "B", 0, reports / REPORTS_PER_BATCH);
    return await profiled("bulk", reports, async ({ service, db, tenant }) => {
      await jobDone(service.url!, tenant.client.key, await uploadJob(service.url!, tenant.client.key, file));
      await readModelsCaughtUp(db);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** SENDERS senders pushing `batches` batches of 100 each (the ingest group's burst), after a warm-up of 3 batches each. */
export async function profiledPush(batches: number): Promise<ProfiledRun> {
  return profiled(
    "push",
    SENDERS * batches * REPORTS_PER_BATCH,
    async ({ service, db, tenant }) => {
      const pushed = await runSenders({
        serviceUrl: service.url!,
        key: tenant.client.key,
        run: "M",
        batches,
        sample: false,
      });
      const firstPush = nowUs() - pushed.seconds * 1e6;
      await readModelsCaughtUp(db);
      return firstPush;
    },
    async ({ service, db, tenant }) => {
      await runSenders({ serviceUrl: service.url!, key: tenant.client.key, run: "W", batches: 3, sample: false });
      await readModelsCaughtUp(db);
    },
  );
}

/**
 * CONNECTIONS MLLP connections sending `messages` ORU^R01 messages each, WINDOW unacknowledged at a
 * time (the hl7 group's windowed figure), after a warm-up of WINDOW messages each.
 */
export async function profiledHl7(messages: number): Promise<ProfiledRun> {
  const port = await freePort();
  const send = async (key: string, first: number, count: number) => {
    const accepted = await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, c) => sendOverMllp(port, key, c, count, WINDOW, first)),
    );
    if (accepted.some((n) => n !== count))
      throw new Error(`not every message was accepted: ${accepted.join(", ")} of ${count} a connection`);
  };
  return profiled(
    "hl7",
    CONNECTIONS * messages,
    async ({ db, tenant }) => {
      await send(tenant.client.key, WINDOW, messages);
      await readModelsCaughtUp(db);
    },
    async ({ db, tenant }) => {
      await send(tenant.client.key, 0, WINDOW);
      await readModelsCaughtUp(db);
    },
    { HL7_MLLP_PORT: String(port) },
  );
}

/** The runs as tables, for the console. */
export function printProfiles(runs: ProfiledRun[]): void {
  for (const run of runs) {
    const postgres = Object.values(run.postgresCpuMs).reduce((a, b) => a + b, 0);
    console.log(
      `\n${run.path}: ${run.reports} reports in ${run.seconds.toFixed(1)} s ` +
        `(${Math.round(run.reportsPerSecond)}/s) — service CPU ${(run.serviceCpuMs / 1000).toFixed(1)} s ` +
        `(${(run.serviceCpuMs / run.reports).toFixed(2)} ms/report), PostgreSQL backends CPU ` +
        `${(postgres / 1000).toFixed(1)} s (${(postgres / run.reports).toFixed(2)} ms/report: ` +
        `${Object.entries(run.postgresCpuMs)
          .map(([app, ms]) => `${app} ${(ms / 1000).toFixed(1)} s`)
          .join(", ")})`,
    );
    console.log("  service CPU by category (self time):");
    for (const c of run.cpu)
      console.log(
        `    ${c.category.padEnd(44)} ${String(c.ms).padStart(8)} ms  ${c.category === "idle" ? "" : `${(c.share * 100).toFixed(1)} %`}`,
      );
    console.log("  functions with the most self time:");
    for (const f of run.topFunctions.slice(0, 12))
      console.log(`    ${String(f.ms).padStart(8)} ms  ${f.fn.slice(0, 90)} [${f.category}]`);
    console.log(`  statements by total time in the driver (sum ${(run.statementsTotalMs / 1000).toFixed(1)} s):`);
    for (const s of run.statements.slice(0, 10))
      console.log(
        `    ${String(s.totalMs).padStart(8)} ms ${String(s.calls).padStart(7)} calls ${String(s.rows).padStart(9)} rows  ${s.statement.slice(0, 150)}`,
      );
  }
}

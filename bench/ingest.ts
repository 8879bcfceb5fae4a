import { storeHead } from "../db/eventStore.ts";
import { createPool, type Db } from "../db/pool.ts";
import { buildServer } from "../src/buildServer.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { ingestionTenant } from "../test/support/ingestion.ts";
import { spawnService } from "../test/support/serviceProcess.ts";
import { profilingFlags } from "./forkBench.ts";
import { cpuMilliseconds, residentBytes } from "./processStats.ts";
import {
  getJson,
  ITEMS,
  makeBatch,
  MATCHED_SHARE,
  POLL_MS,
  registered,
  REPORTS_PER_BATCH,
  runSenders,
  SAMPLE_EVERY,
  SENDERS,
  sleep,
  type PushRun,
} from "./ingestSenders.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/*
 * Ingestion end to end: the real service (HTTP, validation, patient matching, item mapping,
 * append, projections) in a process of its own started as `npm start` starts it, pushed to over
 * HTTP by 4 concurrent senders running in another child process (ingestSenders.ts), each sending
 * batches of 100 reports x 20 items one after the other. The baseline is the same reports
 * inserted straight into a plain table by 4 concurrent writers.
 */

const WARMUP_BATCHES = 3;
const RSS_EVERY_MS = 100;
const TENANT = "bench";

export async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not so within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}

/** Whether a projection's live generation stands at the store's head: it holds every event stored. */
export async function atStoreHead(db: Db, projection: string): Promise<boolean> {
  const { rows } = await db.query(
    "select last_position from projection_generations where name = $1 and state = 'live'",
    [projection],
  );
  return rows.length === 1 && Number(rows[0].last_position) === (await storeHead(db));
}

/** Waits until the item rows (lab_results, what report SQL reads) hold every event stored. */
async function itemRowsCaughtUp(db: Db): Promise<void> {
  await until("item rows caught up", () => atStoreHead(db, "lab_results"), 120_000);
}

export interface OursRun {
  warmup: PushRun;
  measured: PushRun;
  itemsBehindS: number;
  peakRssMb: number;
  cpuMs: number;
  /** Ledger blocks sealed from the first measured push until the item rows held every report. */
  blocksSealed: number;
}

/**
 * A fresh database and the service on it as `npm start` runs it (its own process), with the
 * senders' patients registered; `nodeOptions` for node itself (the floor group's profiled runs).
 */
export async function benchService(env: Record<string, string> = {}, nodeOptions: string[] = []) {
  const databaseUrl = await createTestDatabase(false);
  await buildServer();
  // The service as `npm start` runs it, logging at its default level; only the rate limit is lifted.
  const service = await spawnService({
    databaseUrl,
    env: { LOG_LEVEL: "info", ...env },
    nodeOptions: [...profilingFlags(), ...nodeOptions],
  });
  const db = createPool(databaseUrl, { max: 1, applicationName: "bench-watch" });
  try {
    const tenant = await ingestionTenant(service, TENANT);
    for (let i = 1; i < registered.length; i++) {
      const p = registered[i]!;
      const answer = await tenant.call("PUT", `/api/patients/P${String(i + 1).padStart(3, "0")}`, {
        token: tenant.authorToken,
        tenant: TENANT,
        body: { name: p.name, idCard: p.idCard, hisPatientId: p.hisPatientId, ward: `W${(i % 4) + 1}` },
      });
      if (answer.status !== 200) throw new Error(`patient ${p.idCard} not registered: ${JSON.stringify(answer.body)}`);
    }
    await until(
      "patients listed",
      async () =>
        (await tenant.call("GET", "/api/patients", { token: tenant.authorToken, tenant: TENANT })).body.length ===
        registered.length,
    );
    await until(
      "client key known",
      async () => (await getJson(`${service.url}/open/v1/ping`, tenant.client.key)).status === 200,
    );
    return { service, db, tenant, databaseUrl };
  } catch (error) {
    await db.end();
    await service.stop();
    throw error;
  }
}

/** Work that runs beside the measured pushes, started as they start and stopped when they end. */
export type BesideBurst = (serviceUrl: string) => { stop: () => Promise<void> };

/**
 * One burst of pushes against a service of its own; `afterBurst` reads the store once the item
 * rows hold the burst; `besideBurst` runs while the measured senders push.
 */
export async function measureOurs(
  batches: number,
  env: Record<string, string> = {},
  afterBurst?: (db: Db) => Promise<void>,
  besideBurst?: BesideBurst,
): Promise<OursRun> {
  const { service, db, tenant } = await benchService(env);
  try {
    console.error(
      `  ingest: ${registered.length} patients registered; warming up, then ${SENDERS} senders x ${batches} batches x ${REPORTS_PER_BATCH} reports`,
    );
    const key = tenant.client.key;
    const serviceUrl = service.url!; // role all: it listens
    const warmup = await runSenders({ serviceUrl, key, run: "W", batches: WARMUP_BATCHES, sample: false });
    await itemRowsCaughtUp(db);
    // RSS and CPU are watched until every read model holds the burst, not only while pushing.
    let peakRss = residentBytes(service.pid);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentBytes(service.pid))), RSS_EVERY_MS);
    // CPU time does not depend on what else the machine runs as much as wall time does.
    const cpuBefore = cpuMilliseconds(service.pid);
    const blocks = async () => Number((await db.query("select count(*) as n from ledger_blocks")).rows[0].n);
    const blocksBefore = await blocks();
    try {
      const beside = besideBurst?.(serviceUrl);
      const measured = await runSenders({ serviceUrl, key, run: "M", batches, sample: true });
      await beside?.stop();
      const visibleAt = performance.now();
      await itemRowsCaughtUp(db);
      const itemsBehindS = (performance.now() - visibleAt) / 1000;
      const cpuMs = cpuMilliseconds(service.pid) - cpuBefore;
      const blocksSealed = (await blocks()) - blocksBefore;
      await afterBurst?.(db);
      return {
        warmup,
        measured,
        itemsBehindS,
        peakRssMb: Math.max(peakRss, residentBytes(service.pid)) / (1024 * 1024),
        cpuMs,
        blocksSealed,
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await db.end();
    await service.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Baseline: the same reports as rows of a plain table, one multi-row INSERT per batch.

async function measurePlain(ours: { warmup: PushRun; measured: PushRun }): Promise<number> {
  const db = createPool(await createTestDatabase(false), { max: SENDERS, applicationName: "bench-plain" });
  try {
    await db.query("create table plain_reports (id bigserial primary key, external_id text, body jsonb)");
    const sql =
      "insert into plain_reports (external_id, body) values " +
      `${Array.from({ length: REPORTS_PER_BATCH }, (_, r) => `($${2 * r + 1}, $${2 * r + 2})`).join(", ")}`;
    const insertAll = async (run: string, days: string[][]) => {
      const count = days[0]!.length;
      // Written before the clock starts, as the senders' bodies are.
      const params = days.map((daysOfSender, sender) =>
        daysOfSender.map((day, b) =>
          makeBatch(run, sender, b, day).reports.flatMap((report) => [report.externalId, JSON.stringify(report)]),
        ),
      );
      const started = performance.now();
      await Promise.all(
        params.map(async (paramsOfSender) => {
          for (const batch of paramsOfSender) await db.query(sql, batch);
        }),
      );
      return (SENDERS * count * REPORTS_PER_BATCH) / ((performance.now() - started) / 1000);
    };
    await insertAll("W", ours.warmup.days);
    return await insertAll("M", ours.measured.days);
  } finally {
    await db.end();
  }
}

/** The ledger's sealing every second (on) and, in effect, never (off): a day between rounds. */
const SEALING_ON = { LEDGER_SEAL_SECONDS: process.env.BENCH_SEAL_SECONDS ?? "1" };
const SEALING_OFF = { LEDGER_SEAL_SECONDS: "86400" };
/** Runs of each: alternated, so that neither side gets the machine's better minutes. */
const SEALING_PAIRS = 3;

/**
 * Contract D.2 says sealing never blocks an append; the target (#15) is that it costs the push
 * path nothing measurable: the same burst with the ledger sealed every second (every event sealed
 * while the senders push, the most sealing work a burst can meet) against sealing off.
 */
async function sealingCost(batches: number): Promise<BenchResult> {
  const on: OursRun[] = [];
  const off: OursRun[] = [];
  for (let pair = 0; pair < SEALING_PAIRS; pair++) {
    off.push(await measureOurs(batches, SEALING_OFF));
    on.push(await measureOurs(batches, SEALING_ON));
  }
  const rate = (runs: OursRun[]) => runs.reduce((sum, run) => sum + run.measured.reportsPerSecond, 0) / runs.length;
  const each = (runs: OursRun[]) => runs.map((run) => Math.round(run.measured.reportsPerSecond)).join(", ");
  const p99 = (runs: OursRun[]) =>
    percentile(
      runs.flatMap((run) => run.measured.pushMs),
      99,
    );
  const ratio = rate(on) / rate(off);
  return result(
    "ledger.ingest_ratio",
    ratio,
    "ratio",
    { value: rate(off), ratio },
    `ingest.reports_per_s with the ledger sealed every second (${Math.round(rate(on))} reports/s: ${each(on)}; ` +
      `${on.map((run) => run.blocksSealed).join(" + ")} blocks sealed during the bursts; push p99 ` +
      `${p99(on).toFixed(0)} ms) over sealing off (baseline ${Math.round(rate(off))} reports/s: ${each(off)}; ` +
      `push p99 ${p99(off).toFixed(0)} ms); ${SEALING_PAIRS} runs of each, alternated, off first; target >= 0.95`,
  );
}

export async function ingestBenchmarks(): Promise<BenchResult[]> {
  const batches = Number(process.env.BENCH_INGEST_BATCHES ?? 50);
  if (!Number.isInteger(batches) || batches < 1)
    throw new Error(`BENCH_INGEST_BATCHES must be a positive integer, not ${process.env.BENCH_INGEST_BATCHES}`);
  const { warmup, measured: ours, itemsBehindS, peakRssMb, cpuMs } = await measureOurs(batches);
  const plain = await measurePlain({ warmup, measured: ours });
  const sealing = await sealingCost(batches);
  const total = SENDERS * batches * REPORTS_PER_BATCH;
  const shape = `${SENDERS} senders x ${batches} batches x ${REPORTS_PER_BATCH} reports x ${ITEMS.length} items`;
  return [
    result(
      "ingest.reports_per_s",
      ours.reportsPerSecond,
      "reports/s",
      plain,
      `${total} reports in ${ours.seconds.toFixed(1)} s over HTTP (${shape}, ` +
        `~${Math.round(MATCHED_SHARE * 100)} % matched); baseline: the same reports as multi-row INSERTs into a ` +
        `plain table, ${SENDERS} writers`,
    ),
    result(
      "ingest.push100_p99_ms",
      percentile(ours.pushMs, 99),
      "ms",
      undefined,
      `${ours.pushMs.length} pushes; p50 ${percentile(ours.pushMs, 50).toFixed(1)} ms, max ${Math.max(...ours.pushMs).toFixed(1)} ms`,
    ),
    result(
      "ingest.visible_lag_p99_ms",
      percentile(ours.lagMs, 99),
      "ms",
      undefined,
      `${ours.lagMs.length} sampled pushes (every ${SAMPLE_EVERY}th batch, one poller), push answered -> all ` +
        `its externalIds in reconcile (polled every ${POLL_MS} ms); p50 ${percentile(ours.lagMs, 50).toFixed(1)} ` +
        `ms, max ${Math.max(...ours.lagMs).toFixed(1)} ms`,
    ),
    result(
      "ingest.items_behind_after_burst_s",
      itemsBehindS,
      "s",
      undefined,
      "once the last sampled batch was visible in reconciliation, how long the item rows (lab_results, what " +
        "report SQL reads) took to hold every report of the burst",
    ),
    result(
      "ingest.service_cpu_ms_per_report",
      cpuMs / total,
      "ms",
      undefined,
      "CPU time (user + system) of the service's process from the first push until the item rows held every " +
        "report, per report: HTTP, validation, matching, mapping, append and all projections",
    ),
    sealing,
    result(
      "ingest.peak_rss_mb",
      peakRssMb,
      "MB",
      undefined,
      "RSS of the service's process (node dist/cli.js start: HTTP, commands, projections), sampled every " +
        `${RSS_EVERY_MS} ms from the first push until the item rows held every report`,
    ),
  ];
}

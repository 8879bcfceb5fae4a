import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPool } from "../db/pool.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { atStoreHead, benchService, until } from "./ingest.ts";
import { ITEMS, makeBatch, REPORTS_PER_BATCH, SENDERS } from "./ingestSenders.ts";
import { httpJson } from "./httpJson.ts";
import { residentBytes } from "./processStats.ts";
import { bulkFloorReportsPerSecond } from "./floor.ts";
import { dayOf, jobDone, JOB_REPORTS, uploadJob, writeJobFile } from "./bulkJobs.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/*
 * Bulk import end to end (#16): one job of BENCH_BULK_REPORTS reports of 20 items (the ingest
 * group's reports) uploaded as NDJSON to the service in its own process, timed from the first
 * byte sent until reconciliation (lab_reports) and report SQL (lab_results) hold every report.
 * The baseline is the same reports as multi-row INSERTs into a plain table. A second, smaller job
 * runs while one sender pushes 100-report batches back to back: their latency is the figure.
 */

const RSS_EVERY_MS = 100;
interface JobRun {
  seconds: number;
  uploadSeconds: number;
  peakRssMb: number;
  pushMs: number[];
}

/**
 * Jobs end to end on a fresh service, uploaded one after the other and run in that order (one
 * client); `pushing` adds one sender pushing 100-report batches back to back until they are done.
 */
async function runJobs(files: string[], reports: number, pushing: boolean): Promise<JobRun> {
  const { service, db, tenant } = await benchService();
  let peakRss = residentBytes(service.pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentBytes(service.pid))), RSS_EVERY_MS);
  const pushMs: number[] = [];
  let done = false;
  const pushes = pushing
    ? (async () => {
        const url = `${service.url}/open/v1/lab/reports`;
        const headers = { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/json" };
        for (let b = 0; !done; b++) {
          const body = Buffer.from(JSON.stringify({ reports: makeBatch("P", 1, b, dayOf(b)).reports }));
          const sent = performance.now();
          const { status } = await httpJson("POST", url, headers, body);
          if (status !== 200) throw new Error(`a push during the job answered ${status}`);
          pushMs.push(performance.now() - sent);
        }
      })()
    : Promise.resolve();
  try {
    const started = performance.now();
    const jobIds: string[] = [];
    for (const file of files) jobIds.push(await uploadJob(service.url!, tenant.client.key, file));
    const uploadSeconds = (performance.now() - started) / 1000;
    let created = 0;
    for (const jobId of jobIds) created += (await jobDone(service.url!, tenant.client.key, jobId)).created;
    const jobSeconds = (performance.now() - started) / 1000;
    // The pushes end with the job: the read models are to catch up with the job, not with them.
    done = true;
    await pushes;
    await until(
      "read models caught up",
      async () => (await atStoreHead(db, "lab_reports")) && (await atStoreHead(db, "lab_results")),
      600_000,
    );
    const seconds = (performance.now() - started) / 1000;
    console.error(
      `  bulk: upload ${uploadSeconds.toFixed(1)} s, job done ${jobSeconds.toFixed(1)} s, read models ` +
        `${seconds.toFixed(1)} s${pushing ? `, ${pushMs.length} pushes` : ""}`,
    );
    if (created !== reports) throw new Error(`the jobs created ${created} reports of ${reports}`);
    return { seconds, uploadSeconds, peakRssMb: Math.max(peakRss, residentBytes(service.pid)) / (1024 * 1024), pushMs };
  } finally {
    done = true;
    clearInterval(sampler);
    await pushes.catch(() => {});
    await db.end();
    await service.stop();
  }
}

/** The same reports as rows of a plain table, one multi-row INSERT per 100, SENDERS writers. */
async function plainInserts(run: string, batches: number): Promise<number> {
  const db = createPool(await createTestDatabase(false), { max: SENDERS, applicationName: "bench-plain" });
  try {
    await db.query("create table plain_reports (id bigserial primary key, external_id text, body jsonb)");
    const sql =
      "insert into plain_reports (external_id, body) values " +
      `${Array.from({ length: REPORTS_PER_BATCH }, (_, r) => `($${2 * r + 1}, $${2 * r + 2})`).join(", ")}`;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        for (let b = next++; b < batches; b = next++) {
          // Written as the job's lines were, outside the clock's count as far as it can be: the
          // writers' making of parameters is a small part of an INSERT's time.
          const params = makeBatch(run, 0, b, dayOf(b)).reports.flatMap((report) => [
            report.externalId,
            JSON.stringify(report),
          ]);
          await db.query(sql, params);
        }
      }),
    );
    return (batches * REPORTS_PER_BATCH) / ((performance.now() - started) / 1000);
  } finally {
    await db.end();
  }
}

export async function bulkBenchmarks(): Promise<BenchResult[]> {
  const reports = Number(process.env.BENCH_BULK_REPORTS ?? 200_000);
  if (!Number.isInteger(reports) || reports < REPORTS_PER_BATCH || reports % REPORTS_PER_BATCH !== 0) {
    throw new Error(
      `BENCH_BULK_REPORTS must be a multiple of ${REPORTS_PER_BATCH}, not ${process.env.BENCH_BULK_REPORTS}`,
    );
  }
  const batches = reports / REPORTS_PER_BATCH;
  const duringBatches = Math.min(Math.max(1, Math.round(batches / 4)), JOB_REPORTS / REPORTS_PER_BATCH);
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-bulk-"));
  try {
    const files: string[] = [];
    let bytes = 0;
    const perJob = JOB_REPORTS / REPORTS_PER_BATCH;
    for (let from = 0; from < batches; from += perJob) {
      files.push(path.join(dir, `job-${files.length}.ndjson`));
      bytes += await writeJobFile(files.at(-1)!, "B", from, Math.min(batches, from + perJob));
    }
    console.error(
      `  bulk: ${reports} reports x ${ITEMS.length} items in ${files.length} job(s) (${(bytes / 1024 / 1024).toFixed(0)} MB of NDJSON)`,
    );
    const ours = await runJobs(files, reports, false);
    const plain = await plainInserts("B", batches);
    const floor = await bulkFloorReportsPerSecond();
    const duringFile = path.join(dir, "during.ndjson");
    await writeJobFile(duringFile, "D", 0, duringBatches);
    console.error(
      `  bulk: a job of ${duringBatches * REPORTS_PER_BATCH} reports while one sender pushes 100-report batches`,
    );
    const during = await runJobs([duringFile], duringBatches * REPORTS_PER_BATCH, true);
    const rate = reports / ours.seconds;
    return [
      result(
        "bulk.reports_per_s",
        rate,
        "reports/s",
        plain,
        `${reports} reports of ${ITEMS.length} items (${files.length} job(s) of at most ${JOB_REPORTS}, ` +
          `${(bytes / 1024 / 1024).toFixed(0)} MB) in ${ours.seconds.toFixed(1)} s (uploads answered 202 after ` +
          `${ours.uploadSeconds.toFixed(1)} s), first byte sent -> job DONE and lab_reports, lab_results at the ` +
          `store's head; baseline: the same reports as multi-row INSERTs (${REPORTS_PER_BATCH} a statement, ` +
          `${SENDERS} writers) into a plain table; target >= 10,000 and ratio >= 0.6`,
      ),
      result(
        "bulk.floor_ratio",
        rate / floor.rate,
        "ratio",
        undefined,
        `bulk.reports_per_s ${Math.round(rate)} against the least work a bulk import must do, measured in the ` +
          `same run: ${Math.round(floor.rate)} reports/s (${floor.note}); target >= 0.6`,
      ),
      result(
        "bulk.peak_rss_mb",
        Math.max(ours.peakRssMb, during.peakRssMb),
        "MB",
        undefined,
        `RSS of the service's process sampled every ${RSS_EVERY_MS} ms during both jobs ` +
          `(${ours.peakRssMb.toFixed(0)} and ${during.peakRssMb.toFixed(0)} MB); target <= 300`,
      ),
      result(
        "bulk.push100_p99_during_ms",
        percentile(during.pushMs, 99),
        "ms",
        undefined,
        `${during.pushMs.length} pushes of 100 reports, one after the other, while a job of ` +
          `${duringBatches * REPORTS_PER_BATCH} reports ran (${during.seconds.toFixed(1)} s); p50 ` +
          `${percentile(during.pushMs, 50).toFixed(0)} ms, max ` +
          `${Math.max(...during.pushMs).toFixed(0)} ms; target <= 500`,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { atStoreHead, benchService, until } from "./ingest.ts";
import { ITEMS, REPORTS_PER_BATCH } from "./ingestSenders.ts";
import { jobDone, uploadJob, writeJobFile } from "./bulkJobs.ts";
import { result, type BenchResult } from "./results.ts";

/*
 * Whether the month's read tables keep up with a bulk import (issue #55): one job of
 * BENCH_QUALITY_BULK_REPORTS reports of 20 items (the bulk group's reports, days of 2020 to 2022)
 * on a fresh service as `npm start` runs it, timed from the first byte sent until the job is
 * DONE, until lab_results (what report SQL reads, the bulk group's end) holds every report, and
 * until quality_months does.
 */

const REPORTS = Number(process.env.BENCH_QUALITY_BULK_REPORTS ?? 50_000);

export async function qualityBulkBenchmarks(): Promise<BenchResult[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-quality-bulk-"));
  const { service, db, tenant } = await benchService();
  try {
    const file = path.join(dir, "job.ndjson");
    await writeJobFile(file, "Q", 0, REPORTS / REPORTS_PER_BATCH);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const jobId = await uploadJob(service.url!, tenant.client.key, file);
    const { created } = await jobDone(service.url!, tenant.client.key, jobId);
    if (created !== REPORTS) throw new Error(`the job created ${created} reports of ${REPORTS}`);
    const done = seconds();
    const reached: Record<string, number> = {};
    await until(
      "lab_results and quality_months at the store's head",
      async () => {
        for (const name of ["lab_results", "quality_months"])
          if (reached[name] === undefined && (await atStoreHead(db, name))) reached[name] = seconds();
        return Object.keys(reached).length === 2;
      },
      1_800_000,
    );
    const [items, months] = [reached.lab_results!, reached.quality_months!];
    return [
      result(
        "quality.bulk_months_behind_s",
        Math.max(0, months - items),
        "s",
        undefined,
        `a bulk job of ${REPORTS} reports x ${ITEMS.length} items, first byte sent -> job DONE ${done.toFixed(1)} s, ` +
          `-> lab_results at the store's head ${items.toFixed(1)} s, -> quality_months at the store's head ` +
          `${months.toFixed(1)} s: how long the month's read tables trailed the item rows (0: they kept up)`,
      ),
    ];
  } finally {
    await db.end();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

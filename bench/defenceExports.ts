import { buildServer } from "../src/buildServer.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { tableReportSpec } from "../test/support/reports.ts";
import { spawnService } from "../test/support/serviceProcess.ts";
import { BENCH_ADMIN_TOKEN, publishBenchReport, startBenchService } from "./benchService.ts";
import { peakResidentBytes, residentBytes, resetPeakResident } from "./processStats.ts";
import { percentile, result, type BenchResult } from "./results.ts";
import { stalledExport } from "./stalledExport.ts";

/** An export big enough that a client that does not read stalls it on a full socket (as bench/defence.ts's). */
const BIG_EXPORT_QUERY =
  "select g, md5(g::text) || md5((g * 7)::text) || md5((g * 13)::text) as filler from generate_series(1, 100000) g";

const viewerHeaders = (tenant: string) => ({ "content-type": "application/json", "x-service-tenant": tenant });
const dataCall = (url: string, tenant: string, reportId: string) =>
  fetch(`${url}/api/reports/${reportId}/data`, {
    method: "POST",
    headers: viewerHeaders(tenant),
    body: JSON.stringify({}),
  }).then((answer) => answer.json());

/**
 * Issue #52, finding 4: eight xlsx exports nobody reads, four of each of two tenants, each from an
 * address of its own, while a viewer of the first tenant and one of a third call a one-row report
 * one after another for 20 s; and how long the stalled exports held report connections.
 */
export async function stalledExports(): Promise<BenchResult[]> {
  const service = await startBenchService();
  const url = service.url!;
  try {
    for (const tenant of ["bench", "south", "east"]) {
      await publishBenchReport(service, "big", tableReportSpec("big", { q: BIG_EXPORT_QUERY }), tenant);
      await publishBenchReport(service, "small", tableReportSpec("small", { q: "select 1 as n" }), tenant);
    }
    // Warm-up: loading exceljs, compiling the routes.
    await fetch(`${url}/api/reports/big/export/xlsx`, {
      method: "POST",
      headers: viewerHeaders("bench"),
      body: "{}",
    }).then((answer) => answer.arrayBuffer());
    const held = async () =>
      (
        await service.db.query(
          "select count(*)::int as n from pg_stat_activity where usename = 'dh_report_runner' and datname = current_database() and backend_xmin is not null",
        )
      ).rows[0].n as number;
    const sockets = await Promise.all([
      ...[1, 2, 3, 4].map((n) => stalledExport(url, "bench", "big", `10.1.0.${n}`)),
      ...[1, 2, 3, 4].map((n) => stalledExport(url, "south", "big", `10.2.0.${n}`)),
    ]);
    const started = performance.now();
    const calls = { bench: [] as number[], east: [] as number[] };
    let failed = 0;
    let heldUntil: number | null = null;
    try {
      while (performance.now() - started < 20_000) {
        for (const tenant of ["bench", "east"] as const) {
          const at = performance.now();
          const answer = (await dataCall(url, tenant, "small")) as { queries: { q: { rows?: unknown[] } } };
          calls[tenant].push(performance.now() - at);
          if (!answer.queries.q.rows) failed++;
        }
        if (heldUntil === null && performance.now() - started > 1000 && (await held()) === 0)
          heldUntil = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    const heldSeconds = ((heldUntil ?? performance.now()) - started) / 1000;
    const note = (tenant: "bench" | "east", who: string) =>
      `${calls[tenant].length} one-row data calls of ${who}, one after another for 20 s, while 8 xlsx exports ` +
      "of tenants bench and south (4 each, each from an address of its own) were never read " +
      "(REPORT_QUERIES_PER_TENANT 4, REPORT_POOL_SIZE 8; before issue #52 they held every turn of both tenants " +
      `and the whole pool for REPORT_EXPORT_MAX_MS): p50 ${percentile(calls[tenant], 50).toFixed(1)} ms, max ` +
      `${Math.max(...calls[tenant]).toFixed(1)} ms; ${failed} calls of either failed; target p99 <= 500 ms`;
    return [
      result(
        "defence.stalled_exports_same_tenant_p99_ms",
        percentile(calls.bench, 99),
        "ms",
        undefined,
        note("bench", "tenant bench (the stalled exports' own)"),
      ),
      result(
        "defence.stalled_exports_third_tenant_p99_ms",
        percentile(calls.east, 99),
        "ms",
        undefined,
        note("east", "tenant east (a third)"),
      ),
      result(
        "defence.stalled_exports_held_s",
        heldSeconds,
        "s",
        undefined,
        "from the 8 stalled exports' start until no report connection was in a transaction any more: each cut " +
          "RESPONSE_STALL_MS (10 s) after its buffers filled, those waiting for a turn then let in and cut in " +
          "theirs (before issue #52: REPORT_EXPORT_MAX_MS, 600 s)",
      ),
    ];
  } finally {
    await service.stop();
  }
}

/** Values of half a megabyte: a data answer of them stops at REPORT_RESULT_MAX_BYTES (32 MB). */
const HUGE_VALUES_QUERY = "select g, repeat(md5(g::text), 16384) as v from generate_series(1, 1200) g";

/**
 * Issue #52, finding 6: the service's own process (the build, as `npm start` runs it) answering 8
 * data calls of 32 MB at once: its peak resident memory above idle, what it holds 10 s later, and
 * the peak of one xlsx export of 400 such values.
 */
export async function largeAnswers(): Promise<BenchResult[]> {
  await buildServer();
  const service = await spawnService({
    databaseUrl: await createTestDatabase(false),
    env: { ADMIN_TOKEN: BENCH_ADMIN_TOKEN },
  });
  const mb = (bytes: number) => bytes / 1024 / 1024;
  const call = async (path: string) => {
    const answer = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: viewerHeaders("bench"),
      body: "{}",
    });
    let bytes = 0;
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    return bytes;
  };
  const settled = async () => {
    let lowest = Infinity;
    for (let i = 0; i < 5; i++) {
      lowest = Math.min(lowest, residentBytes(service.pid));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return mb(lowest);
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    await publishBenchReport(service, "huge", tableReportSpec("huge", { values: HUGE_VALUES_QUERY }));
    await publishBenchReport(
      service,
      "huge-export",
      tableReportSpec("huge-export", { values: HUGE_VALUES_QUERY.replace("1200", "400") }),
    );
    await call("/api/reports/huge/data"); // warm-up
    await pause(4000);
    const idle = await settled();
    resetPeakResident(service.pid);
    const sizes = await Promise.all(Array.from({ length: 8 }, () => call("/api/reports/huge/data")));
    const peak = mb(peakResidentBytes(service.pid));
    await pause(10_000);
    const after = mb(residentBytes(service.pid));
    const exportIdle = await settled();
    resetPeakResident(service.pid);
    await call("/api/reports/huge-export/export/xlsx");
    const exportPeak = mb(peakResidentBytes(service.pid));
    const answered =
      `8 data calls at once, each answering ${mb(sizes[0]!).toFixed(0)} MB (values of 512 kB, truncated at ` +
      "REPORT_RESULT_MAX_BYTES), to the service's own process (npm start's build and MALLOC_ARENA_MAX=2); idle " +
      `${idle.toFixed(0)} MB`;
    return [
      result(
        "defence.large_answers_peak_mb",
        peak - idle,
        "MB",
        undefined,
        `peak resident memory above idle (VmHWM) while ${answered}, peak ${peak.toFixed(0)} MB; 256 MB of ` +
          "values in flight; target <= 384 MB (issue #52 found 1,481 MB in all)",
      ),
      result(
        "defence.large_answers_after_mb",
        after - idle,
        "MB",
        undefined,
        `resident memory above idle 10 s after ${answered}: ${after.toFixed(0)} MB; target <= 64 MB (issue #52 found about 830 MB in all)`,
      ),
      result(
        "defence.large_values_xlsx_peak_mb",
        exportPeak - exportIdle,
        "MB",
        undefined,
        `peak resident memory above idle (${exportIdle.toFixed(0)} MB) during one xlsx export of 400 values of ` +
          `512 kB (200 MB read): ${exportPeak.toFixed(0)} MB; target <= 100 MB (issue #52 found 653 MB in all)`,
      ),
    ];
  } finally {
    await service.stop();
  }
}

import { ADMIN } from "../test/support/http.ts";
import { httpJson } from "./httpJson.ts";
import { measureOurs, type BesideBurst, type OursRun } from "./ingest.ts";
import { ITEMS, REPORTS_PER_BATCH, SENDERS } from "./ingestSenders.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/*
 * `quality.close_cost_ratio` (issue #55, target >= 0.95): the ingest group's burst (4 senders x
 * batches of 100 reports of 20 items, the service in its own process as `npm start` runs it) while
 * an administrator closes months one after another, against the same burst without, in
 * alternated rounds. The months closed are those the burst's reports are collected in (2022 on),
 * of the whole tenant and of each of its four wards, so that every push after a close also keeps
 * the moves of the closed months it changes: all a close adds to the push path.
 */

const PAIRS = Number(process.env.BENCH_QUALITY_CLOSE_PAIRS ?? 3);
const WARDS = [null, "W1", "W2", "W3", "W4"];

/** 2022-01 on: the months of the measured burst's reports (bench/ingestSenders.ts). */
const closable = Array.from(
  { length: 36 },
  (_, i) => `${2022 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}`,
);

interface Closing {
  statuses: Map<number, number>;
  closeMs: number[];
}

/** Closes month after month (each of the tenant, then of each ward) until stopped. */
function closingMonths(into: Closing): BesideBurst {
  return (serviceUrl) => {
    let stopped = false;
    const work = (async () => {
      for (const month of closable)
        for (const ward of WARDS) {
          if (stopped) return;
          const started = performance.now();
          const { status } = await httpJson(
            "POST",
            `${serviceUrl}/api/quality/months/${month}/close`,
            { authorization: `Bearer ${ADMIN}`, "x-service-tenant": "bench", "content-type": "application/json" },
            Buffer.from(JSON.stringify(ward === null ? {} : { ward })),
          );
          into.closeMs.push(performance.now() - started);
          into.statuses.set(status, (into.statuses.get(status) ?? 0) + 1);
          if (status !== 201 && status !== 503) throw new Error(`a close answered ${status}`);
        }
    })();
    return {
      stop: async () => {
        stopped = true;
        await work;
      },
    };
  };
}

export async function qualityCloseCostBenchmarks(): Promise<BenchResult[]> {
  const batches = Number(process.env.BENCH_INGEST_BATCHES ?? 50);
  const without: OursRun[] = [];
  const withCloses: OursRun[] = [];
  const closing: Closing = { statuses: new Map(), closeMs: [] };
  for (let pair = 0; pair < PAIRS; pair++) {
    console.error(`  quality: ingest round ${pair + 1} of ${PAIRS}, without closes, then with`);
    without.push(await measureOurs(batches));
    withCloses.push(await measureOurs(batches, {}, undefined, closingMonths(closing)));
  }
  const rate = (runs: OursRun[]) => runs.reduce((sum, run) => sum + run.measured.reportsPerSecond, 0) / runs.length;
  const each = (runs: OursRun[]) => runs.map((run) => Math.round(run.measured.reportsPerSecond)).join(", ");
  const behind = (runs: OursRun[]) => runs.map((run) => run.itemsBehindS.toFixed(1)).join(", ");
  const ratio = rate(withCloses) / rate(without);
  const closes = [...closing.statuses].map(([status, count]) => `${count} answered ${status}`).join(", ");
  return [
    result(
      "quality.close_cost_ratio",
      ratio,
      "ratio",
      { value: rate(without), ratio },
      `ingest reports/s (${SENDERS} senders x ${batches} batches x ${REPORTS_PER_BATCH} reports x ${ITEMS.length} ` +
        `items) while an administrator closed months of the burst's years one after another, each of the tenant ` +
        `and of its 4 wards (${Math.round(rate(withCloses))} reports/s: ${each(withCloses)}; ${closes}; close p50 ` +
        `${percentile(closing.closeMs, 50).toFixed(0)} ms, p99 ${percentile(closing.closeMs, 99).toFixed(0)} ms; ` +
        `item rows behind after the burst ${behind(withCloses)} s) against none (baseline ` +
        `${Math.round(rate(without))} reports/s: ${each(without)}; behind ${behind(without)} s); ${PAIRS} rounds of ` +
        "each, alternated, without first, each on a fresh service; target >= 0.95",
    ),
  ];
}

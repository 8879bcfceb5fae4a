import type { Db } from "../db/pool.ts";
import { measureOurs, type OursRun } from "./ingest.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/*
 * Contract F.2's cost to a push (#36). Derived values are worked out on reading, so what they add
 * to writing a report is the index of the rows formulas read by day (lab_results_by_derivation_day,
 * some six of a report's twenty rows): the ingest group's burst (its reports carry pre- and
 * post-dialysis urea, calcium, albumin, phosphorus and TSAT) with that index, against the same
 * burst with DERIVATION_INDEX=off, in runs alternated so that neither side gets the machine's
 * better minutes. The item rows are waited for in both: the figure is the pushes' rate, which the
 * projection's work shares the machine with.
 */

const PAIRS = 3;

/** Fails the run unless the index is there (on) or not (off): a figure of a switch that did nothing is no figure. */
function derivationIndexBuilt(expected: boolean): (db: Db) => Promise<void> {
  return async (db) => {
    const { rows } = await db.query(
      "select count(*)::int as n from pg_indexes where indexname = 'lab_results_by_derivation_day'",
    );
    if (rows[0].n > 0 !== expected)
      throw new Error(`DERIVATION_INDEX ${expected ? "on" : "off"}, yet ${rows[0].n} such indexes`);
  };
}

export async function derivedBenchmarks(): Promise<BenchResult[]> {
  const batches = Number(process.env.BENCH_INGEST_BATCHES ?? 50);
  if (!Number.isInteger(batches) || batches < 1)
    throw new Error(`BENCH_INGEST_BATCHES must be a positive integer, not ${process.env.BENCH_INGEST_BATCHES}`);
  const on: OursRun[] = [];
  const off: OursRun[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    off.push(await measureOurs(batches, { DERIVATION_INDEX: "off" }, derivationIndexBuilt(false)));
    on.push(await measureOurs(batches, { DERIVATION_INDEX: "on" }, derivationIndexBuilt(true)));
  }
  const rate = (runs: OursRun[]) => runs.reduce((sum, run) => sum + run.measured.reportsPerSecond, 0) / runs.length;
  const each = (runs: OursRun[]) => runs.map((run) => Math.round(run.measured.reportsPerSecond)).join(", ");
  const p99 = (runs: OursRun[]) =>
    percentile(
      runs.flatMap((run) => run.measured.pushMs),
      99,
    );
  const behind = (runs: OursRun[]) => runs.map((run) => run.itemsBehindS.toFixed(1)).join(", ");
  const ratio = rate(on) / rate(off);
  return [
    result(
      "derived.push_cost_ratio",
      ratio,
      "ratio",
      { value: rate(off), ratio },
      `ingest.reports_per_s with the derivation index (${Math.round(rate(on))} reports/s: ${each(on)}; push ` +
        `p99 ${p99(on).toFixed(0)} ms; item rows whole ${behind(on)} s after the bursts) over ` +
        `DERIVATION_INDEX=off (baseline ${Math.round(rate(off))} reports/s: ${each(off)}; push p99 ` +
        `${p99(off).toFixed(0)} ms; ${behind(off)} s); ${PAIRS} runs of each, alternated, off ` +
        "first; target >= 0.95",
    ),
  ];
}

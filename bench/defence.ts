import pg from "pg";
import { createTestDatabase } from "../test/support/database.ts";
import { labReport } from "../test/support/ingestion.ts";
import { benchHeaders, startBenchService } from "./benchService.ts";
import { percentile, result, type BenchResult } from "./results.ts";

const PUSHES_PER_ROUND = 80;
const REPORTS_PER_PUSH = 5;
/** Rounds of each condition, alternated (idle first), so drift over the run falls on both alike. */
const ROUNDS = 3;
const POLL_MS = 5;

type Push = (reports: unknown[]) => Promise<void>;
type Listed = (day: string) => Promise<number>;

/**
 * Issue #32, `defence` group. So far its fourth target: push-to-visible while another database of
 * the same PostgreSQL server holds a writing transaction open (another application's batch load),
 * against the same pushes with no such transaction, in one run (target: ratio ≤ 1.5).
 */
export async function defenceBenchmarks(): Promise<BenchResult[]> {
  const service = await startBenchService({ OPEN_API_RATE_PER_SECOND: "100000", OPEN_API_BURST: "100000" });
  const elsewhere = new pg.Client({ connectionString: await createTestDatabase(false) });
  await elsewhere.connect();
  try {
    const created = await fetch(`${service.url}/api/admin/clients`, {
      method: "POST",
      headers: benchHeaders,
      body: JSON.stringify({ name: "bench lab", tenant: "bench" }),
    });
    const { key } = (await created.json()) as { key: string };
    const open = { authorization: `Bearer ${key}`, "content-type": "application/json", "x-service-tenant": "bench" };
    const push: Push = async (reports) => {
      const answer = await fetch(`${service.url}/open/v1/lab/reports`, { method: "POST", headers: open, body: JSON.stringify({ reports }) });
      if (answer.status !== 200) throw new Error(`push answered ${answer.status}: ${await answer.text()}`);
    };
    const listed: Listed = async (day) => {
      const answer = await fetch(`${service.url}/open/v1/reconcile/lab?date=${day}`, { headers: open });
      return ((await answer.json()) as { data: { labReportCount: number } }).data.labReportCount;
    };
    await elsewhere.query("create table batch_load (n int)");

    // Warm-up, not measured: the first pushes of a fresh process pay for compiling and connecting.
    await lagsOfRound(push, listed, "W", dayOf(27));
    const idle: number[] = [];
    const foreign: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      idle.push(...(await lagsOfRound(push, listed, `I${round}`, dayOf(2 * round))));
      await elsewhere.query("begin");
      // A write gives it a transaction id: from now on the oldest running one on the server.
      await elsewhere.query("insert into batch_load values (1)");
      try {
        foreign.push(...(await lagsOfRound(push, listed, `F${round}`, dayOf(2 * round + 1))));
      } finally {
        await elsewhere.query("rollback");
      }
    }
    const p99 = percentile(foreign, 99);
    const idleP99 = percentile(idle, 99);
    return [
      result(
        "defence.foreign_xact_visible_p99_ratio",
        p99 / idleP99,
        "ratio",
        undefined,
        `push answered -> its reports counted by reconciliation (polled every ${POLL_MS} ms), ${foreign.length} pushes of ${REPORTS_PER_PUSH} while another database of the server held a writing transaction open: p99 ${p99.toFixed(1)} ms, p50 ${percentile(foreign, 50).toFixed(1)} ms; the same with none open: p99 ${idleP99.toFixed(1)} ms, p50 ${percentile(idle, 50).toFixed(1)} ms; ${ROUNDS} rounds of each, alternated; target <= 1.5`,
      ),
      result("defence.foreign_xact_visible_p99_ms", p99, "ms", { value: idleP99, ratio: p99 / idleP99 }, "the figures of the ratio above: with the foreign transaction open, beside none open"),
    ];
  } finally {
    await elsewhere.end();
    await service.stop();
  }
}

function dayOf(n: number): string {
  return `2026-02-${String(n + 1).padStart(2, "0")}`;
}

/** Pushes one after another; for each, the milliseconds from its answer until reconciliation counts it. */
async function lagsOfRound(push: Push, listed: Listed, prefix: string, day: string): Promise<number[]> {
  const lags: number[] = [];
  for (let p = 0; p < PUSHES_PER_ROUND; p++) {
    const reports = Array.from({ length: REPORTS_PER_PUSH }, (_, r) =>
      labReport(`${prefix}-${p}-${r}`, { collectedAt: `${day} 07:30:00`, reportedAt: `${day} 11:00:00` }),
    );
    await push(reports);
    const answeredAt = performance.now();
    const expected = (p + 1) * REPORTS_PER_PUSH;
    while ((await listed(day)) < expected) {
      if (performance.now() - answeredAt > 120_000) throw new Error(`push ${prefix}-${p} not visible within 2 minutes`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    lags.push(performance.now() - answeredAt);
  }
  return lags;
}


import { createPool } from "../db/pool.ts";
import { monthBefore } from "../queries/quality/monthFigures.ts";
import { currentMonth } from "../src/quality/qualityParams.ts";
import { generateDemoData } from "../src/demo/demoData.ts";
import { ADMIN } from "../test/support/http.ts";
import { groupReports } from "./growth.ts";
import { httpJson } from "./httpJson.ts";
import { atStoreHead, until } from "./ingest.ts";
import type { RunningService } from "../src/app/service.ts";
import {
  buildQualityStore,
  MEASURED_TENANT,
  MEASURED_WARD,
  serveQualityStore,
  type QualityStore,
} from "./qualityStores.ts";
import { median, percentile, result, type BenchResult } from "./results.ts";

/*
 * Issue #55's read figures of the month's quality figures (contract G.2), in one run:
 * - the month of a ward on a store of BENCH_QUALITY_REPORTS lab reports (2 M, the growth store)
 *   against the same call on one of BENCH_QUALITY_SMALL_REPORTS (100 k), both served at once and
 *   called in turn, so that both share the machine's moments;
 * - a closed month's restatement with RESTATED_EVENTS events recorded after the close, against the
 *   month's own call (its frozen figures) and an open month of the same ward counted live.
 */

const CALLS = Number(process.env.BENCH_QUALITY_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_QUALITY_ROUNDS ?? 3);
const WARMUP_CALLS = 20;
const RESTATED_EVENTS = 1000;

const headers = (tenant: string) => ({ authorization: `Bearer ${ADMIN}`, "x-service-tenant": tenant });

async function get(url: string, tenant: string): Promise<unknown> {
  const { status, answer } = await httpJson("GET", url, headers(tenant), null);
  if (status !== 200) throw new Error(`GET ${url} answered ${status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/**
 * ROUNDS rounds of CALLS calls of each caller, in turn (who goes first turns too), after a warm-up:
 * every call's time, and each round's p99 by caller.
 */
async function inTurn<K extends string>(callers: Record<K, () => Promise<unknown>>) {
  const names = Object.keys(callers) as K[];
  for (let i = 0; i < WARMUP_CALLS; i++) for (const name of names) await callers[name]();
  const all = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  const rounds: Array<Record<K, number>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
    for (let i = 0; i < CALLS; i++)
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        times[name].push(await timed(callers[name]));
      }
    for (const name of names) all[name].push(...times[name]);
    rounds.push(Object.fromEntries(names.map((name) => [name, percentile(times[name], 99)])) as Record<K, number>);
  }
  const p99 = (name: K) => percentile(all[name], 99);
  const describe = (name: K) => `p99 ${p99(name).toFixed(1)} ms (p50 ${median(all[name]).toFixed(1)} ms)`;
  const spread = (top: K, bottom: K) => rounds.map((round) => (round[top] / round[bottom]).toFixed(2)).join(", ");
  return { p99, describe, spread };
}

/** A built store and the service answering on it. */
interface Served extends QualityStore {
  url: string;
}

const monthUrl = (store: Served, month: string, tail = "") =>
  `${store.url}/api/quality/months/${month}${tail}?ward=${MEASURED_WARD}`;

/**
 * RESTATED_EVENTS lab reports recorded after the close, for the ward's patients in the month:
 * half late reports collected on the month's last days, then each of them corrected (its values
 * changed), pushed 100 at a time as the laboratory would.
 */
async function lateReports(store: Served, month: string, now: Date): Promise<void> {
  const ofWard = new Set(
    generateDemoData(now, 1)
      .patients.filter((patient) => patient.ward === MEASURED_WARD)
      .map((patient) => patient.idCard),
  );
  const ofMonth = groupReports(0, now).filter(
    (report) => report.collectedAt.startsWith(month) && ofWard.has(report.patient.idCard ?? ""),
  );
  const late = RESTATED_EVENTS / 2;
  const lastDay = `${month}-28`;
  const version = (k: number, factor: number) => {
    const base = ofMonth[k % ofMonth.length]!;
    return {
      ...base,
      externalId: `LATE-${k}`,
      reportNo: `LATE-${k}`,
      collectedAt: `${lastDay} ${String(8 + (k % 10)).padStart(2, "0")}:00:00`,
      reportedAt: `${lastDay} 20:00:00`,
      items: base.items.map((item) => ({ ...item, value: Math.round(item.value * factor * 100) / 100 })),
    };
  };
  const key = store.tenants.find((tenant) => tenant.name === MEASURED_TENANT)!.client.key;
  for (const factor of [0.85, 1.1])
    for (let from = 0; from < late; from += 100) {
      const reports = Array.from({ length: Math.min(100, late - from) }, (_, i) => version(from + i, factor));
      const { status, answer } = await httpJson(
        "POST",
        `${store.url}/open/v1/lab/reports`,
        { authorization: `Bearer ${key}`, "content-type": "application/json" },
        Buffer.from(JSON.stringify({ reports })),
      );
      if (status !== 200 || answer.data.accepted !== reports.length)
        throw new Error(`late reports not stored: ${JSON.stringify(answer).slice(0, 300)}`);
    }
}

/** The ward's month on the small and the big store, then the big store's restatement. */
export async function qualityMonthBenchmarks(): Promise<BenchResult[]> {
  const now = new Date();
  const bigTarget = Number(process.env.BENCH_QUALITY_REPORTS ?? 2_000_000);
  const smallTarget = Number(process.env.BENCH_QUALITY_SMALL_REPORTS ?? 100_000);
  const month = monthBefore(currentMonth(now), 1);
  // Both built before either is served (serveQualityStore says why).
  const bigStore = await buildQualityStore(bigTarget, now, "big");
  const smallStore = await buildQualityStore(smallTarget, now, "small");
  const services: RunningService[] = [];
  const serve = async (store: QualityStore): Promise<Served> => {
    const service = await serveQualityStore(store);
    services.push(service);
    return { ...store, url: service.url! };
  };
  try {
    const big = await serve(bigStore);
    const small = await serve(smallStore);
    const stores = { small, big };
    // The figures compare the same month: the ward's patients and places the same in both stores.
    const [smallAnswer, bigAnswer] = [
      await get(monthUrl(small, month), MEASURED_TENANT),
      await get(monthUrl(big, month), MEASURED_TENANT),
    ];
    if (JSON.stringify(smallAnswer) !== JSON.stringify(bigAnswer))
      throw new Error(
        `the ward's month differs between the stores: ${JSON.stringify([smallAnswer, bigAnswer]).slice(0, 600)}`,
      );
    const patients = new Set(
      (bigAnswer as { indicators: Array<{ patients: Record<string, string[]> }> }).indicators.flatMap((indicator) =>
        Object.values(indicator.patients).flat(),
      ),
    ).size;
    const months = await inTurn({
      small: () => get(monthUrl(stores.small, month), MEASURED_TENANT),
      big: () => get(monthUrl(stores.big, month), MEASURED_TENANT),
    });
    const monthRatio = months.p99("big") / months.p99("small");

    // The restatement, on the big store: the month closed, then late results and corrections.
    const closed = await httpJson(
      "POST",
      `${big.url}/api/quality/months/${month}/close`,
      { ...headers(MEASURED_TENANT), "content-type": "application/json" },
      Buffer.from(JSON.stringify({ ward: MEASURED_WARD })),
    );
    if (closed.status !== 201) throw new Error(`close answered ${closed.status}: ${JSON.stringify(closed.answer)}`);
    await lateReports(big, month, now);
    const db = createPool(big.databaseUrl, { max: 1, applicationName: "bench-quality-watch" });
    try {
      await until("quality_months at the store's head", () => atStoreHead(db, "quality_months"), 120_000);
    } finally {
      await db.end();
    }
    const restated = (await get(monthUrl(big, month, "/restatement"), MEASURED_TENANT)) as {
      indicators: Array<{ changes: Array<{ because: unknown[] }> }>;
    };
    const changes = restated.indicators.flatMap((indicator) => indicator.changes);
    if (changes.length === 0) throw new Error("the restatement names no change: the late reports moved nobody");
    const openMonth = monthBefore(month, 1);
    const restatement = await inTurn({
      restatement: () => get(monthUrl(big, month, "/restatement"), MEASURED_TENANT),
      closed: () => get(monthUrl(big, month), MEASURED_TENANT),
      open: () => get(monthUrl(big, openMonth), MEASURED_TENANT),
    });
    const restatementRatio = restatement.p99("restatement") / restatement.p99("closed");
    const how = `${ROUNDS} rounds of ${CALLS} calls of each, in turn, after ${WARMUP_CALLS} of each`;
    const stores2 =
      `${big.reports} lab reports (${big.groups} groups of 220 patients, five years of monthly panels, ` +
      `built in ${big.buildSeconds.toFixed(0)} s) against ${small.reports} (${small.groups} groups, built in ` +
      `${small.buildSeconds.toFixed(0)} s)`;
    return [
      result(
        "quality.month_p99_ratio",
        monthRatio,
        "ratio",
        { value: months.p99("small"), ratio: monthRatio },
        `GET /api/quality/months/${month}?ward=${MEASURED_WARD} of ${MEASURED_TENANT} (${patients} patients, the same ` +
          `answer on both stores, checked) on ${stores2}: ${months.describe("big")} against ${months.describe("small")} ` +
          `(baseline); each round's ratio ${months.spread("big", "small")}; ${how}; both stores served at once by ` +
          "services in this process running the quality read models only (built like bench/growth.ts, without " +
          "rebuilding the others); target <= 1.2",
      ),
      result(
        "quality.restatement_p99_ratio",
        restatementRatio,
        "ratio",
        { value: restatement.p99("closed"), ratio: restatementRatio },
        `GET /api/quality/months/${month}/restatement?ward=${MEASURED_WARD} on the ${big.reports}-report store with ` +
          `${RESTATED_EVENTS} lab report events recorded after the close (${RESTATED_EVENTS / 2} late reports, each ` +
          `then corrected; ${changes.length} changed places named with ` +
          `${changes.reduce((sum, change) => sum + change.because.length, 0)} reasons): ` +
          `${restatement.describe("restatement")} against the month's own call, its frozen figures (baseline), ` +
          `${restatement.describe("closed")}; each round's ratio ${restatement.spread("restatement", "closed")}; the ` +
          `month before, open and counted live, ${restatement.describe("open")} (restatement / open each round ` +
          `${restatement.spread("restatement", "open")}); ${how}; target <= 1.5`,
      ),
    ];
  } finally {
    for (const service of services) await service.stop();
  }
}

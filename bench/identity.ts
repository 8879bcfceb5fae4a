import os from "node:os";
import type { RunningService } from "../src/app/service.ts";
import { makeIdCard } from "../src/demo/demoData.ts";
import { loadIdentifierHasher } from "../src/secrets/identifierKey.ts";
import { SessionStore } from "../src/staffSessions/sessionStore.ts";
import { labReport } from "../test/support/ingestion.ts";
import { benchHeaders, startBenchService } from "./benchService.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/** Reports of the patient whose chart is read: two a month for ten years, as a hospital keeps them. */
const REPORTS = 240;
/** Rounds of one call to each service, in a new random order each round. */
const ROUNDS = 4000;
/** Rounds first, not measured: compiled code, connections and caches as they stay. */
const WARM_UP_ROUNDS = 100;
const SESSION_CHECKS = 3000;

/**
 * Issue #33's figures:
 * - `access.patient_results_p99_ratio` (target ≤ 1.1): `GET /api/patients/{ref}/results` with
 *   the access log recording every answer (written and projected as in production, every
 *   ACCESS_LOG_FLUSH_MS as configured by default), against services that record none, in one run.
 *   Three services hold the same chart: the recording one and two silent twins; each round calls
 *   each of them once, in a random order, so that whatever else the machine does (other processes,
 *   a GC, PostgreSQL's checkpoints) falls on every side alike and no side always goes first. The
 *   ratio is the recording service's p99 over the silent pair's (both twins' calls together); the
 *   two twins against each other are the run's floor: what the same measurement shows between
 *   services that differ in nothing. Hence the rounds: a p99 of 800 calls is their 8th slowest, and
 *   in stretches of 800 calls of one run (2 CPUs, other work on the machine) one twin's p99 over
 *   the other's ranged from 0.70 to 1.23 (5th to 95th percentile).
 *   What the figure leaves out: the recorder's writes and the projection of its records run in
 *   the background (one write each ACCESS_LOG_FLUSH_MS) and slow whichever call they meet, on any
 *   side alike (some 5% of the calls of each side meet one: median 5.5-6 ms against 3.8); the
 *   ratio is what recording costs the answer itself.
 * - `identity.session_check_p99_ms` (target ≤ 2): what resolving a session cookie costs each
 *   request — the look-up that is also the touch of its idle clock.
 */
export async function identityBenchmarks(): Promise<BenchResult[]> {
  const env = { OPEN_API_RATE_PER_SECOND: "100000", OPEN_API_BURST: "100000" };
  const recording = await startBenchService(env);
  const silent = await startBenchService(env, { recordAccess: false });
  const twin = await startBenchService(env, { recordAccess: false });
  const services = [recording, silent, twin];
  try {
    for (const service of services) await seedChart(service);
    for (let round = 0; round < WARM_UP_ROUNDS; round++) for (const service of services) await readChart(service);
    const times = new Map<RunningService, number[]>(services.map((service) => [service, []]));
    const loadBefore = os.loadavg()[0]!;
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) {
      for (const service of shuffled(services)) times.get(service)!.push(await readChart(service));
    }
    const seconds = (performance.now() - started) / 1000;
    const loadAfter = os.loadavg()[0]!;
    const on = times.get(recording)!;
    const [off1, off2] = [times.get(silent)!, times.get(twin)!];
    const off = [...off1, ...off2];
    const { records, writes } = await recordsWrittenAndProjected(recording, WARM_UP_ROUNDS + ROUNDS);
    for (const service of [silent, twin]) {
      const { rows } = await service.db.query(
        "select count(*)::int as n from events where type = 'PatientRecordsShown'",
      );
      if (rows[0].n !== 0) throw new Error(`a silent service recorded ${rows[0].n} access records`);
    }
    const { session, floor } = await sessionChecks(recording);
    const ms = (values: number[], p: number) => percentile(values, p).toFixed(2);
    return [
      result(
        "access.patient_results_p99_ratio",
        percentile(on, 99) / percentile(off, 99),
        "ratio",
        undefined,
        `GET /api/patients/{ref}/results of a patient with ${REPORTS} reports, ${ROUNDS} rounds of one call to ` +
          `each of three services in a random order (after ${WARM_UP_ROUNDS} rounds of warm-up), ` +
          `${seconds.toFixed(0)} s, load average ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)} on ` +
          `${os.availableParallelism()} CPUs: ` +
          `recorded p99 ${ms(on, 99)} ms (p50 ${ms(on, 50)}, p90 ${ms(on, 90)}; ${records} records in ${writes} writes, every one projected), ` +
          `not recorded p99 ${ms(off, 99)} ms (p50 ${ms(off, 50)}, p90 ${ms(off, 90)}; two silent services, ${off.length} calls); ` +
          `floor, the silent twins against each other: p99 ${ms(off2, 99)} / ${ms(off1, 99)} ms = ` +
          `${(percentile(off2, 99) / percentile(off1, 99)).toFixed(2)}; target <= 1.1`,
      ),
      result(
        "identity.session_check_p99_ms",
        percentile(session, 99),
        "ms",
        undefined,
        `${session.length} look-ups of a session cookie one after another (the keyed digest and one statement, ` +
          `which moves the idle clock only when it is a step behind): p50 ${percentile(session, 50).toFixed(3)} ` +
          `ms, max ${Math.max(...session).toFixed(3)} ms; the floor, a \`select 1\` on the same pool alternated ` +
          `with them: p99 ${percentile(floor, 99).toFixed(3)} ms, p50 ${percentile(floor, 50).toFixed(3)} ms ` +
          `(ratio ${(percentile(session, 99) / percentile(floor, 99)).toFixed(2)}); target <= 2 ms`,
      ),
    ];
  } finally {
    for (const service of services) await service.stop();
  }
}

/** A new order of the same items (Fisher–Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * The chart calls' access records as the recording service wrote them (the registration's record
 * besides), once the access_log projection holds every one: the on side did all that production does.
 */
async function recordsWrittenAndProjected(
  service: RunningService,
  calls: number,
): Promise<{ records: number; writes: number }> {
  const count = async () =>
    (
      await service.db.query<{ records: number; writes: number; projected: number }>(
        `select count(*)::int as records, count(distinct transaction_id)::int as writes,
                (select count(*)::int from read.access_log where action = 'GET /api/patients/{patientRef}/results') as projected
         from events where type = 'PatientRecordsShown' and data->>'action' = 'GET /api/patients/{patientRef}/results'`,
      )
    ).rows[0]!;
  for (const started = Date.now(); ;) {
    const { records, writes, projected } = await count();
    if (records === calls && projected === calls) return { records, writes };
    if (Date.now() - started > 30_000)
      throw new Error(`access records of ${calls} calls: ${records} written, ${projected} projected after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function seedChart(service: RunningService): Promise<void> {
  const idCard = makeIdCard("110105", "19500101", 1);
  const put = await fetch(`${service.url}/api/patients/P-CHART`, {
    method: "PUT",
    headers: benchHeaders,
    body: JSON.stringify({ name: "图表病人", idCard, ward: "1A" }),
  });
  if (put.status !== 200) throw new Error(`patient not registered: ${put.status}`);
  const created = await fetch(`${service.url}/api/admin/clients`, {
    method: "POST",
    headers: benchHeaders,
    body: JSON.stringify({ name: "bench lab", tenant: "bench" }),
  });
  const { key } = (await created.json()) as { key: string };
  for (let batch = 0; batch < REPORTS; batch += 40) {
    const reports = Array.from({ length: 40 }, (_, i) => {
      const n = batch + i;
      const day = new Date(Date.UTC(2016, 0, 1 + n * 15)).toISOString().slice(0, 10);
      return labReport(`CHART-${n}`, {
        patient: { idCard, name: "图表病人" },
        collectedAt: `${day} 07:30:00`,
        reportedAt: `${day} 11:00:00`,
      });
    });
    const pushed = await fetch(`${service.url}/open/v1/lab/reports`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-service-tenant": "bench" },
      body: JSON.stringify({ reports }),
    });
    if (pushed.status !== 200) throw new Error(`push answered ${pushed.status}`);
  }
  // The chart reads the read model: wait until it holds every report.
  for (const started = Date.now(); ;) {
    const { rows } = await service.db.query(
      "select count(*)::int as n from read.lab_reports where patient_ref = 'P-CHART'",
    );
    if (rows[0].n >= REPORTS) break;
    if (Date.now() - started > 120_000) throw new Error("the reports did not reach the chart within 2 minutes");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function readChart(service: RunningService): Promise<number> {
  const started = performance.now();
  const answer = await fetch(`${service.url}/api/patients/P-CHART/results?from=2016-01-01&to=2026-01-01`, {
    headers: benchHeaders,
  });
  await answer.arrayBuffer();
  if (answer.status !== 200) throw new Error(`results answered ${answer.status}`);
  return performance.now() - started;
}

/** Session look-ups, each beside the least any look-up costs: a round trip of the same pool. */
async function sessionChecks(service: RunningService): Promise<{ session: number[]; floor: number[] }> {
  const sessions = new SessionStore(service.db, await loadIdentifierHasher(service.db, undefined), {
    idleMs: 30 * 60_000,
    maxMs: 12 * 3_600_000,
  });
  const { cookie } = await sessions.open({
    sub: "bench-nurse",
    name: "Bench nurse",
    tenant: "bench",
    roles: ["clinician"],
    wards: ["1A"],
    idToken: "bench",
  });
  const session: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < SESSION_CHECKS; i++) {
    let started = performance.now();
    if (!(await sessions.touch(cookie))) throw new Error("the session was not found");
    session.push(performance.now() - started);
    started = performance.now();
    await service.db.query("select 1");
    floor.push(performance.now() - started);
  }
  return { session, floor };
}

import pg from "pg";
import { ingestionTenant, labReport } from "../test/support/ingestion.ts";
import { startReplicatedPostgres } from "../test/support/replicatedPostgres.ts";
import { tableReportSpec } from "../test/support/reports.ts";
import { spawnService } from "../test/support/serviceProcess.ts";
import { buildServer } from "../src/buildServer.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/*
 * #18 with real processes: PostgreSQL servers of the machine's own binaries (a primary and a
 * standby made by pg_basebackup) and the service started as `npm start` starts it.
 *
 * - replica.report_lag_p99_ms: the clinical data source on an asynchronous replica, four senders
 *   pushing batches of 100 reports; a probe report pushed, then a report's data call on the
 *   replica asked until it lists it: push answered → visible there.
 * - failover.*: a synchronous standby; two senders pushing; the primary killed (SIGKILL) and
 *   the standby promoted PROMOTE_AFTER_MS later, as a fail-over manager would; unavailable is kill
 *   → the first push answered 200 after it, lost is reports answered 200 that the new primary
 *   lacks.
 */

const LAG_SAMPLES = 50;
const PROMOTE_AFTER_MS = 1000;
const PROBE_SPEC = tableReportSpec("Newest probe", {
  newest: "select max(external_id) as newest from lab_reports where external_id like 'LAG-%'",
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function replicaLag(): Promise<number[]> {
  const servers = await startReplicatedPostgres({ synchronous: false });
  const service = await spawnService({
    databaseUrl: servers.primaryUrl,
    env: { DATASOURCE_CLINICAL_URL: servers.standbyUrl, OPEN_API_RATE_PER_SECOND: "1000", OPEN_API_BURST: "1000" },
  });
  try {
    const tenant = await ingestionTenant(service, "lag");
    await tenant.call("PUT", "/api/reports/probe/draft", {
      token: tenant.authorToken,
      body: { title: "Probe", spec: PROBE_SPEC },
    });
    const published = await tenant.call("POST", "/api/reports/probe/publish", {
      token: tenant.authorToken,
      body: { mode: "dynamic", note: "bench" },
    });
    if (published.status !== 201) throw new Error(`probe report not published: ${JSON.stringify(published.body)}`);
    // Four senders pushing batches of 100 new reports all along, as in the ingest bench.
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async (_, sender) => {
        for (let batch = 0; loading; batch++)
          await tenant.push(
            "lab",
            Array.from({ length: 100 }, (_, i) => labReport(`LOAD-${sender}-${batch}-${i}`)),
          );
      }),
    );
    const lags: number[] = [];
    for (let i = 0; i < LAG_SAMPLES; i++) {
      const id = `LAG-${String(i).padStart(4, "0")}`;
      const pushed = await tenant.push("lab", [labReport(id)]);
      if (pushed.status !== 200) throw new Error(`probe push answered ${pushed.status}`);
      const answered = performance.now();
      for (;;) {
        const data = await tenant.call("POST", "/api/reports/probe/data", { body: {} });
        if (data.body?.queries?.newest?.rows?.[0]?.[0] === id) break;
        if (performance.now() - answered > 30_000) throw new Error(`${id} not visible on the replica after 30 s`);
        await sleep(5);
      }
      lags.push(performance.now() - answered);
      await sleep(100);
    }
    loading = false;
    await load;
    return lags;
  } finally {
    await service.stop();
    await servers.remove();
  }
}

async function failover(): Promise<{ unavailableSeconds: number; lost: number; answered: number }> {
  const servers = await startReplicatedPostgres({ synchronous: true });
  const service = await spawnService({
    databaseUrl: servers.bothUrl,
    env: { OPEN_API_RATE_PER_SECOND: "1000", OPEN_API_BURST: "1000", DB_QUERY_TIMEOUT_MS: "5000" },
  });
  try {
    const tenant = await ingestionTenant(service, "fo");
    const answered: string[] = [];
    const okTimes: number[] = [];
    let stop = false;
    const senders = Array.from({ length: 2 }, async (_, sender) => {
      for (let i = 0; !stop; i++) {
        const ids = Array.from({ length: 10 }, (_, j) => `FO-${sender}-${i}-${j}`);
        const answer = await tenant
          .push(
            "lab",
            ids.map((id) => labReport(id)),
          )
          .catch(() => null);
        if (answer?.status === 200) {
          answered.push(...ids);
          okTimes.push(performance.now());
        } else await sleep(50);
      }
    });
    await sleep(3000);
    const killed = performance.now();
    servers.killPrimary();
    await sleep(PROMOTE_AFTER_MS);
    await servers.promoteStandby();
    const deadline = killed + 120_000;
    while (!okTimes.some((at) => at > killed) && performance.now() < deadline) await sleep(20);
    await sleep(2000);
    stop = true;
    await Promise.all(senders);
    const back = okTimes.find((at) => at > killed);
    if (back === undefined) throw new Error("no push was answered 200 within 2 minutes of the kill");
    const promoted = new pg.Client({ connectionString: servers.standbyUrl });
    await promoted.connect();
    try {
      const { rows } = await promoted.query(
        "select count(distinct stream_id)::int as n from events where stream_id = any($1)",
        [answered.map((id) => `lab-report:${id}`)],
      );
      return {
        unavailableSeconds: (back - killed) / 1000,
        lost: answered.length - rows[0].n,
        answered: answered.length,
      };
    } finally {
      await promoted.end();
    }
  } finally {
    await service.stop();
    await servers.remove();
  }
}

export async function failoverBenchmarks(): Promise<BenchResult[]> {
  await buildServer();
  const lags = await replicaLag();
  const fo = await failover();
  return [
    result(
      "replica.report_lag_p99_ms",
      percentile(lags, 99),
      "ms",
      undefined,
      `push answered -> visible to a report query on an asynchronous replica, ${LAG_SAMPLES} probes while 4 ` +
        `senders push; p50 ${percentile(lags, 50).toFixed(0)} ms; target <= 1,000`,
    ),
    result(
      "failover.unavailable_s",
      fo.unavailableSeconds,
      "s",
      undefined,
      `SIGKILL of the primary -> first push answered 200 by the promoted synchronous standby, promoted ${PROMOTE_AFTER_MS} ms after the kill; target <= 15`,
    ),
    result(
      "failover.lost_reports",
      fo.lost,
      "reports",
      undefined,
      `reports answered 200 (of ${fo.answered}) missing on the new primary; target 0`,
    ),
  ];
}

import { buildServer } from "../src/buildServer.ts";
import { endedWithin, openAlertStream } from "../test/support/accessEnds.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { ADMIN, httpClient } from "../test/support/http.ts";
import { spawnService, type ServiceProcess } from "../test/support/serviceProcess.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/** Revocations measured: the target is the p99 of 20. */
const REVOCATIONS = Number(process.env.BENCH_ACCESS_REVOCATIONS ?? 20);
/** A stream not closed within this is counted as this (and the figure fails its target). */
const GIVE_UP_MS = 10_000;

/**
 * `access.stream_revoked_ms` (issue #51, target <= 1,000): an author token's alert stream open on
 * one API process, the token revoked on another (the administrator's DELETE answered 204), and
 * the time from that answer until the stream has closed, as its client sees it; p99 of
 * REVOCATIONS, each with a new token and stream. Baseline: from the same answer, a plain call
 * with the revoked token on the stream's process answered 401 (every other route refuses at
 * once): what the stream is compared with.
 */
export async function accessRevocationBenchmarks(): Promise<BenchResult[]> {
  await buildServer();
  const databaseUrl = await createTestDatabase(false);
  const processes: ServiceProcess[] = [];
  try {
    // A revokes (API and workers); B holds the streams (API only), as a scaled-out deployment.
    processes.push(await spawnService({ databaseUrl, env: { DB_POOL_MAX: "6" } }));
    processes.push(await spawnService({ databaseUrl, role: "api", env: { DB_POOL_MAX: "6" } }));
    const [a, b] = processes.map((p) => p.url!) as [string, string];
    const callA = httpClient(a);
    const callB = httpClient(b);
    const closedMs: number[] = [];
    const refusedMs: number[] = [];
    for (let i = 0; i < REVOCATIONS; i++) {
      const made = await callA("POST", "/api/admin/authors", {
        token: ADMIN,
        body: { name: `Nurse ${i}`, tenant: "default", roles: ["clinician"] },
      });
      if (made.status !== 201) throw new Error(`no author token: ${made.status} ${JSON.stringify(made.body)}`);
      const { authorId, token } = made.body as { authorId: string; token: string };
      const stream = await openAlertStream(b, { authorization: `Bearer ${token}` });
      // Revocations fall anywhere in the watch's round, as they would.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
      const revoked = await callA("DELETE", `/api/admin/authors/${authorId}`, { token: ADMIN });
      if (revoked.status !== 204) throw new Error(`not revoked: ${revoked.status}`);
      const since = performance.now();
      const [closed, refused] = await Promise.all([
        endedWithin(stream.closed, since, GIVE_UP_MS),
        callB("GET", "/api/alerts/count", { token }).then((answer) => {
          if (answer.status !== 401) throw new Error(`a plain call with the revoked token answered ${answer.status}`);
          return performance.now() - since;
        }),
      ]);
      stream.close();
      closedMs.push(closed ?? GIVE_UP_MS);
      refusedMs.push(refused);
    }
    const ms = (values: number[], p: number) => percentile(values, p).toFixed(0);
    return [
      result(
        "access.stream_revoked_ms",
        percentile(closedMs, 99),
        "ms",
        percentile(refusedMs, 99),
        `${REVOCATIONS} author tokens, each with an alert stream open on an API process and revoked on another ` +
          "(DELETE /api/admin/authors/{id} answered 204): the time from that answer until the stream closed, p99 " +
          `(p50 ${ms(closedMs, 50)} ms, max ${ms(closedMs, 100)} ms); ` +
          "the streams' credentials are checked again every 250 ms (src/credentials/credentialWatch.ts); " +
          "baseline: a plain call with the revoked token on the stream's process answered 401, p99 (p50 " +
          `${ms(refusedMs, 50)} ms); target <= 1000 ms`,
      ),
    ];
  } finally {
    for (const p of processes) await p.stop();
  }
}

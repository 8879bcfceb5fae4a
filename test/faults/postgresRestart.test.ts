import { expect } from "chai";
import { ingestionTenant } from "../support/ingestion.ts";
import { startPrivatePostgres, type PrivatePostgres } from "../support/privatePostgres.ts";
import { PushLoad } from "../support/pushLoad.ts";
import { until } from "../support/service.ts";
import { type ServiceProcess, useServiceProcesses } from "../support/serviceProcess.ts";
import {
  acknowledgedStored,
  appliedExactlyOnce,
  eventsMatchReadRows,
  projectionsCaughtUp,
  reconciliationExact,
} from "../support/storedReports.ts";

const TENANT = "fault-pg";
const DAY = "2026-03-03";
/** No push may take longer than this, database down or not. */
const ANSWER_BOUND_MS = 15_000;
const DOWN_FOR_MS = 4000;

/*
 * A PostgreSQL of this test's own is stopped (fast shutdown: every connection cut) while an API
 * process takes pushes, and started again. A worker process applies the projections; its safety
 * net is a minute long, so read models that follow within seconds after the restart prove that
 * pg-boss wake-ups work again, not just the periodic sweep.
 */
describe("PostgreSQL restarted while senders push to an API process and a worker process", function () {
  this.timeout(180_000);
  let postgres: PrivatePostgres;
  const deployment = useServiceProcesses(async () => (postgres = await startPrivatePostgres()).url);
  let api: ServiceProcess;
  let worker: ServiceProcess;

  before(async () => {
    worker = await deployment.spawn({ role: "worker", env: { PROJECTION_SAFETY_NET_MS: "60000" } });
    api = await deployment.spawn({ role: "api" });
  });
  after(() => postgres?.remove());

  it("answers 503 in the envelope while it is down, recovers by itself, and keeps every report it answered as stored", async () => {
    const url = api.url!;
    const tenant = await ingestionTenant(api, TENANT);
    const load = new PushLoad({
      targets: [url],
      key: tenant.client.key,
      senders: 4,
      reportsPerPush: 10,
      day: DAY,
      prefix: "P",
      requestTimeoutMs: ANSWER_BOUND_MS,
    }).start();
    await load.waitUntil(() => load.answered(200).length >= 20, 60_000, "20 answered pushes");

    await postgres.stop();
    const stoppedAt = Date.now();
    await load.waitUntil(
      () => load.pushes.some((push) => push.startedAt > stoppedAt && push.answer === 503),
      60_000,
      "a push answered 503",
    );
    const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
    expect(ready.status, "not ready while the database is down").to.equal(503);
    expect((await fetch(`${url}/healthz`)).status, "but the process is up").to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, DOWN_FOR_MS - (Date.now() - stoppedAt)));

    await postgres.start();
    const restartedAt = Date.now();
    await load.waitUntil(
      () => load.pushes.some((push) => push.startedAt > restartedAt && push.answer === 200),
      60_000,
      "a push stored after the restart",
    );
    const recoveredMs =
      Math.min(
        ...load.pushes
          .filter((push) => push.startedAt > restartedAt && push.answer === 200)
          .map((push) => push.startedAt + push.ms),
      ) - restartedAt;
    const answeredBefore = load.answered(200).length;
    await load.waitUntil(() => load.answered(200).length >= answeredBefore + 20, 60_000, "20 more answered pushes");
    await load.stop();

    const answers = new Map<string, number>();
    for (const push of load.pushes) answers.set(String(push.answer), (answers.get(String(push.answer)) ?? 0) + 1);
    expect([...answers.keys()].sort(), `answers: ${JSON.stringify([...answers])}`).to.deep.equal(["200", "503"]);
    for (const push of load.answered(503)) {
      expect(push.body).to.include({ code: 503, data: null });
      expect((push.body as { msg: unknown }).msg)
        .to.be.a("string")
        .and.match(/database/);
      expect((push.body as { timestamp: unknown }).timestamp).to.be.a("number");
    }
    const slowest = Math.max(...load.pushes.map((push) => push.ms));
    expect(slowest, "slowest push (ms)").to.be.below(ANSWER_BOUND_MS);
    expect(load.unexpectedEntries).to.deep.equal([]);

    await until(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000, 200);
    // The projections the pushes wake: the others only move at the minute's sweep (they handle none of these events).
    await projectionsCaughtUp(url, 30_000, ["lab_reports", "lab_results"]);
    const caughtUpMs = Date.now() - restartedAt;
    expect(await appliedExactlyOnce(deployment.db)).to.deep.equal([]);
    expect(await eventsMatchReadRows(deployment.db, TENANT)).to.deep.equal([]);
    expect(await acknowledgedStored(deployment.db, TENANT, load)).to.deep.equal([]);
    expect(await reconciliationExact(url, tenant.client.key, deployment.db, TENANT, DAY)).to.deep.equal([]);

    // A wake-up sent through pg-boss brings a new report to the worker in moments, not at the next minute's sweep.
    const pushedAt = Date.now();
    const fresh = await tenant.push("lab", [load.report("P-after-restart", 1)]);
    expect(fresh.status).to.equal(200);
    await until(
      async () => {
        const day = await tenant.call("GET", `/open/v1/reconcile/lab?date=${DAY}`, { token: tenant.client.key });
        return (day.body.data.externalIds as string[]).includes("P-after-restart");
      },
      10_000,
      50,
    );
    const wakeupMs = Date.now() - pushedAt;

    expect(
      await Promise.race([
        api.exited.then(() => "api exited"),
        worker.exited.then(() => "worker exited"),
        Promise.resolve("both running"),
      ]),
    ).to.equal("both running");
    console.log(
      `      ${load.answered(200).length} pushes stored (${load.acknowledgedIds().length} reports), ` +
        `${load.answered(503).length} answered 503 while PostgreSQL was down for ${DOWN_FOR_MS} ms; ` +
        `slowest answer ${slowest} ms; first push stored ${recoveredMs} ms after the restart; projections ` +
        `caught up ${caughtUpMs} ms after it; a new report visible ${wakeupMs} ms after its push`,
    );
  });
});

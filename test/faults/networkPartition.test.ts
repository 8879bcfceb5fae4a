import { expect } from "chai";
import { BlackHoleProxy } from "../support/blackHoleProxy.ts";
import { createTestDatabase } from "../support/database.ts";
import { ingestionTenant } from "../support/ingestion.ts";
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

const TENANT = "fault-net";
const DAY = "2026-03-04";
const QUERY_TIMEOUT_MS = 2000;
/** Pool checkout waits up to the connect timeout (10 s) for a connection that never answers. */
const ANSWER_BOUND_MS = 12_000;
const PARTITIONED_FOR_MS = 4000;

/*
 * The network between the service and its PostgreSQL stops carrying anything (a partition, a dead
 * NAT entry) without any socket being closed or reset, in the middle of pushes. Without a
 * client-side bound a statement on such a connection waits for ever, and with it the push.
 */
describe("the network to PostgreSQL turns into a black hole while senders push", function () {
  this.timeout(120_000);
  const deployment = useServiceProcesses(() => createTestDatabase(false));
  let proxy: BlackHoleProxy;
  let service: ServiceProcess;

  before(async () => {
    const inFront = await BlackHoleProxy.inFrontOf(deployment.databaseUrl);
    proxy = inFront.proxy;
    service = await deployment.spawn({
      databaseUrl: inFront.url,
      env: { DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) },
    });
  });

  after(async () => {
    proxy?.forward();
    await proxy?.close();
  });

  it("answers 503 in bounded time while nothing passes, recovers by itself when it does, and keeps every report it answered as stored", async () => {
    const url = service.url!;
    const tenant = await ingestionTenant(service, TENANT);
    const load = new PushLoad({
      targets: [url],
      key: tenant.client.key,
      senders: 4,
      reportsPerPush: 10,
      day: DAY,
      prefix: "N",
      requestTimeoutMs: 3 * ANSWER_BOUND_MS,
    }).start();
    await load.waitUntil(() => load.answered(200).length >= 20, 60_000, "20 answered pushes");

    proxy.blackHole();
    const cutAt = Date.now();
    await load.waitUntil(
      () => load.pushes.some((push) => push.startedAt > cutAt && push.answer === 503),
      60_000,
      "a push answered 503",
    );
    await new Promise((resolve) => setTimeout(resolve, PARTITIONED_FOR_MS - (Date.now() - cutAt)));

    proxy.forward();
    const healedAt = Date.now();
    await load.waitUntil(
      () => load.pushes.some((push) => push.startedAt > healedAt && push.answer === 200),
      30_000,
      "a push stored after the network came back",
    );
    const answeredBefore = load.answered(200).length;
    await load.waitUntil(() => load.answered(200).length >= answeredBefore + 20, 60_000, "20 more answered pushes");
    await load.stop();

    const unanswered = load.pushes.filter((push) => push.answer === "timeout" || push.answer === "transport");
    expect(
      unanswered.map((push) => `${push.answer} after ${push.ms} ms`),
      "pushes left without an answer",
    ).to.deep.equal([]);
    for (const push of load.answered(503)) expect(push.body).to.include({ code: 503, data: null });
    const slowest = Math.max(...load.pushes.map((push) => push.ms));
    expect(slowest, "slowest push (ms)").to.be.below(ANSWER_BOUND_MS);
    expect(load.unexpectedEntries).to.deep.equal([]);

    // The server ends the sessions the partition left inside a transaction, so the projections,
    // which read only below the oldest open transaction, move on.
    await projectionsCaughtUp(url, 30_000, ["lab_reports", "lab_results"]);
    expect(await appliedExactlyOnce(deployment.db)).to.deep.equal([]);
    expect(await eventsMatchReadRows(deployment.db, TENANT)).to.deep.equal([]);
    expect(await acknowledgedStored(deployment.db, TENANT, load)).to.deep.equal([]);
    expect(await reconciliationExact(url, tenant.client.key, deployment.db, TENANT, DAY)).to.deep.equal([]);
    // Left, not passing through: a live batch is idle in its transaction for an instant between two statements.
    const idleInTransaction = async () =>
      (
        await deployment.db.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = " +
            "'idle in transaction' and application_name like 'dialysis-hub%'",
        )
      ).rows[0].n as number;
    await until(async () => (await idleInTransaction()) === 0, 10_000, 100).catch(async () =>
      expect(await idleInTransaction(), "sessions left idle in a transaction").to.equal(0),
    );
    await until(async () => (await fetch(`${url}/readyz`)).status === 200, 10_000, 200);
    console.log(
      `      ${load.answered(200).length} pushes stored, ${load.answered(503).length} answered 503 during a ` +
        `${PARTITIONED_FOR_MS} ms black hole; slowest answer ${slowest} ms`,
    );
  });
});

import { expect } from "chai";
import { createTestDatabase } from "../support/database.ts";
import { ingestionTenant } from "../support/ingestion.ts";
import { PushLoad } from "../support/pushLoad.ts";
import { useServiceProcesses } from "../support/serviceProcess.ts";
import {
  acknowledgedStored,
  appliedExactlyOnce,
  eventsMatchReadRows,
  projectionsCaughtUp,
  reconciliationExact,
} from "../support/storedReports.ts";

const TENANT = "scale-out";
const DAY = "2026-03-04";

/*
 * The deployment of docs/operations.md "Scaling out": two API processes behind a balancer and two
 * worker processes, all started at once on one new database (they race to migrate, to install
 * pg-boss and to create the read models).
 */
describe("two API processes and two worker processes on one database", function () {
  this.timeout(180_000);
  const deployment = useServiceProcesses(() => createTestDatabase(false));

  before(async () => {
    const roles = ["api", "api", "worker", "worker"] as const;
    const started = await Promise.allSettled(
      roles.map((role) => deployment.spawn({ role, env: { DB_POOL_MAX: "5", PROJECTION_SAFETY_NET_MS: "5000" } })),
    );
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  });

  it("projects every event exactly once and reconciles exactly on both APIs", async () => {
    const apis = deployment.processes.filter((p) => p.role === "api").map((p) => p.url!);
    const tenant = await ingestionTenant({ url: apis[0]! }, TENANT);
    const load = new PushLoad({
      targets: apis,
      key: tenant.client.key,
      senders: 6,
      reportsPerPush: 20,
      day: DAY,
      prefix: "S",
    }).start();

    // Meanwhile the same reports reach both APIs at the same moment (a sender retrying through
    // the balancer): one of each pair is CREATED, the other finds it stored.
    const contested = Array.from({ length: 10 }, (_, i) => load.report(`S-both-${i}`, 1));
    const both = await Promise.all(
      apis.map((url) =>
        fetch(`${url}/open/v1/lab/reports`, {
          method: "POST",
          headers: { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/json" },
          body: JSON.stringify({ reports: contested }),
        }).then((response) => response.json()),
      ),
    );
    const outcomes = contested.map((_, i) => both.map((answer) => answer.data.results[i].status).sort());
    expect(outcomes).to.deep.equal(contested.map(() => ["CREATED", "UNCHANGED"]));

    await load.waitUntil(() => load.answered(200).length >= 80, 120_000, "80 answered pushes");
    await load.stop();
    expect(load.pushes.filter((push) => push.answer !== 200).map((push) => [push.answer, push.body])).to.deep.equal([]);
    expect(load.unexpectedEntries).to.deep.equal([]);
    const perApi = apis.map((url) => load.pushes.filter((push) => push.target === url).length);
    expect(Math.min(...perApi), "both APIs took pushes").to.be.greaterThan(20);

    const caughtUpFrom = Date.now();
    await projectionsCaughtUp(apis[1]!, 60_000);
    const caughtUpMs = Date.now() - caughtUpFrom;
    expect(await appliedExactlyOnce(deployment.db), "each projection applied each event once").to.deep.equal([]);
    expect(
      await eventsMatchReadRows(deployment.db, TENANT),
      "one read row per report stream, in its last version",
    ).to.deep.equal([]);
    expect(await acknowledgedStored(deployment.db, TENANT, load)).to.deep.equal([]);
    const digests: string[] = [];
    for (const url of apis) {
      expect(await reconciliationExact(url, tenant.client.key, deployment.db, TENANT, DAY)).to.deep.equal([]);
      const answer = await (
        await fetch(`${url}/open/v1/reconcile/lab?date=${DAY}`, {
          headers: { authorization: `Bearer ${tenant.client.key}` },
        })
      ).json();
      digests.push(`${answer.data.labReportCount} ${answer.data.externalIdDigest}`);
    }
    expect(digests[0]).to.equal(digests[1]);
    const events = Number((await deployment.db.query("select count(*) from events")).rows[0].count);
    console.log(
      `      ${load.answered(200).length} pushes (${perApi.join(" + ")} over the two APIs), ` +
        `${load.acknowledgedIds().length + contested.length} reports, ${events} events; ` +
        `projections at the head ${caughtUpMs} ms after the last push; reconcile: ${digests[0]!.split(" ")[0]} reports on both APIs`,
    );
  });
});

import { expect } from "chai";
import { createTestDatabase } from "../support/database.ts";
import { ingestionTenant } from "../support/ingestion.ts";
import { PushLoad, type PushRecord } from "../support/pushLoad.ts";
import { type ServiceProcess, useServiceProcesses } from "../support/serviceProcess.ts";
import {
  acknowledgedStored,
  appliedExactlyOnce,
  eventsMatchReadRows,
  projectionsCaughtUp,
  reconciliationExact,
} from "../support/storedReports.ts";

const TENANT = "fault-kill";
const DAY = "2026-03-02";
const KILLS = 3;

describe("the service killed with SIGKILL while four senders push", function () {
  this.timeout(180_000);
  const deployment = useServiceProcesses(() => createTestDatabase(true));
  let service: ServiceProcess;

  before(async () => {
    service = await deployment.spawn();
  });

  async function expectConsistent(load: PushLoad, key: string): Promise<void> {
    await projectionsCaughtUp(service.url!);
    expect(await appliedExactlyOnce(deployment.db), "each projection applied each event once").to.deep.equal([]);
    expect(await eventsMatchReadRows(deployment.db, TENANT), "event store and read tables agree").to.deep.equal([]);
    expect(
      await acknowledgedStored(deployment.db, TENANT, load),
      "every report answered CREATED/UPDATED is stored",
    ).to.deep.equal([]);
    expect(await reconciliationExact(service.url!, key, deployment.db, TENANT, DAY)).to.deep.equal([]);
  }

  it(`keeps every report it answered as stored, half-stores none, and catches up after each of ${KILLS} restarts`, async () => {
    const tenant = await ingestionTenant(service, TENANT);
    const load = new PushLoad({
      targets: [],
      key: tenant.client.key,
      senders: 4,
      reportsPerPush: 20,
      day: DAY,
      prefix: "K",
    });
    const figures: string[] = [];
    const handled = new Set<PushRecord>();
    for (let kill = 1; kill <= KILLS; kill++) {
      const answeredBefore = load.answered(200).length;
      load.start([service.url!]);
      // Kill at a moment of no particular meaning while pushes are in flight and projections apply earlier ones.
      await load.waitUntil(() => load.answered(200).length >= answeredBefore + 15, 90_000, "15 more answered pushes");
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
      await service.kill();
      await load.stop();
      const inFlight = load.unanswered().filter((push) => !handled.has(push));
      for (const push of inFlight) handled.add(push);
      expect(
        inFlight.map((push) => push.answer),
        "a killed process answers nothing: its pushes fail in transport",
      ).to.satisfy((answers: unknown[]) => answers.every((a) => a === "transport"));
      const acknowledged = load.acknowledgedIds().length;

      const restartedAt = Date.now();
      service = await deployment.spawn();
      const readyMs = Date.now() - restartedAt;
      await expectConsistent(load, tenant.client.key);
      const caughtUpMs = Date.now() - restartedAt;

      // The senders re-push what they got no answer for (the integration guide's advice): a report
      // whose push had committed before the kill is UNCHANGED, the others are stored now.
      const statuses: string[] = [];
      for (const push of inFlight) {
        const again = await load.resend(push, service.url!);
        expect(again.answer, JSON.stringify(again.body)).to.equal(200);
        statuses.push(...again.results.map((entry) => entry.status));
      }
      expect(statuses.filter((s) => !["CREATED", "UPDATED", "UNCHANGED"].includes(s))).to.deep.equal([]);
      const committed = statuses.filter((s) => s === "UNCHANGED").length;
      figures.push(
        `kill ${kill}: after ${load.answered(200).length} answered pushes (${acknowledged} reports acknowledged), ${inFlight.length} pushes in flight ` +
          `(${committed} of ${statuses.length} reports had committed); ready in ${readyMs} ms, caught up in ${caughtUpMs} ms`,
      );
    }
    expect(load.unexpectedEntries).to.deep.equal([]);
    await expectConsistent(load, tenant.client.key);
    expect(
      [...load.reports.values()].every((v) => v.acknowledged === v.sent),
      "after the re-pushes every report is stored in its last version",
    ).to.equal(true);
    console.log(figures.map((line) => `      ${line}`).join("\n"));
  });
});

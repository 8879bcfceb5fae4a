import { expect } from "chai";
import pg from "pg";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ingestionTenant, labReport } from "../support/ingestion.ts";
import { postgresBinaries, startReplicatedPostgres, type ReplicatedPostgres } from "../support/replicatedPostgres.ts";
import { startTestService, until } from "../support/service.ts";

/*
 * Fail-over with real processes: a primary with a synchronous standby (pg_basebackup), the
 * service given both hosts in DATABASE_URL. The primary is killed (SIGKILL) while pushes run and
 * the standby promoted; the service must answer 503 while no primary is reachable, find the new
 * primary by itself, and hold every report it answered 200 for before the kill.
 */

interface Push {
  ids: string[];
  status: number | "transport";
  sentAt: number;
  answeredAt: number;
}

describe("fail-over to a promoted synchronous standby", function () {
  this.timeout(180_000);
  let servers: ReplicatedPostgres | null = null;
  let service: RunningService | null = null;

  before(function () {
    if (!postgresBinaries()) {
      console.warn("      skipped: no PostgreSQL server binaries with pg_basebackup (apt-get install postgresql)");
      this.skip();
    }
  });
  after(async () => {
    await service?.stop();
    await servers?.remove();
  });

  it("answers 503 while no primary is reachable, resumes on the promoted standby by itself, and loses no answered report", async () => {
    servers = await startReplicatedPostgres({ synchronous: true });
    service = await startTestService({
      projections: allProjections,
      databaseUrl: servers.bothUrl,
      env: { DB_QUERY_TIMEOUT_MS: "5000" },
    });
    const tenant = await ingestionTenant(service, "h1");

    const pushes: Push[] = [];
    let stop = false;
    const senders = Array.from({ length: 2 }, async (_, sender) => {
      for (let i = 0; !stop; i++) {
        const ids = Array.from({ length: 10 }, (_, j) => `FO-${sender}-${i}-${j}`);
        const sentAt = Date.now();
        const answer = await tenant
          .push(
            "lab",
            ids.map((id) => labReport(id)),
          )
          .catch(() => null);
        pushes.push({ ids, status: answer ? answer.status : "transport", sentAt, answeredAt: Date.now() });
        if (!answer || answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    await until(async () => pushes.filter((push) => push.status === 200).length >= 10, 30_000);

    const killedAt = Date.now();
    servers.killPrimary();
    await until(async () => pushes.some((push) => push.sentAt > killedAt && push.status === 503), 30_000);
    await servers.promoteStandby();
    const resumed = await until(
      async () => pushes.find((push) => push.sentAt > killedAt && push.status === 200),
      60_000,
    );
    await until(
      async () => pushes.filter((push) => push.sentAt > resumed.sentAt && push.status === 200).length >= 5,
      30_000,
    );
    stop = true;
    await Promise.all(senders);

    const failed = pushes.filter((push) => push.status !== 200);
    expect(failed.length, "some pushes found no primary").to.be.greaterThan(0);
    for (const push of failed)
      expect(push.status, "a push without a primary is answered 503, never 500 nor dropped").to.equal(503);

    const promoted = new pg.Client({ connectionString: servers.standbyUrl });
    await promoted.connect();
    try {
      const answered = pushes
        .filter((push) => push.status === 200)
        .flatMap((push) => push.ids.map((id) => `lab-report:${id}`));
      const { rows } = await promoted.query(
        "select count(distinct stream_id)::int as n from events where tenant = 'h1' and stream_id = any($1)",
        [answered],
      );
      expect(rows[0].n, "every report answered 200 is on the new primary").to.equal(answered.length);
      // The service reads and projects on the new primary too.
      await until(
        async () =>
          (await promoted.query("select count(*)::int as n from read.lab_reports where tenant = 'h1'")).rows[0].n >=
          answered.length,
        60_000,
      );
    } finally {
      await promoted.end();
    }
    console.log(
      `      unavailable for ${((resumed.answeredAt - killedAt) / 1000).toFixed(1)} s (kill to the first push answered 200 after it)`,
    );
  });
});

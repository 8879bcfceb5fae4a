import { expect } from "chai";
import pg from "pg";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { postgresBinaries, startReplicatedPostgres, type ReplicatedPostgres } from "../support/replicatedPostgres.ts";
import { tableReportSpec } from "../support/reports.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { startTestService, TEST_ADMIN_TOKEN, until } from "../support/service.ts";

/*
 * The clinical data source on a streaming replica (pg_basebackup of a primary the test starts):
 * report queries run there and never on the primary, and each tenant still sees only its own
 * rows although the replica's connections are bound to tenants on the primary.
 */

const METRICS_TOKEN = "metrics-token-0123456789";
const WHERE_AM_I = tableReportSpec("Where the query ran", {
  server: "select count(*) as reports, string_agg(external_id, ',' order by external_id) as ids from lab_reports",
});

async function reportRunnerSessions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("select count(*)::int as n from pg_stat_activity where usename = 'dh_report_runner'"))
      .rows[0].n;
  } finally {
    await client.end();
  }
}

describe("report queries on a streaming replica", function () {
  this.timeout(120_000);
  let servers: ReplicatedPostgres | null = null;
  let service: RunningService;
  const tenants: SeededTenant[] = [];

  before(async function () {
    if (!postgresBinaries()) {
      console.warn("      skipped: no PostgreSQL server binaries with pg_basebackup (apt-get install postgresql)");
      this.skip();
    }
    // The replica applies each commit a moment late: a query that did not wait for its connection's
    // new binding to arrive would run under the tenant the connection served before.
    servers = await startReplicatedPostgres({ synchronous: false, applyDelayMs: 300 });
    service = await startTestService({
      projections: allProjections,
      databaseUrl: servers.primaryUrl,
      // A small pool: the same connections serve both tenants in turn.
      env: { DATASOURCE_CLINICAL_URL: servers.standbyUrl, REPORT_POOL_SIZE: "1", METRICS_TOKEN },
    });
    for (const name of ["north", "south"]) {
      const tenant = await seedTenant(service, name);
      for (const [step, answer] of [
        ["draft", await tenant.asAuthor("PUT", "/api/reports/where/draft", { title: "Where", spec: WHERE_AM_I })],
        ["publish", await tenant.asAuthor("POST", "/api/reports/where/publish", { mode: "dynamic", note: "replica" })],
      ] as const) {
        if (answer.status >= 300) throw new Error(`${name} ${step}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      tenants.push(tenant);
    }
  });
  after(async () => {
    await service?.stop();
    await servers?.remove();
  });

  it("run on the replica, never on the primary, each tenant seeing only its own rows", async () => {
    // One report connection serves both tenants in turn: each turn binds it anew on the primary.
    for (let round = 0; round < 10; round++) {
      for (const tenant of tenants) {
        const answer = await tenant.call("POST", "/api/reports/where/data", { body: {} });
        expect(answer.status).to.equal(200);
        const [reports, ids] = answer.body.queries.server.rows[0];
        expect(reports, `${tenant.tenant}'s reports`).to.equal(5);
        for (const id of (ids as string).split(","))
          expect(id.startsWith(`${tenant.prefix}-`), `${id} seen by ${tenant.tenant}`).to.equal(true);
      }
    }
    expect(await reportRunnerSessions(servers!.standbyUrl), "report connections on the replica").to.be.greaterThan(0);
    expect(await reportRunnerSessions(servers!.primaryUrl), "report connections on the primary").to.equal(0);
  });

  it("shows the replica and its lag in /api/admin/projections and /metrics", async () => {
    const status = await until(async () => {
      const answer = await fetch(`${service.url}/api/admin/projections`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      const body = (await answer.json()) as {
        replicas: Array<{ name: string; state: string; sync: string; lagBytes: number; lagSeconds: number }>;
      };
      return body.replicas.length > 0 ? body : null;
    }, 10_000);
    expect(status.replicas).to.have.length(1);
    expect(status.replicas[0]).to.include({ name: "standby1", state: "streaming", sync: "async" });
    expect(status.replicas[0]!.lagSeconds).to.be.a("number").and.at.least(0);
    const text = await (
      await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const lag = parsePrometheusTextFormat(text).find((family) => family.name === "dialysis_hub_replica_lag_seconds");
    expect(lag?.metrics.map((metric) => metric.labels)).to.deep.equal([{ replica: "standby1", sync: "async" }]);
  });
});

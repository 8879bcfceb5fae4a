import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { BURNING_QUERY, tableReportSpec } from "../support/reports.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { useTestService } from "../support/service.ts";

/*
 * Contract E.5: at most REPORT_QUERIES_PER_TENANT report queries of one tenant run at once; the
 * rest wait their turn up to REPORT_QUEUE_WAIT_MS and then fail in their own place; one tenant's
 * load never holds up another's calls; an export that cannot start answers 503 with Retry-After.
 * Here one query at a time per tenant, half a second of waiting, and queries that burn the CPU
 * for the whole statement timeout (2 s) before they are stopped.
 */
const BURN = BURNING_QUERY;
const BUSY =
  "This hospital's report queries are all busy (1 run at once, and this one waited 0.5 s for its turn); try again shortly.";

const specOf = (queries: Record<string, string>) => tableReportSpec("Gate", queries);

describe("report queries: each tenant in its own line (E.5)", function () {
  this.timeout(60_000);
  const hub = useTestService({
    projections: allProjections,
    env: {
      REPORT_QUERY_TIMEOUT_MS: "2000",
      REPORT_QUERIES_PER_TENANT: "1",
      REPORT_QUEUE_WAIT_MS: "500",
      REPORT_POOL_SIZE: "4",
    },
  });
  let north: SeededTenant;
  let south: SeededTenant;

  before(async () => {
    north = await seedTenant(hub.service, "north", "NORTH");
    south = await seedTenant(hub.service, "south", "SOUTH");
    for (const [tenant, reportId, queries] of [
      [north, "burning", { a: BURN, b: BURN, c: BURN }],
      [north, "small", { one: "select count(*) as n from lab_reports" }],
      [south, "small", { one: "select count(*) as n from lab_reports" }],
    ] as const) {
      const saved = await tenant.asAuthor("PUT", `/api/reports/${reportId}/draft`, { spec: specOf(queries) });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    }
  });

  const data = (tenant: SeededTenant, reportId: string) =>
    tenant.call("POST", `/api/reports/${reportId}/data`, { body: { version: "draft" } });

  it("runs one tenant's queries in turn, failing in their own place those that waited too long, while another tenant's call answers at once", async () => {
    const finished: string[] = [];
    const northCall = data(north, "burning").then((answer) => (finished.push("north"), answer));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const southAnswer = await data(south, "small").then((answer) => (finished.push("south"), answer));
    const northAnswer = await northCall;

    const southRows = await hub.service.db.query(
      "select count(*)::int as n from read.lab_reports where tenant = 'south'",
    );
    expect(southAnswer.body.queries.one).to.deep.include({ rows: [[southRows.rows[0].n]] });
    expect(finished, "south's call did not wait for north's line").to.deep.equal(["south", "north"]);
    const errors = Object.values(northAnswer.body.queries as Record<string, { error?: string }>).map(
      (query) => query.error,
    );
    expect(
      errors.filter((error) => error === BUSY),
      "two waited past their turn",
    ).to.have.length(2);
    expect(
      errors.filter((error) => /longer than 2 s/.test(error ?? "")),
      "one ran, until the statement timeout",
    ).to.have.length(1);
  });

  it("answers an xlsx export that cannot start 503 with Retry-After, and one that can, 200", async () => {
    const burning = data(north, "burning");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await north.call("POST", "/api/reports/small/export/xlsx", { body: { version: "draft" } });
    expect(refused.status).to.equal(503);
    expect(refused.headers.get("retry-after")).to.equal("1");
    expect(refused.body).to.deep.equal({ error: BUSY });
    const fromSouth = await south.call("POST", "/api/reports/small/export/xlsx", { body: { version: "draft" } });
    expect(fromSouth.status, "south's export is not in north's line").to.equal(200);
    await burning;
    expect(
      (await north.call("POST", "/api/reports/small/export/xlsx", { body: { version: "draft" } })).status,
    ).to.equal(200);
  });
});

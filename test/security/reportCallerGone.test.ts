import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { BURNING_QUERY, tableReportSpec } from "../support/reports.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { until, useTestService } from "../support/service.ts";

/*
 * Contract E.5: a caller that goes away (a closed connection, an aborted export) cancels its
 * running queries within 1 s. The queries here would burn the CPU for the whole statement timeout
 * (20 s); a report connection that still runs a statement holds a snapshot (backend_xmin), which
 * pg_stat_activity shows even though the report role's activity is not tracked.
 */
const BURN = BURNING_QUERY;

describe("report queries whose caller went away", function () {
  this.timeout(60_000);
  const hub = useTestService({
    projections: allProjections,
    env: { REPORT_QUERY_TIMEOUT_MS: "20000", REPORT_EXPORT_MAX_MS: "3000" },
  });
  let north: SeededTenant;

  before(async () => {
    north = await seedTenant(hub.service, "north", "NORTH");
    const saved = await north.asAuthor("PUT", "/api/reports/burning/draft", {
      spec: tableReportSpec("Burning", { a: BURN, b: BURN }),
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
  });

  /** Report connections running a statement now. */
  const running = async () =>
    (
      await hub.service.db.query(
        "select count(*)::int as n from pg_stat_activity where usename = 'dh_report_runner' and datname = current_database() and backend_xmin is not null",
      )
    ).rows[0].n as number;

  /** Starts the call, and leaves (closes the connection) once its statements run. */
  async function leaveWhileRunning(path: string): Promise<number> {
    const leave = new AbortController();
    const call = fetch(`${hub.service.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "north" },
      body: JSON.stringify({ version: "draft" }),
      signal: leave.signal,
    }).catch(() => "left");
    await until(async () => (await running()) > 0, 10_000);
    leave.abort();
    // A data call had no answer yet; an export had sent its headers and had its body cut.
    await call;
    const leftAt = Date.now();
    await until(async () => (await running()) === 0, 15_000);
    return Date.now() - leftAt;
  }

  it("cancels a data call's queries when its caller closes the connection", async () => {
    expect(await leaveWhileRunning("/api/reports/burning/data")).to.be.below(2000);
  });

  it("cancels an xlsx export's query when its caller closes the connection", async () => {
    expect(await leaveWhileRunning("/api/reports/burning/export/xlsx")).to.be.below(2000);
  });

  it("cancels a docx export's queries when its caller closes the connection", async () => {
    expect(await leaveWhileRunning("/api/reports/burning/export/docx")).to.be.below(2000);
  });

  it("cuts an xlsx export at REPORT_EXPORT_MAX_MS (3 s), its reader still there, and stops its query", async () => {
    const started = Date.now();
    const answer = await fetch(`${hub.service.url}/api/reports/burning/export/xlsx`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "north" },
      body: JSON.stringify({ version: "draft" }),
    });
    expect(answer.status).to.equal(200);
    const body = await answer.arrayBuffer().then(
      () => "complete",
      () => "cut",
    );
    expect(body).to.equal("cut");
    expect(Date.now() - started, "cut at the deadline, long before the statement timeout").to.be.within(2500, 10_000);
    await until(async () => (await running()) === 0, 2000);
  });
});

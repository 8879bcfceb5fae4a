import { expect } from "chai";
import { useIngestionService } from "../support/ingestion.ts";
import { BURNING_QUERY, tableReportSpec } from "../support/reports.ts";

/*
 * Issue #34, item 3: a draft's queries are tried when it is saved (planned with the filters'
 * defaults, under the tenant's report limits of E.5). A query that fails is named with the
 * database's sentence at its line and column, counted by the audit (query-fails, high), recorded
 * with the draft and published with it; the save still answers 200 and publishing is still allowed.
 * Here one report query of a tenant at a time, half a second of waiting for a turn, 2 s per statement.
 */
describe("a draft's queries tried when it is saved (PUT /api/reports/{id}/draft)", function () {
  this.timeout(30_000);
  const hub = useIngestionService({
    env: { REPORT_QUERY_TIMEOUT_MS: "2000", REPORT_QUERIES_PER_TENANT: "1", REPORT_QUEUE_WAIT_MS: "500" },
  });
  const asAuthor = (method: string, path: string, body?: unknown) =>
    hub.tenant.call(method, path, { token: hub.tenant.authorToken, body });

  /** A report whose `monthly` names a column that does not exist, after a placeholder on the same line. */
  const brokenSpec = {
    version: 1,
    title: "Adequacy",
    params: [{ name: "minKtv", label: "Min Kt/V", type: "number", default: 1.2 }],
    queries: {
      wards: { sql: "select ward, count(*) as n from patients group by ward order by ward" },
      monthly: {
        sql: "select month,\n  {{minKtv}} as target, avg(ktvv) as ktv\nfrom monthly_results\ngroup by month order by month",
      },
    },
    nodes: [
      { id: "wards", type: "table", query: "wards" },
      {
        id: "trend",
        type: "chart",
        chart: "line",
        query: "monthly",
        x: "month",
        y: ["ktv"],
        drill: { target: "ofMonth", args: { month: "month" } },
      },
    ],
    drills: {
      ofMonth: {
        title: "Results of {month}",
        args: [{ name: "month", type: "date" }],
        queries: {
          results: {
            sql: "select patient_ref, std_value from lab_results\nwhere reported_on >= {{month}} and std_code = 'KTV' and std_valu > 0\norder by 1",
          },
        },
      },
    },
  };

  it("answers 200 with each failing query's sentence at its SQL line and column, and the audit counts it (high)", async () => {
    const saved = await asAuthor("PUT", "/api/reports/adequacy/draft", { spec: brokenSpec });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    expect(saved.body).to.include({ id: "adequacy", hasDraft: true });
    // With the failure's code (issue #54), for the editor to say it in its language.
    expect(saved.body.queryProblems).to.deep.equal([
      {
        query: "queries.monthly",
        message: 'column "ktvv" does not exist.',
        line: 2,
        column: 29,
        code: "query-unknown-column",
      },
      {
        query: "drills.ofMonth.queries.results",
        message: 'column "std_valu" does not exist.',
        line: 2,
        column: 57,
        code: "query-unknown-column",
      },
    ]);
    const failing = (
      saved.body.audit.findings as Array<{ rule: string; severity: string; where: string; message: string }>
    ).filter((f) => f.rule === "query-fails");
    expect(failing.map((f) => [f.where, f.severity])).to.deep.equal([
      ["queries.monthly", "high"],
      ["drills.ofMonth.queries.results", "high"],
    ]);
    expect(failing[0]!.message).to.equal(
      `The query fails when run with the filters' defaults at line 2, column 29: column "ktvv" does not exist. ` +
        "Correct it: published as it is, viewers see this error in its place.",
    );
    expect(saved.body.audit).to.include({ score: 60, grade: "D", highest: "high" });
    expect(JSON.stringify(saved.body), "no SQL text in the answer").to.not.include("monthly_results");
  });

  it("serves the draft's audit as the save answered it, and records the outcome with the draft's event", async () => {
    const audit = await hub.tenant.call("GET", "/api/reports/adequacy/versions/draft/audit");
    expect(audit.status).to.equal(200);
    expect(audit.body.findings.filter((f: { rule: string }) => f.rule === "query-fails")).to.have.length(2);
    const { rows } = await hub.service.db.query(
      "select data from events where tenant = 'h1' and stream_id = 'report:adequacy' and type = 'ReportDraftSaved' order by position desc limit 1",
    );
    expect(rows[0].data.queryProblems.map((p: { query: string }) => p.query)).to.deep.equal([
      "queries.monthly",
      "drills.ofMonth.queries.results",
    ]);
    expect(rows[0].data.audit.grade).to.equal("D");
  });

  it("still publishes a draft whose query fails (201), and the version's audit counts the failure", async () => {
    const published = await asAuthor("POST", "/api/reports/adequacy/publish", { mode: "dynamic", note: "" });
    expect(published.status, JSON.stringify(published.body)).to.equal(201);
    expect(published.body.audit).to.include({ grade: "D", highest: "high" });
    const audit = await hub.tenant.call("GET", "/api/reports/adequacy/versions/v1/audit");
    expect(audit.body.findings.map((f: { rule: string }) => f.rule)).to.include("query-fails");
    expect(
      (await hub.tenant.call("GET", "/api/reports/adequacy/versions/draft/audit")).status,
      "no draft once published",
    ).to.equal(404);
  });

  it("names no problem for queries that plan, and does not run them: a query that would burn its whole timeout saves at once", async () => {
    const started = performance.now();
    const saved = await asAuthor("PUT", "/api/reports/burning/draft", {
      spec: tableReportSpec("Burning", { burn: BURNING_QUERY, wards: "select ward from patients order by ward" }),
    });
    const elapsed = performance.now() - started;
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    expect(saved.body.queryProblems).to.deep.equal([]);
    expect(saved.body.audit.findings.map((f: { rule: string }) => f.rule)).to.not.include.members([
      "query-fails",
      "query-untried",
    ]);
    expect(elapsed, "planned, not run for its 2 s").to.be.below(1500);
  });

  it("answers within the gate's wait when the tenant's report queries are all busy, saying the query was not tried", async () => {
    // The tenant's one turn is taken by a query that burns for its whole timeout (2 s).
    const burning = hub.tenant.call("POST", "/api/reports/burning/data", { body: { version: "draft" } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    const saved = await asAuthor("PUT", "/api/reports/busy/draft", {
      spec: tableReportSpec("Busy", { broken: "select avg(ktvv) as ktv from lab_results" }),
    });
    const elapsed = performance.now() - started;
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    expect(elapsed, "waited its turn at most REPORT_QUEUE_WAIT_MS, not for the burning query").to.be.below(1500);
    expect(saved.body.queryProblems).to.deep.equal([]);
    const untried = saved.body.audit.findings.filter((f: { rule: string }) => f.rule === "query-untried");
    expect(untried.map((f: { where: string; severity: string }) => [f.where, f.severity])).to.deep.equal([
      ["queries.broken", "info"],
    ]);
    expect(untried[0].message).to.include("report queries are all busy");
    await burning;

    // Saved again once the turn is free, the failure is found.
    const again = await asAuthor("PUT", "/api/reports/busy/draft", {
      spec: tableReportSpec("Busy", { broken: "select avg(ktvv) as ktv from lab_results" }),
    });
    expect(again.body.queryProblems).to.deep.equal([
      {
        query: "queries.broken",
        message: 'column "ktvv" does not exist.',
        line: 1,
        column: 12,
        code: "query-unknown-column",
      },
    ]);
  });
});

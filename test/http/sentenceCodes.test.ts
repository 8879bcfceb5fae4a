import { expect } from "chai";
import { useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Issue #54: every sentence of the service a staff or embed page shows comes with a stable code the
 * page words in its language: a query's failure (never the database's text on the page), an audit
 * finding with what it names, a report or version not found; and the embed page's own message for
 * a report it cannot show names no API call.
 */

const spec = {
  version: 1,
  title: "Codes",
  params: [{ name: "unused", label: "Unused", type: "number", default: null }],
  queries: {
    fine: { sql: "select 1 as n" },
    column: { sql: "select ktvv from lab_results" },
    zero: { sql: "select 1 / (select count(*) from patients where false) as n" },
  },
  nodes: [
    { id: "a", type: "table", query: "fine" },
    { id: "b", type: "table", query: "column" },
    { id: "c", type: "table", query: "zero" },
  ],
};

describe("sentences of the service with the codes pages word them by (issue #54)", function () {
  this.timeout(120_000);
  const hub = useIngestionService();
  const call = (method: string, path: string, body?: unknown) => hub.tenant.call(method, path, { body });

  before(async () => {
    const saved = await hub.tenant.call("PUT", "/api/reports/codes/draft", {
      token: hub.tenant.authorToken,
      body: { spec },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    expect(saved.body.queryProblems.map((p: { code: string }) => p.code)).to.deep.equal(["query-unknown-column"]);
    const published = await hub.tenant.call("POST", "/api/reports/codes/publish", {
      token: hub.tenant.authorToken,
      body: { mode: "dynamic" },
    });
    expect(published.status).to.equal(201);
    await until(async () => (await call("GET", "/api/reports/codes/view?version=v1")).status === 200);
  });

  it("gives a failing query's code beside its sentence, by what the database said", async () => {
    const { queries } = (await call("POST", "/api/reports/codes/data", {})).body;
    expect(queries.fine.rows).to.deep.equal([[1]]);
    expect(queries.column).to.deep.equal({
      error: 'column "ktvv" does not exist (at character 8).',
      code: "query-unknown-column",
    });
    expect(queries.zero.code).to.equal("query-division-by-zero");
  });

  it("names in each audit finding what it points at, for a page to word it", async () => {
    const audit = (await call("GET", "/api/reports/codes/versions/v1/audit")).body;
    const findings = audit.findings as Array<{ rule: string; args?: unknown }>;
    const args = Object.fromEntries(findings.map((f) => [f.rule, f.args]).reverse());
    expect(args["unused-param"]).to.deep.equal({ param: "unused" });
    expect(args["query-fails"]).to.deep.equal({ line: 1, column: 8, code: "query-unknown-column" });
    expect(args["table-unordered"]).to.deep.equal({ node: "a", query: "fine" });
  });

  it("codes a report or version that is not there", async () => {
    for (const path of ["/api/reports/nope/view", "/api/reports/codes/view?version=v9", "/api/reports/NOPE/view"]) {
      const answer = await call("GET", path);
      expect([answer.status, answer.body.code], path).to.deep.equal([404, "report-version-not-found"]);
    }
  });

  it("says on the embed page what a reader may do about a report it cannot show, in the page's language", async () => {
    const page = async (path: string) => {
      const response = await fetch(`${hub.service.url}${path}`, { headers: { "x-service-tenant": "h1" } });
      return { status: response.status, html: await response.text() };
    };
    const missing = await page("/embed/reports/no-such-report");
    expect(missing.status).to.equal(404);
    expect(missing.html).to.include("找不到该报表").and.include("请检查链接中的报表编号与版本");
    expect(missing.html, "no API call named").not.to.match(/GET \/api|list the reports/);
    const version = await page("/embed/reports/codes?version=v7&lang=en");
    expect(version.html).to.include("Check the report id and version in the link").and.not.include("/api/");
  });
});

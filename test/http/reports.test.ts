import { expect } from "chai";
import pg from "pg";
import { allProjections } from "../../src/app/allProjections.ts";
import type { Answer } from "../support/http.ts";
import { ingestionTenant, labReport, useIngestionService } from "../support/ingestion.ts";
import { createTestDatabase } from "../support/database.ts";
import { adequacySpec, hbMonthlyReports } from "../support/reports.ts";
import { startTestService, until } from "../support/service.ts";

describe("reports (/api/reports)", () => {
  const hub = useIngestionService();
  const answers: Answer[] = [];
  const call = async (...args: Parameters<typeof hub.tenant.call>) => {
    const answer = await hub.tenant.call(...args);
    answers.push(answer);
    return answer;
  };
  const asAuthor = (method: string, path: string, body?: unknown) =>
    call(method, path, { token: hub.tenant.authorToken, body });

  before(async () => {
    await hub.tenant.push("lab", hbMonthlyReports());
    await until(
      async () =>
        (await hub.service.db.query("select count(*)::int as n from read.lab_results where std_code = 'HGB'")).rows[0]
          .n === 3,
    );
  });

  it("saves a draft, audits it, and lists the report as unpublished", async () => {
    const saved = await asAuthor("PUT", "/api/reports/hb-monthly/draft", { title: "Hemoglobin", spec: adequacySpec });
    expect(saved.status).to.equal(200);
    expect(saved.body).to.include({ id: "hb-monthly", hasDraft: true });
    expect(saved.body.audit).to.include.keys("score", "grade", "highest", "findings");
    const list = await call("GET", "/api/reports");
    expect(list.body).to.have.length(1);
    expect(list.body[0]).to.include({
      id: "hb-monthly",
      title: "Hemoglobin",
      datasource: "clinical",
      publishedVersion: null,
      hasDraft: true,
    });
    expect(list.body[0].updatedAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it("answers 409 for an unpublished report without version, and opens its draft", async () => {
    expect((await call("GET", "/api/reports/hb-monthly/view")).status).to.equal(409);
    const draft = await call("GET", "/api/reports/hb-monthly/view?version=draft");
    expect(draft.status).to.equal(200);
    expect(draft.body).to.include({ id: "hb-monthly", version: "draft", mode: "dynamic", note: "", data: null });
    expect(draft.body.params).to.deep.equal({ period: ["2026-01-01", "2026-12-31"], wards: null });
    expect(draft.body.spec.queries).to.deep.equal({ wardList: {}, monthly: {} });
  });

  it("refuses an invalid spec naming the JSON path, and a query that writes naming the query", async () => {
    const badNode = await asAuthor("PUT", "/api/reports/broken/draft", {
      spec: { ...adequacySpec, nodes: [{ id: "x", type: "table", query: "nope" }] },
    });
    expect(badNode.status).to.equal(400);
    expect(badNode.body.error).to.include("spec.nodes[0].query");
    const writes = await asAuthor("PUT", "/api/reports/broken/draft", {
      spec: { ...adequacySpec, queries: { ...adequacySpec.queries, wardList: { sql: "delete from patients" } } },
    });
    expect(writes.status).to.equal(400);
    expect(writes.body.error).to.include("spec.queries.wardList.sql");
    const source = await asAuthor("PUT", "/api/reports/broken/draft", { datasource: "elsewhere", spec: adequacySpec });
    expect(source.status).to.equal(400);
    expect(source.body.error).to.match(/datasource/);
    expect((await call("GET", "/api/reports/broken/view?version=draft")).status).to.equal(404);
  });

  it(
    "takes a chart's series names (labels) and sends them with the spec; refuses a name for a column the chart " +
      "does not plot, saying how to fix it",
    async () => {
      const withLabels = (labels: unknown) => ({
        ...adequacySpec,
        nodes: adequacySpec.nodes.map((node) => (node.id === "trend" ? { ...node, y2: ["n"], labels } : node)),
      });
      const saved = await asAuthor("PUT", "/api/reports/hb-named/draft", {
        spec: withLabels({ hgb: "Hb (g/L)", n: "Results" }),
      });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
      const viewed = await call("GET", "/api/reports/hb-named/view?version=draft");
      expect(viewed.body.spec.nodes.find((node: { id: string }) => node.id === "trend").labels).to.deep.equal({
        hgb: "Hb (g/L)",
        n: "Results",
      });

      const stray = await asAuthor("PUT", "/api/reports/hb-named/draft", {
        spec: withLabels({ hgb: "Hb", ktv: "spKt/V" }),
      });
      expect(stray.status).to.equal(400);
      expect(stray.body.error)
        .to.include("spec.nodes[1].labels.ktv")
        .and.include('"ktv", which is not a column of y or y2: use one of hgb, n as the key, or add "ktv" to y or y2.');
      const alike = await asAuthor("PUT", "/api/reports/hb-named/draft", { spec: withLabels({ hgb: "Hb", n: "Hb" }) });
      expect(alike.status).to.equal(400);
      expect(alike.body.error)
        .to.include("spec.nodes[1].labels")
        .and.include("give each plotted column a name of its own");
      const long = await asAuthor("PUT", "/api/reports/hb-named/draft", { spec: withLabels({ hgb: "x".repeat(101) }) });
      expect(long.status).to.equal(400);
      expect(long.body.error).to.include("spec.nodes[1].labels.hgb").and.include("at most 100 characters");
      await asAuthor("DELETE", "/api/reports/hb-named/draft");
    },
  );

  it("publishes the draft as v1, the current version, with its audit", async () => {
    const published = await asAuthor("POST", "/api/reports/hb-monthly/publish", { mode: "dynamic", note: "first" });
    expect(published.status).to.equal(201);
    expect(published.body).to.include({ no: "v1", who: "Nurse Chen", note: "first", mode: "dynamic", current: true });
    expect(published.body.audit.findings).to.be.a("number");
    const list = await call("GET", "/api/reports");
    expect(list.body[0]).to.include({ publishedVersion: "v1", hasDraft: false });
    expect(
      (await asAuthor("POST", "/api/reports/hb-monthly/publish", { mode: "dynamic" })).status,
      "no draft left to publish",
    ).to.equal(409);
  });

  it("returns every query's result for the current version, converted units included", async () => {
    const data = await call("POST", "/api/reports/hb-monthly/data", { body: {} });
    expect(data.status).to.equal(200);
    expect(data.body.queries.wardList.rows).to.deep.equal([["A"]]);
    const monthly = data.body.queries.monthly;
    expect(monthly.columns).to.deep.equal(["month", "hgb", "n"]);
    expect(monthly.columnTypes).to.deep.equal(["date", "number", "integer"]);
    expect(monthly.rows).to.deep.equal([
      ["2026-01-01", 105, 2],
      ["2026-02-01", 120, 1],
    ]);
  });

  it("applies filter values, and null as no restriction", async () => {
    const february = await call("POST", "/api/reports/hb-monthly/data", {
      body: { version: "v1", params: { period: ["2026-02-01", null] } },
    });
    expect(february.body.queries.monthly.rows).to.deep.equal([["2026-02-01", 120, 1]]);
    const noWard = await call("POST", "/api/reports/hb-monthly/data", {
      body: { version: "v1", params: { wards: ["B"] } },
    });
    expect(noWard.body.queries.monthly.rows).to.deep.equal([]);
  });

  it("refuses unknown params naming the declared ones, and values of the wrong shape", async () => {
    const unknown = await call("POST", "/api/reports/hb-monthly/data", { body: { params: { ward: ["A"] } } });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error).to.include("period").and.include("wards");
    const shape = await call("POST", "/api/reports/hb-monthly/data", { body: { params: { period: "2026-01" } } });
    expect(shape.status).to.equal(400);
    expect(shape.body.error).to.include("period");
  });

  it("drills through with the clicked row's values and a title naming them", async () => {
    const drill = await call("POST", "/api/reports/hb-monthly/drill", {
      body: { version: "v1", drill: "byMonth", args: { month: "2026-01-01" } },
    });
    expect(drill.status).to.equal(200);
    expect(drill.body.title).to.equal("Patients in 2026-01-01");
    expect(drill.body.queries.patients.rows).to.deep.equal([
      ["P001", 100],
      ["P001", 110],
    ]);
    expect(
      (await call("POST", "/api/reports/hb-monthly/drill", { body: { drill: "byMonth", args: { ward: "A" } } })).status,
    ).to.equal(400);
    const unknownDrill = await call("POST", "/api/reports/hb-monthly/drill", { body: { drill: "byYear", args: {} } });
    expect(unknownDrill.status).to.equal(400);
    expect(unknownDrill.body.error).to.include("byMonth");
  });

  it("takes a drill arg named like a report param, and inside the drill the clicked row's value wins", async () => {
    // `month` is a filter of the report (text, "2026-02") and the drill's arg (a date): in the
    // drill, {{month}} is the clicked row's date, typed as the arg.
    const spec = {
      ...adequacySpec,
      params: [...adequacySpec.params, { name: "month", label: "Month", type: "text", default: "2026-02" }],
      queries: {
        ...adequacySpec.queries,
        monthly: {
          sql: adequacySpec.queries.monthly.sql.replace(
            "group by",
            "[[and to_char(reported_at, 'YYYY-MM') = {{month}}]] group by",
          ),
        },
      },
    };
    const saved = await asAuthor("PUT", "/api/reports/hb-shadow/draft", { spec });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    expect((await asAuthor("POST", "/api/reports/hb-shadow/publish", { mode: "dynamic" })).status).to.equal(201);
    const audit = await call("GET", "/api/reports/hb-shadow/versions/v1/audit");
    expect(audit.body.findings).to.deep.include({
      rule: "drill-arg-shadows-param",
      severity: "info",
      where: "drills.byMonth.args[0]",
      message:
        'The drill argument "month" has the name of the filter "month": in drill "byMonth", {{month}} is the ' +
        "clicked row's value, not the filter's. Rename one of them if the drill's queries should also " +
        "follow the filter.",
      args: { arg: "month", drill: "byMonth" },
    });

    const report = await call("POST", "/api/reports/hb-shadow/data", { body: {} });
    expect(report.body.queries.monthly.rows, "the report follows the filter").to.deep.equal([["2026-02-01", 120, 1]]);
    const drill = await call("POST", "/api/reports/hb-shadow/drill", {
      body: { drill: "byMonth", args: { month: "2026-01-01" }, params: { month: "2026-02" } },
    });
    expect(drill.status, JSON.stringify(drill.body)).to.equal(200);
    expect(drill.body.title).to.equal("Patients in 2026-01-01");
    expect(drill.body.queries.patients.rows, "the drill follows the clicked month, not the filter").to.deep.equal([
      ["P001", 100],
      ["P001", 110],
    ]);
  });

  it("freezes a snapshot's results at publishing: the same numbers whatever arrives later", async () => {
    await asAuthor("PUT", "/api/reports/hb-monthly/draft", { title: "Hemoglobin", spec: adequacySpec });
    const published = await asAuthor("POST", "/api/reports/hb-monthly/publish", { mode: "snapshot", note: "Q1 board" });
    expect(published.body).to.include({ no: "v2", mode: "snapshot", current: true });
    const before = (await call("POST", "/api/reports/hb-monthly/data", { body: { version: "v2" } })).body;
    await hub.tenant.push("lab", [
      labReport("M4", { reportedAt: "2026-02-15 09:00:00", items: [{ itemCode: "HGB", value: 60, unit: "g/L" }] }),
    ]);
    await until(
      async () =>
        (await hub.service.db.query("select 1 from read.lab_results where external_id = 'M4'")).rowCount === 1,
    );
    const after = (await call("POST", "/api/reports/hb-monthly/data", { body: { version: "v2" } })).body;
    expect(after).to.deep.equal(before);
    const live = (await call("POST", "/api/reports/hb-monthly/data", { body: { version: "v1" } })).body;
    expect(live.queries.monthly.rows).to.deep.equal([
      ["2026-01-01", 105, 2],
      ["2026-02-01", 90, 2],
    ]);
    const view = await call("GET", "/api/reports/hb-monthly/view?version=v2");
    expect(view.body.data).to.deep.equal(before.queries);
  });

  it("lists versions newest first with exactly one current, and serves each version's full audit", async () => {
    const versions = await call("GET", "/api/reports/hb-monthly/versions");
    expect(versions.body.map((v: { no: string }) => v.no)).to.deep.equal(["v2", "v1"]);
    expect(versions.body.filter((v: { current: boolean }) => v.current)).to.have.length(1);
    const audit = await call("GET", "/api/reports/hb-monthly/versions/v1/audit");
    expect(audit.status).to.equal(200);
    expect(audit.body.findings).to.be.an("array");
    expect(audit.body.score).to.equal(versions.body[1].audit.score);
    expect((await call("GET", "/api/reports/hb-monthly/versions/v9/audit")).status).to.equal(404);
  });

  it("restores an old version as a new current one, never reusing a number", async () => {
    const restored = await asAuthor("POST", "/api/reports/hb-monthly/restore", { version: "v1" });
    expect(restored.status).to.equal(201);
    expect(restored.body).to.include({ no: "v3", note: "restored from v1", mode: "dynamic", current: true });
    expect((await call("GET", "/api/reports/hb-monthly/view")).body.version).to.equal("v3");
    expect(
      (await call("GET", "/api/reports/hb-monthly/view?version=v2")).body.mode,
      "old versions stay viewable",
    ).to.equal("snapshot");
  });

  it("discards a draft", async () => {
    await asAuthor("PUT", "/api/reports/hb-monthly/draft", { spec: adequacySpec });
    expect((await asAuthor("DELETE", "/api/reports/hb-monthly/draft")).status).to.equal(204);
    expect((await call("GET", "/api/reports/hb-monthly/view?version=draft")).status).to.equal(404);
    expect((await call("GET", "/api/reports")).body[0].hasDraft).to.equal(false);
  });

  it("answers 404 for an unknown report on every report call", async () => {
    for (const [method, path] of [
      ["GET", "/api/reports/nope/view"],
      ["POST", "/api/reports/nope/data"],
      ["POST", "/api/reports/nope/drill"],
      ["GET", "/api/reports/nope/versions"],
      ["GET", "/api/reports/nope/versions/v1/audit"],
    ]) {
      expect((await call(method!, path!, { body: method === "POST" ? {} : undefined })).status, path).to.equal(404);
    }
  });

  it("needs an author credential to write, none to view", async () => {
    expect((await call("PUT", "/api/reports/x/draft", { body: { spec: adequacySpec } })).status).to.equal(401);
    expect((await call("POST", "/api/reports/hb-monthly/publish", { body: { mode: "dynamic" } })).status).to.equal(401);
  });

  it("shows another tenant nothing", async () => {
    const other = await hub.tenant.call("GET", "/api/reports", { tenant: "elsewhere" });
    expect(other.body).to.deep.equal([]);
    expect((await hub.tenant.call("GET", "/api/reports/hb-monthly/view", { tenant: "elsewhere" })).status).to.equal(
      404,
    );
  });

  it("never sends SQL out: no answer holds an sql member or the text of a query", () => {
    expect(answers.length).to.be.greaterThan(30);
    for (const answer of answers) {
      const text = JSON.stringify(answer.body);
      expect(text, text.slice(0, 200)).not.to.match(/"sql"\s*:/);
      expect(text).not.to.match(/date_trunc|select distinct|from lab_results/i);
    }
  });
});

describe("reports on a configured data source (DATASOURCE_<NAME>_URL)", () => {
  it("runs a report's SQL against that database, read-only", async () => {
    const qualityUrl = await createTestDatabase(false);
    const setup = new pg.Client({ connectionString: qualityUrl });
    await setup.connect();
    await setup.query(
      "create table audits (ward text, score numeric); insert into audits values ('A', 92.5), ('B', 88)",
    );
    await setup.end();
    const service = await startTestService({
      projections: allProjections,
      env: { DATASOURCE_QUALITY_URL: qualityUrl },
    });
    try {
      const tenant = await ingestionTenant(service, "h1");
      const spec = {
        version: 1,
        title: "Ward audits",
        params: [],
        queries: {
          scores: { sql: "select ward, score from audits order by ward" },
          sneaky: { sql: "select * from audits for update" },
        },
        nodes: [{ id: "t", type: "table", query: "scores" }],
      };
      const refused = await tenant.call("PUT", "/api/reports/audits/draft", {
        token: tenant.authorToken,
        body: { datasource: "quality", spec },
      });
      expect(refused.status, "a locking clause is refused at save").to.equal(400);
      delete (spec.queries as Record<string, unknown>).sneaky;
      const saved = await tenant.call("PUT", "/api/reports/audits/draft", {
        token: tenant.authorToken,
        body: { datasource: "quality", spec },
      });
      expect(saved.status).to.equal(200);
      const data = await tenant.call("POST", "/api/reports/audits/data", { body: { version: "draft" } });
      expect(data.body.queries.scores.rows).to.deep.equal([
        ["A", 92.5],
        ["B", 88],
      ]);
    } finally {
      await service.stop();
    }
  });
});

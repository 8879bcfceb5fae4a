import { expect } from "chai";
import { prepareReportRunner, reportRunnerUrl } from "../../db/reportRunner.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { DataSources } from "../../queries/reports/dataSources.ts";
import type { QueryOutcome, QuerySuccess } from "../../commands/reports/spec/queryOutcome.ts";
import { runReportQuery } from "../../queries/reports/runReportQuery.ts";
import { ingestionTenant, labReport } from "../support/ingestion.ts";
import { until, useTestService } from "../support/service.ts";

describe("report queries on the clinical data source", () => {
  const hub = useTestService({ projections: allProjections });
  let sources: DataSources;
  const run = (tenant: string, text: string, values: unknown[] = [], timeoutMs = 5000) =>
    runReportQuery(
      sources.get("clinical")!,
      { text, values },
      { tenant, wards: null, timeoutMs, timeZone: "Asia/Shanghai" },
    );
  const ok = (outcome: QueryOutcome) => {
    if ("error" in outcome) throw new Error(`query failed: ${outcome.error}`);
    return outcome as QuerySuccess;
  };

  before(async () => {
    await prepareReportRunner(hub.service.db, hub.service.databaseUrl);
    sources = new DataSources({
      serviceDb: hub.service.db,
      clinicalUrl: reportRunnerUrl(hub.service.databaseUrl),
      others: {},
      poolSize: 2,
    });
    const north = await ingestionTenant(hub.service, "north");
    await north.push("lab", [labReport("N-1"), labReport("N-2")]);
    const south = await ingestionTenant(hub.service, "south");
    await south.push("lab", [labReport("S-1")]);
    await until(
      async () => (await hub.service.db.query("select count(*)::int as n from read.lab_results")).rows[0].n === 9,
      20_000,
    );
  });
  after(() => sources.end());

  it("returns columns, their types and rows shaped as the interface promises", async () => {
    const result = ok(
      await run(
        "north",
        `select 1::int as i, 9007199254740993::bigint as big, 1.50::numeric as n, 123456789012345678901.5::numeric as huge,
        true as b, date '2026-03-01' as d, timestamp '2026-03-01 08:30:15.123' as ts, '{"a": 1}'::jsonb as j, 'text' as s, null::text as nothing`,
      ),
    );
    expect(result.columns).to.deep.equal(["i", "big", "n", "huge", "b", "d", "ts", "j", "s", "nothing"]);
    expect(result.columnTypes).to.deep.equal([
      "integer",
      "integer",
      "number",
      "number",
      "boolean",
      "date",
      "datetime",
      "json",
      "string",
      "string",
    ]);
    expect(result.rows).to.deep.equal([
      [
        1,
        "9007199254740993",
        1.5,
        "123456789012345678901.5",
        true,
        "2026-03-01",
        "2026-03-01 08:30:15",
        { a: 1 },
        "text",
        null,
      ],
    ]);
    expect(result.truncated).to.equal(false);
    expect(result.elapsedMs).to.be.a("number");
  });

  it("shows instants in the service's zone", async () => {
    const result = ok(
      await run("north", "select timestamptz '2026-03-01 00:30:00+00' as at, current_setting('TimeZone') as zone"),
    );
    expect(result.rows).to.deep.equal([["2026-03-01 08:30:00", "Asia/Shanghai"]]);
  });

  it("shows each tenant only its own rows", async () => {
    const north = ok(await run("north", "select external_id from lab_reports order by 1"));
    expect(north.rows).to.deep.equal([["N-1"], ["N-2"]]);
    const south = ok(await run("south", "select count(*) from lab_results"));
    expect(south.rows).to.deep.equal([[3]]);
    const ward = ok(await run("north", "select distinct ward, std_code from lab_results where std_code = 'HGB'"));
    expect(ward.rows).to.deep.equal([["A", "HGB"]]);
  });

  it("cannot be talked into another tenant's rows by changing settings from SQL", async () => {
    const hijack = await run(
      "north",
      "select set_config('app.tenant', 'south', true) as t, (select array_agg(external_id) from lab_reports) as ids",
    );
    if (!("error" in hijack)) expect(hijack.rows[0]![1]).to.deep.equal(["N-1", "N-2"]);
    const escalate = await run(
      "north",
      "select set_config('role', 'postgres', true), query_to_xml('select count(*) from events', true, false, '')",
    );
    expect(escalate).to.have.property("error");
  });

  it("cuts a large result at 5000 rows and says so", async () => {
    const result = ok(await run("north", "select g from generate_series(1, 20000) g"));
    expect(result.rows).to.have.length(5000);
    expect(result.truncated).to.equal(true);
  });

  it("cannot write, nor read outside the clinical relations", async () => {
    for (const sql of [
      "delete from lab_reports",
      "select * from events",
      "select * from read.patients",
      "select * from pg_authid",
      "select * from report_sessions",
    ]) {
      const outcome = await run("north", sql);
      expect(outcome, sql).to.have.property("error");
    }
    expect((await hub.service.db.query("select count(*)::int as n from read.lab_reports")).rows[0].n).to.equal(3);
  });

  it("stops a slow query at the statement timeout with a sentence for the author", async () => {
    const started = Date.now();
    const outcome = await run("north", "select pg_sleep(10)", [], 300);
    expect(Date.now() - started).to.be.lessThan(3000);
    expect((outcome as { error: string }).error).to.match(/longer than/);
  });

  it("reports the database's error without echoing the SQL", async () => {
    const outcome = await run("north", "select secret_column_xyz fromm lab_reports");
    expect((outcome as { error: string }).error).to.match(/syntax error/);
    expect((outcome as { error: string }).error).not.to.include("fromm");
  });
});

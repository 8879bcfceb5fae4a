import { expect } from "chai";
import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { prepareReportRunner, reportRunnerUrl } from "../../db/reportRunner.ts";
import type { Wards } from "../../db/wardScope.ts";
import { DataSources } from "../../queries/reports/dataSources.ts";
import { runReportQuery } from "../../queries/reports/runReportQuery.ts";
import { FROZEN_FOR_EVERY_WARD } from "../../queries/reports/viewing.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { downloadExport, tableReportSpec } from "../support/reports.ts";
import { until } from "../support/service.ts";
import { unzip } from "../support/zipText.ts";

/**
 * Contract G.1: report queries on the clinical source run with the caller's wards. The database
 * keeps to them (the binding of each report connection, read by the security_barrier views), so
 * no SQL an author writes steps around them. Before this, a ward-3A caller's dashboards showed
 * every ward, and a 3A author querying `ward = '5B'` got that ward.
 */
describe("security: ward scope in report SQL (G.1)", function () {
  this.timeout(90_000);
  const hub = useIngestionService();
  const TENANT = "h1";
  const PATIENTS = [
    { ref: "WS-3A", ward: "3A", n: 51 },
    { ref: "WS-5B", ward: "5B", n: 52 },
    { ref: "WS-NOWARD", ward: null, n: 53 },
  ];
  let sources: DataSources;
  let scoped3A: string;
  let everyWard: string;

  const tokenWith = async (name: string, body: Record<string, unknown>) => {
    const made = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name, tenant: TENANT, ...body },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  };
  const run = (wards: Wards, text: string): Promise<QueryOutcome> =>
    runReportQuery(
      sources.get("clinical")!,
      { text, values: [] },
      { tenant: TENANT, wards, timeoutMs: 5000, timeZone: "Asia/Shanghai" },
    );
  const rowsOf = async (wards: Wards, text: string): Promise<unknown[][]> => {
    const outcome = await run(wards, text);
    if ("error" in outcome) throw new Error(`${text}: ${outcome.error}`);
    return outcome.rows;
  };

  before(async () => {
    const { call, push, authorToken } = hub.tenant;
    for (const patient of PATIENTS) {
      const idCard = makeIdCard("110105", "19610101", patient.n);
      const saved = await call("PUT", `/api/patients/${patient.ref}`, {
        token: authorToken,
        body: { name: `病人${patient.ref}`, idCard, ward: patient.ward },
      });
      expect(saved.status).to.equal(200);
      const report = labReport(`R-${patient.ref}`, {
        patient: { idCard, name: `病人${patient.ref}` },
        collectedAt: localDateTime(new Date(Date.now() - 7_200_000)),
        reportedAt: localDateTime(new Date(Date.now() - 3_600_000)),
        items: [
          { itemCode: "UREA_PRE", itemName: "透析前尿素", value: 25, unit: "mmol/L" },
          { itemCode: "UREA_POST", itemName: "透析后尿素", value: 8, unit: "mmol/L" },
          { itemCode: "K", itemName: "钾", value: 5.1, unit: "mmol/L" },
        ],
      });
      expect((await push("lab", [report])).status).to.equal(200);
    }
    expect(
      (
        await push("lab", [
          labReport("R-UNMATCHED", { patient: { idCard: makeIdCard("110105", "19610101", 54), name: "无名" } }),
        ])
      ).status,
    ).to.equal(200);
    await until(
      async () =>
        (
          await hub.service.db.query(
            "select count(distinct external_id)::int as n from read.lab_results where external_id like 'R-%'",
          )
        ).rows[0].n === 4,
      20_000,
      100,
    );
    await until(
      async () =>
        (await hub.service.db.query("select count(*)::int as n from read.latest_results where patient_ref like 'WS-%'"))
          .rows[0].n >= 3,
      20_000,
      100,
    );
    await prepareReportRunner(hub.service.db, hub.service.databaseUrl);
    // One connection: every scope takes its turn on the same report connection.
    sources = new DataSources({
      serviceDb: hub.service.db,
      clinicalUrl: reportRunnerUrl(hub.service.databaseUrl),
      others: {},
      poolSize: 1,
    });
    scoped3A = await tokenWith("Nurse of 3A", { roles: ["author"], wards: ["3A"] });
    everyWard = await tokenWith("Head nurse", { roles: ["author"] });
  });
  after(() => sources?.end());

  it("shows a caller with wards only their wards' rows in every relation with a patient or a ward", async () => {
    const union = `select 'patients' as rel, patient_ref, ward from patients where patient_ref like 'WS-%'
      union all select 'lab_reports', l.patient_ref, null from lab_reports l where l.external_id like 'R-%'
      union all select 'lab_results', patient_ref, ward from lab_results where external_id like 'R-%'
      union all select 'latest_results', patient_ref, ward from latest_results where patient_ref like 'WS-%'
      union all select 'derived_results', patient_ref, ward from derived_results where patient_ref like 'WS-%'
      union all select 'monthly_results', null, ward from monthly_results`;
    const scoped = await rowsOf(["3A"], union);
    for (const rel of [
      "patients",
      "lab_reports",
      "lab_results",
      "latest_results",
      "derived_results",
      "monthly_results",
    ]) {
      expect(scoped.filter((row) => row[0] === rel).length, `${rel} has the 3A rows`).to.be.greaterThan(0);
    }
    expect(
      scoped.filter((row) => (row[1] !== null && row[1] !== "WS-3A") || (row[2] !== null && row[2] !== "3A")),
      "nothing of another ward, no ward or no patient",
    ).to.deep.equal([]);
    expect(
      scoped.filter((row) => row[0] === "lab_reports" && row[1] === null),
      "an unmatched report is no ward's patient",
    ).to.deep.equal([]);

    const every = await rowsOf(null, union);
    expect(new Set(every.filter((row) => row[0] === "patients").map((row) => row[1]))).to.deep.equal(
      new Set(["WS-3A", "WS-5B", "WS-NOWARD"]),
    );
    expect(
      every.some((row) => row[0] === "lab_reports" && row[1] === null),
      "a caller of every ward sees the unmatched report",
    ).to.equal(true);
    expect(await rowsOf([], "select count(*) from patients"), "no ward at all: no patient").to.deep.equal([[0]]);
  });

  it("cannot be stepped around: settings, CTEs, unions, subselects, functions, or a filter that fails on another ward's row", async () => {
    const attempts: Record<string, string> = {
      filter: "select count(*) from lab_results where ward = '5B'",
      setConfig:
        "select set_config('app.wards', '', false) as s, (select count(*) from patients where ward = '5B') as n",
      setting:
        "select coalesce(current_setting('app.wards', true), '') || coalesce(current_setting('app.tenant', " +
        "true), '') as s, (select count(*) from patients where ward <> '3A') as n",
      cte: "with every_result as (select * from lab_results) select count(*) from every_result where ward is distinct from '3A'",
      union:
        "select count(*) from (select patient_ref from patients union select patient_ref from lab_reports " +
        "union select patient_ref from exam_reports) u where patient_ref is distinct from 'WS-3A' and " +
        "patient_ref <> 'P001'",
      subselect:
        "select (select count(*) from patients p where p.ward in (select ward from monthly_results where ward <> '3A')) as n",
      function: "select count(*) from lab_results where upper(coalesce(ward, 'none')) <> '3A'",
      // Not a constant 1 / 0, which the planner would fold (and fail) before reading a row.
      failing:
        "select count(*) from patients where case when ward = '5B' then 1 / (length(ward) - 2) else 1 end = 1 and ward <> '3A'",
      aggregate:
        "select count(*) from (select string_agg(patient_ref, ',') as refs from latest_results) a where refs like '%5B%'",
    };
    for (const [name, sql] of Object.entries(attempts)) {
      const outcome = await run(["3A"], sql);
      expect(outcome, name).not.to.have.property("error");
      const rows = (outcome as { rows: unknown[][] }).rows;
      expect(rows[0]!.at(-1), `${name}: ${JSON.stringify(rows)}`).to.equal(0);
    }
    // A changed setting does not outlive the query, nor widen the next one on the same connection.
    expect(await rowsOf(["3A"], "select count(*) from patients where ward = '5B'")).to.deep.equal([[0]]);
    // A `set` statement changes nothing either (the role cannot become another).
    expect(await run(["3A"], "set role dh_tenant_reader")).to.have.property("error");
  });

  it("keeps each caller to their own wards while scopes take turns on one report connection", async () => {
    const turns: Wards[] = [["3A"], null, ["5B"], ["3A", "5B"], ["3A"], null];
    for (const wards of turns) {
      const refs = (
        await rowsOf(wards, "select patient_ref from patients where patient_ref like 'WS-%' order by 1")
      ).map((row) => row[0]);
      const expected =
        wards === null
          ? ["WS-3A", "WS-5B", "WS-NOWARD"]
          : PATIENTS.filter((p) => p.ward !== null && wards.includes(p.ward)).map((p) => p.ref);
      expect(refs, JSON.stringify(wards)).to.deep.equal(expected);
    }
  });

  describe("over HTTP: data, drill, export and snapshots", () => {
    const spec = {
      ...tableReportSpec("Ward rows", {
        list: "select patient_ref, name, ward from patients where patient_ref like 'WS-%' order by 1",
        counts: "select ward, count(*) as n from lab_results where external_id like 'R-%' group by ward order by 1",
      }),
      drills: {
        results: {
          title: "Results",
          args: [],
          queries: {
            rows: { sql: "select distinct patient_ref, ward from lab_results where external_id like 'R-%' order by 1" },
          },
          nodes: [{ id: "rows", type: "table", query: "rows" }],
        },
      },
    };
    before(async () => {
      const { call } = hub.tenant;
      for (const [id, mode] of [
        ["ward-dynamic", "dynamic"],
        ["ward-snapshot", "snapshot"],
      ] as const) {
        expect((await call("PUT", `/api/reports/${id}/draft`, { token: everyWard, body: { spec } })).status).to.equal(
          200,
        );
        expect(
          (await call("POST", `/api/reports/${id}/publish`, { token: everyWard, body: { mode, note: "" } })).status,
        ).to.equal(201);
      }
    });

    it("answers a ward-3A caller's data and drill calls with ward 3A only, and a call without a caller with every ward (VIEWING_AUTH=proxy)", async () => {
      const { call } = hub.tenant;
      const data = await call("POST", "/api/reports/ward-dynamic/data", { token: scoped3A, body: {} });
      expect(data.status).to.equal(200);
      expect(data.body.queries.list.rows).to.deep.equal([["WS-3A", "病人WS-3A", "3A"]]);
      expect(data.body.queries.counts.rows).to.deep.equal([["3A", 3]]);
      const drill = await call("POST", "/api/reports/ward-dynamic/drill", {
        token: scoped3A,
        body: { drill: "results", args: {} },
      });
      expect(drill.status).to.equal(200);
      expect(drill.body.queries.rows.rows).to.deep.equal([["WS-3A", "3A"]]);

      const open = await call("POST", "/api/reports/ward-dynamic/data", { body: {} });
      expect(open.body.queries.list.rows.map((row: unknown[]) => row[0])).to.deep.equal([
        "WS-3A",
        "WS-5B",
        "WS-NOWARD",
      ]);
    });

    it("exports a ward-3A caller's rows only", async () => {
      const file = await downloadExport(hub.service, "ward-dynamic", "xlsx", { lang: "en" }, scoped3A);
      expect(file.status).to.equal(200);
      const sheets = [...unzip(file.buffer).entries()]
        .filter(([name]) => name.startsWith("xl/"))
        .map(([, content]) => content.toString("utf8"))
        .join("");
      expect(sheets).to.include("WS-3A");
      expect(sheets).not.to.include("WS-5B");
      expect(sheets).not.to.include("WS-NOWARD");
    });

    it(
      "shows a caller of one ward a snapshot as frozen for that ward, one of several wards none of its frozen " +
        "rows, and its live drill in their wards",
      async () => {
        const { call } = hub.tenant;
        const scoped = await call("POST", "/api/reports/ward-snapshot/data", { token: scoped3A, body: {} });
        expect(scoped.body.queries.list.rows, "the 3A freeze of the same publishing").to.deep.equal([
          ["WS-3A", "病人WS-3A", "3A"],
        ]);
        expect(scoped.body.queries.counts.rows).to.deep.equal([["3A", 3]]);
        const viewed = await call("GET", "/api/reports/ward-snapshot/view", { token: scoped3A });
        expect(JSON.stringify(viewed.body)).not.to.include("WS-5B");
        const twoWards = await tokenWith("Nurse of 3A and 5B", { roles: ["viewer"], wards: ["3A", "5B"] });
        const several = await call("POST", "/api/reports/ward-snapshot/data", { token: twoWards, body: {} });
        expect(several.body.queries.list).to.deep.equal({ error: FROZEN_FOR_EVERY_WARD, code: "snapshot-other-wards" });
        const drill = await call("POST", "/api/reports/ward-snapshot/drill", {
          token: scoped3A,
          body: { drill: "results", args: {} },
        });
        expect(drill.body.queries.rows.rows).to.deep.equal([["WS-3A", "3A"]]);
        const every = await call("POST", "/api/reports/ward-snapshot/data", { token: everyWard, body: {} });
        expect(every.body.queries.list.rows).to.have.length(3);
      },
    );

    it("shows a snapshot a 3A author froze to callers within 3A, and to no caller of another ward", async () => {
      const { call } = hub.tenant;
      expect(
        (await call("PUT", "/api/reports/ward-3a-snapshot/draft", { token: scoped3A, body: { spec } })).status,
      ).to.equal(200);
      expect(
        (
          await call("POST", "/api/reports/ward-3a-snapshot/publish", {
            token: scoped3A,
            body: { mode: "snapshot", note: "" },
          })
        ).status,
      ).to.equal(201);
      const own = await call("POST", "/api/reports/ward-3a-snapshot/data", { token: scoped3A, body: {} });
      expect(own.body.queries.list.rows).to.deep.equal([["WS-3A", "病人WS-3A", "3A"]]);
      const of5B = await tokenWith("Nurse of 5B", { roles: ["viewer"], wards: ["5B"] });
      const other = await call("POST", "/api/reports/ward-3a-snapshot/data", { token: of5B, body: {} });
      expect(other.body.queries.list).to.deep.equal({ error: FROZEN_FOR_EVERY_WARD, code: "snapshot-other-wards" });
    });

    it("names the caller, not anonymous, in the access record of a data call", async () => {
      const { call } = hub.tenant;
      expect((await call("POST", "/api/reports/ward-dynamic/data", { token: scoped3A, body: {} })).status).to.equal(
        200,
      );
      const record = await until(
        async () => {
          const log = await call("GET", "/api/admin/access-log?who=Nurse%20of%203A", { token: ADMIN });
          return (log.body.records as Array<{ action: string; who: string; patientRefs: string[] }>).find(
            (r) => r.action === "POST /api/reports/{id}/data",
          );
        },
        10_000,
        100,
      );
      expect(record).to.deep.include({ who: "Nurse of 3A", patientRefs: ["WS-3A"] });
    });
  });
});

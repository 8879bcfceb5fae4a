import { createHmac } from "node:crypto";
import { expect } from "chai";
import { reportRunnerUrl } from "../../db/reportRunner.ts";
import { RESEARCH_RUNNER_ROLE } from "../../db/researchViews.ts";
import { DataSources } from "../../queries/reports/dataSources.ts";
import { runReportQuery } from "../../queries/reports/runReportQuery.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { loadIdentifierHasher } from "../../src/secrets/identifierKey.ts";
import { researchPseudonymKey } from "../../src/secrets/researchKey.ts";
import { ADMIN } from "../support/http.ts";
import { ingestionTenant, labReport, useIngestionService } from "../support/ingestion.ts";
import { tableReportSpec } from "../support/reports.ts";
import { until } from "../support/service.ts";

/**
 * Contract G.1: the `research` data source and the role `researcher`. The same relations as the
 * clinical source, without names, id cards or HIS ids; patientRef replaced by a keyed pseudonym,
 * stable within the tenant, in the same column; an age at collection. A researcher views and
 * exports reports of the research source only.
 */
describe("security: the research data source and role (G.1)", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  const BORN = "19600520";
  let researcher: string;
  let pseudonymOf: (tenant: string, patientRef: string) => string;

  const researchReport = async (id: string, queries: Record<string, string>, datasource = "research") => {
    const { call, authorToken } = hub.tenant;
    const saved = await call("PUT", `/api/reports/${id}/draft`, {
      token: authorToken,
      body: { datasource, spec: tableReportSpec(id, queries) },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    expect(
      (await call("POST", `/api/reports/${id}/publish`, { token: authorToken, body: { mode: "dynamic", note: "" } }))
        .status,
    ).to.equal(201);
  };

  before(async () => {
    const { call, push, authorToken } = hub.tenant;
    for (const [ref, ward, n] of [
      ["RS-3A", "3A", 81],
      ["RS-5B", "5B", 82],
    ] as const) {
      const idCard = makeIdCard("110105", BORN, n);
      expect(
        (
          await call("PUT", `/api/patients/${ref}`, {
            token: authorToken,
            body: { name: `研究${ref}`, idCard, ward, hisPatientId: `HIS-${ref}` },
          })
        ).status,
      ).to.equal(200);
      // Collected the day before and on the 66th birthday: 65, then 66.
      for (const [suffix, collectedAt] of [
        ["a", "2026-05-19 07:30:00"],
        ["b", "2026-05-20 07:30:00"],
      ] as const) {
        expect(
          (
            await push("lab", [
              labReport(`RS-${ref}-${suffix}`, {
                patient: { idCard, name: `研究${ref}` },
                collectedAt,
                reportedAt: collectedAt.replace("07:30", "11:00"),
              }),
            ])
          ).status,
        ).to.equal(200);
      }
    }
    await until(
      async () =>
        (
          await hub.service.db.query(
            "select count(distinct external_id)::int as n from read.lab_results where external_id like 'RS-%'",
          )
        ).rows[0].n === 4,
      20_000,
      100,
    );
    const made = await call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Dr Research", tenant: "h1", roles: ["researcher"] },
    });
    expect(made.status).to.equal(201);
    researcher = made.body.token;
    const key = researchPseudonymKey(await loadIdentifierHasher(hub.service.db, undefined));
    pseudonymOf = (tenant, patientRef) =>
      `R-${createHmac("sha256", key).update(`${tenant}:${patientRef}`).digest("hex").slice(0, 24)}`;
  });

  it("shows the relations without names or ids, each patientRef a keyed pseudonym in the same column, and an age at collection", async () => {
    await researchReport("research-results", {
      patients: "select * from patients where ward in ('3A', '5B') order by ward",
      results:
        "select patient_ref, ward, age, collected_on from lab_results where external_id like 'RS-RS-3A-%' and std_code = 'HGB' order by collected_on",
    });
    const answer = await hub.tenant.call("POST", "/api/reports/research-results/data", { token: researcher, body: {} });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const { patients, results } = answer.body.queries;
    expect(patients.columns).to.deep.equal(["patient_ref", "ward", "active"]);
    expect(patients.rows).to.deep.equal([
      [pseudonymOf("h1", "RS-3A"), "3A", true],
      [pseudonymOf("h1", "RS-5B"), "5B", true],
    ]);
    expect(results.rows).to.deep.equal([
      [pseudonymOf("h1", "RS-3A"), "3A", 65, "2026-05-19"],
      [pseudonymOf("h1", "RS-3A"), "3A", 66, "2026-05-20"],
    ]);
    const text = JSON.stringify(answer.body);
    for (const identifying of ["研究RS-3A", "HIS-RS-3A", makeIdCard("110105", BORN, 81), 'RS-3A"'])
      expect(text, identifying).not.to.include(identifying);
  });

  it("gives another tenant's patient of the same patientRef another pseudonym", async () => {
    const other = await ingestionTenant(hub.service, "h2");
    expect(pseudonymOf("h2", "P001")).not.to.equal(pseudonymOf("h1", "P001"));
    const saved = await other.call("PUT", "/api/reports/h2-research/draft", {
      token: other.authorToken,
      body: { datasource: "research", spec: tableReportSpec("h2", { p: "select patient_ref from patients" }) },
    });
    expect(saved.status).to.equal(200);
    const answer = await other.call("POST", "/api/reports/h2-research/data", {
      token: other.authorToken,
      body: { version: "draft" },
    });
    expect(answer.body.queries.p.rows).to.deep.equal([[pseudonymOf("h2", "P001")]]);
  });

  it("refuses a researcher every report of the clinical source (403), and lists them only the research ones", async () => {
    await researchReport("clinical-names", { names: "select patient_ref, name from patients" }, "clinical");
    const refused = await hub.tenant.call("POST", "/api/reports/clinical-names/data", { token: researcher, body: {} });
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.include("research data source");
    expect((await hub.tenant.call("GET", "/api/reports/clinical-names/view", { token: researcher })).status).to.equal(
      403,
    );
    const listed = await hub.tenant.call("GET", "/api/reports", { token: researcher });
    expect(listed.body.map((report: { datasource: string }) => report.datasource)).to.satisfy(
      (sources: string[]) => sources.length > 0 && sources.every((s) => s === "research"),
    );
    expect((await hub.tenant.call("GET", "/api/patients", { token: researcher })).status, "no patient list").to.equal(
      403,
    );
  });

  it("cannot reach the clinical views from research SQL: refused at save, and by the database", async () => {
    const saved = await hub.tenant.call("PUT", "/api/reports/reach-clinical/draft", {
      token: hub.tenant.authorToken,
      body: { datasource: "research", spec: tableReportSpec("x", { q: "select name from clinical.patients" }) },
    });
    expect(saved.status).to.equal(400);
    const sources = new DataSources({
      serviceDb: hub.service.db,
      clinicalUrl: reportRunnerUrl(hub.service.databaseUrl),
      researchUrl: reportRunnerUrl(hub.service.databaseUrl, undefined, RESEARCH_RUNNER_ROLE),
      others: {},
      poolSize: 1,
    });
    try {
      for (const sql of [
        "select name from clinical.patients",
        "select * from research_pseudonym_key",
        "select id_card from read.patients",
      ]) {
        const outcome = await runReportQuery(
          sources.get("research")!,
          { text: sql, values: [] },
          { tenant: "h1", wards: null, timeoutMs: 5000, timeZone: "UTC" },
        );
        expect(outcome, sql).to.have.property("error");
      }
    } finally {
      await sources.end();
    }
  });

  it("keeps a researcher with wards to their wards", async () => {
    const made = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Ward researcher", tenant: "h1", roles: ["researcher"], wards: ["5B"] },
    });
    const answer = await hub.tenant.call("POST", "/api/reports/research-results/data", {
      token: made.body.token,
      body: {},
    });
    expect(answer.body.queries.patients.rows).to.deep.equal([[pseudonymOf("h1", "RS-5B"), "5B", true]]);
  });
});

import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { auditSpec } from "../../commands/reports/spec/audit.ts";
import { specProblems } from "../../commands/reports/spec/specSchema.ts";
import { explainIdCard } from "../../commands/patients/nationalId.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import {
  daugirdasKtV,
  DEMO_TRY_PATIENT,
  demoMonths,
  generateDemoData,
  idCardCheckChar,
  makeIdCard,
} from "../../src/demo/demoData.ts";
import { demoReports } from "../../src/demo/demoReports.ts";
import { loadDemo, readDemoCredentials, saveDemoCredentials, type DemoLoaded } from "../../src/demo/loadDemo.ts";
import { httpClient } from "../support/http.ts";
import { TEST_ADMIN_TOKEN, useTestService } from "../support/service.ts";

describe("demo data (src/demo)", () => {
  describe("generator", () => {
    it("makes valid id numbers with the GB 11643 check digit", () => {
      expect(idCardCheckChar("11010519491231002")).to.equal("X");
      expect(idCardCheckChar("44052418800101001")).to.equal("4");
      expect(makeIdCard("110105", "19491231", 2)).to.equal("11010519491231002X");
      const { patients } = generateDemoData(new Date(2026, 2, 15));
      for (const patient of patients) expect(explainIdCard(patient.idCard), patient.idCard).to.include({ valid: true });
      expect(new Set(patients.map((p) => p.idCard)).size).to.equal(patients.length);
      for (const patient of patients) {
        const year = Number(patient.idCard.slice(6, 10));
        expect(year).to.be.within(1940, 1995);
      }
    });

    it("is deterministic and dates every report before now, over 14 months ending with the current one", () => {
      const now = new Date(2026, 2, 15, 9, 0, 0);
      const a = generateDemoData(now);
      expect(JSON.stringify(generateDemoData(now))).to.equal(JSON.stringify(a));
      expect(a.patients.length).to.be.at.least(200);
      expect(new Set(a.patients.map((p) => p.ward))).to.deep.equal(new Set(["A", "B", "C"]));
      expect(a.patients.filter((p) => !p.active)).to.have.length.within(1, 10);
      expect(a.months.map((m) => m.key)).to.deep.equal([
        "202502",
        "202503",
        "202504",
        "202505",
        "202506",
        "202507",
        "202508",
        "202509",
        "202510",
        "202511",
        "202512",
        "202601",
        "202602",
        "202603",
      ]);
      expect(a.period).to.deep.equal(["2025-02-01", "2026-03-31"]);
      for (const report of a.labReports) {
        expect(report.reportedAt).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        expect(report.reportedAt < "2026-03-15 00:00:00", report.externalId).to.equal(true);
        expect(report.collectedAt < report.reportedAt).to.equal(true);
      }
      expect(a.unmatchedReports / a.labReports.length).to.be.within(0.02, 0.04);
      expect(a.labReports.filter((r) => r.externalId.startsWith("DEMO-U-"))).to.have.length(a.unmatchedReports);
      // On the first day of a month, the last demo month is the previous one (nothing can be dated today or later).
      expect(demoMonths(new Date(2026, 3, 1, 8)).at(-1)).to.include({ key: "202603", lastUsableDay: 31 });
    });

    it("computes spKt/V by Daugirdas' second-generation formula", () => {
      // R = 0.3, t = 4 h, UF = 2.5 L, W = 65 kg
      expect(daugirdasKtV(0.3, 4, 2.5, 65)).to.be.closeTo(-Math.log(0.268) + 2.95 * (2.5 / 65), 1e-12);
      const { labReports } = generateDemoData(new Date(2026, 2, 15));
      const value = (report: (typeof labReports)[number], codes: string[]) =>
        report.items.find((i) => codes.includes(i.itemCode ?? "") || codes.includes(i.itemName ?? ""))?.value;
      const dialysisPanels = labReports.filter(
        (report) => value(report, ["UREA_PRE", "LIS0201", "BUN pre"]) !== undefined,
      );
      for (const report of dialysisPanels) {
        const pre = value(report, ["UREA_PRE", "LIS0201", "BUN pre"])!;
        const post = value(report, ["UREA_POST", "LIS0202", "BUN post"])!;
        const urr = value(report, ["URR", "LIS0902"]);
        if (urr !== undefined) expect(urr, report.externalId).to.be.closeTo(((pre - post) / pre) * 100, 0.051);
      }
      // Contract F.2: the English-speaking analyser sends the two ureas and no URR, which the service derives.
      const withoutUrr = dialysisPanels.filter((report) => value(report, ["URR", "LIS0902"]) === undefined);
      expect(withoutUrr.length / dialysisPanels.length).to.be.within(0.08, 0.25);
    });

    it("gives two valid report specs with audit grade A or B", async () => {
      for (const report of demoReports(["2025-04-01", "2026-03-31"])) {
        expect(specProblems(report.spec), report.id).to.deep.equal([]);
        const audit = await auditSpec(report.spec as never);
        expect(["A", "B"], `${report.id}: ${JSON.stringify(audit.findings)}`).to.include(audit.grade);
      }
    });

    it("keeps the demo credentials in a file only its owner can read", () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "dh-demo-"));
      try {
        const credentials = {
          tenant: "demo",
          clientId: "c1",
          clientKey: "dhk_x",
          authorToken: "dha_y",
          reports: ["dialysis-adequacy"],
          createdAt: "2026-03-15T08:00:00.000Z",
        };
        const file = saveDemoCredentials(dir, credentials);
        expect(statSync(file).mode & 0o777).to.equal(0o600);
        expect(readDemoCredentials(dir)).to.deep.equal(credentials);
        expect(readDemoCredentials(path.join(dir, "nothing"))).to.equal(null);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it("prints in the getting-started article the id card and name of the demo patient to try a push for", () => {
    const article = readFileSync(new URL("../../docs/getting-started.md", import.meta.url), "utf8");
    const patient = generateDemoData(new Date()).patients.find((p) => p.patientRef === DEMO_TRY_PATIENT)!;
    expect(article)
      .to.include(`\`${DEMO_TRY_PATIENT}\` (${patient.name}, ward ${patient.ward})`)
      .and.to.include(`is \`${patient.idCard}\``);
    expect(article.match(new RegExp(`"idCard\\\\": \\\\"${patient.idCard}`, "g")), "the push example").to.have.length(
      1,
    );
  });

  describe("loadDemo against the real service", () => {
    const hub = useTestService({ projections: allProjections });
    let loaded: DemoLoaded;
    const call = (...args: Parameters<ReturnType<typeof httpClient>>) => httpClient(hub.service.url!)(...args);

    before(async function () {
      this.timeout(120_000);
      const result = await loadDemo(hub.service.url!, TEST_ADMIN_TOKEN);
      expect(result).to.not.equal(null);
      loaded = result!;
    });

    it("leaves three critical values of the last hours on Critical results, one per ward", async () => {
      // Each is also far from the patient's previous result (F.3): one alert for the result, with both reasons.
      const alerts = await call("GET", "/api/alerts?kind=CRITICAL", { token: loaded.authorToken, tenant: "demo" });
      expect(alerts.status).to.equal(200);
      expect(alerts.body.map((alert: { externalId: string }) => alert.externalId).sort()).to.deep.equal([
        "DEMO-CRIT-HD0001",
        "DEMO-CRIT-HD0004",
        "DEMO-CRIT-HD0007",
      ]);
      expect(alerts.body.map((alert: { reasons: string[] }) => alert.reasons)).to.deep.equal([
        ["critical", "delta"],
        ["critical", "delta"],
        ["critical", "delta"],
      ]);
      const deltas = await call("GET", "/api/alerts?kind=DELTA", { token: loaded.authorToken, tenant: "demo" });
      expect(
        deltas.body.filter((alert: { externalId: string }) => alert.externalId.startsWith("DEMO-CRIT-")),
        "no second alert for a critical result",
      ).to.deep.equal([]);
      expect(loaded.criticalResults).to.equal(3);
    });

    it("registers at least 200 patients through the API", async () => {
      // A page of at most 1,000 (lists answer 100 unless asked, contract E.6).
      const patients = await call("GET", "/api/patients?limit=1000", { token: loaded.authorToken, tenant: "demo" });
      expect(patients.status).to.equal(200);
      expect(patients.body.length).to.be.at.least(200);
      expect(patients.body[0].idCard).to.match(/^\d{6}\*{8}[\dX]{4}$/);
    });

    it("pushed lab reports across at least 12 distinct months, some of them waiting in the unmatched queue", async () => {
      const { rows } = await hub.service.db.query(
        "select count(distinct date_trunc('month', reported_at))::int as months, count(*)::int as reports, " +
          "count(*) filter (where not matched)::int as unmatched from read.lab_reports where tenant = 'demo'",
      );
      expect(rows[0].months).to.be.at.least(12);
      expect(rows[0].reports).to.equal(
        loaded.labReports + loaded.criticalResults + loaded.claimableReports + loaded.unmappedReports,
      );
      expect(rows[0].unmatched).to.equal(loaded.unmatchedReports);
      const unmatched = await call("GET", "/api/unmatched", { token: loaded.authorToken, tenant: "demo" });
      expect(unmatched.body.length).to.equal(loaded.unmatchedReports);
      const reasons = new Set(unmatched.body.map((entry: { pendingReason: string }) => entry.pendingReason));
      expect(reasons).to.include("no dialysis patient with this idCard");
      // Issue #54: a few of them are registered patients' (no id card, or a mistyped one), to try a claim on.
      expect(loaded.claimableReports).to.equal(2);
      const claimable = unmatched.body.filter((entry: { externalId: string }) =>
        entry.externalId.startsWith("DEMO-Q-"),
      );
      expect(claimable.map((entry: { pendingReason: string }) => entry.pendingReason).sort()).to.deep.equal([
        "idCard is missing",
        "idCard is not a valid national identity number",
      ]);
      for (const entry of claimable) {
        const patientRef = entry.externalId.slice("DEMO-Q-".length);
        const check = await call("GET", `/api/unmatched/lab/${entry.externalId}/check?patientRef=${patientRef}`, {
          token: loaded.authorToken,
          tenant: "demo",
        });
        expect(check.body.checks, entry.externalId).to.deep.include({ name: "same", hisPatientId: "same" });
      }
      // Every item of every report mapped to the dictionary (standard codes, aliases, English names)
      // but the emergency laboratory's own codes, there to try the Item mappings page on (issue #54).
      const { rows: items } = await hub.service.db.query(
        "select count(*) filter (where std_code is null)::int as unmapped, count(*) filter (where std_code = " +
          "'HGB' and unit = 'g/dL')::int as gdl from read.lab_results where tenant = 'demo'",
      );
      expect(items[0].unmapped).to.equal(2 * loaded.unmappedReports);
      const listed = await call("GET", "/api/dictionary/unmapped", { token: loaded.authorToken, tenant: "demo" });
      expect(
        listed.body.map((item: { itemCode: string; unit: string; results: number }) => [
          item.itemCode,
          item.unit,
          item.results,
        ]),
      ).to.deep.equal([
        ["EM-BUN", "mg/dL", 3],
        ["EM-NTP", "pg/mL", 3],
      ]);
      expect(items[0].gdl).to.be.greaterThan(0);
      // Contract F.2: URR derived from the two ureas where the analyser sent none (the patient of such a report's chart).
      const { rows: withoutUrr } = await hub.service.db.query(
        `select patient_ref, external_id from read.lab_results where tenant = 'demo' and std_code = 'UREA_POST' and patient_ref is not null
           and not exists (select 1 from read.lab_results u where u.tenant = 'demo' and u.external_id = lab_results.external_id and u.std_code = 'URR')
         limit 1`,
      );
      const { patient_ref: patientRef, external_id: externalId } = withoutUrr[0];
      const urr = await call(
        "GET",
        `/api/patients/${patientRef}/results?codes=URR,CA_CORR&from=${new Date().getFullYear() - 2}-01-01`,
        { token: loaded.authorToken, tenant: "demo" },
      );
      const [urrSeries, caCorrSeries] = urr.body.series as Array<{
        points: Array<{ derived?: boolean; formula?: { inputs: string[] } }>;
      }>;
      expect(urrSeries!.points.some((point) => point.derived && point.formula!.inputs.includes(externalId))).to.equal(
        true,
      );
      expect(caCorrSeries!.points.length).to.be.greaterThan(0);
    });

    it("reconciles a demo day over the open API", async () => {
      const { rows } = await hub.service.db.query(
        "select to_char(reported_at, 'YYYY-MM-DD') as day, count(*)::int as n from read.lab_reports where tenant = 'demo' group by 1 order by 2 desc limit 1",
      );
      const answer = await call("GET", `/open/v1/reconcile/lab?date=${rows[0].day}`, {
        token: loaded.clientKey,
        tenant: "demo",
      });
      expect(answer.status).to.equal(200);
      expect(answer.body.data.labReportCount).to.equal(rows[0].n);
    });

    it("published both reports as v1", async () => {
      const list = await call("GET", "/api/reports", { tenant: "demo" });
      expect(list.body.map((r: { id: string }) => r.id).sort()).to.deep.equal(["anemia-mineral", "dialysis-adequacy"]);
      for (const report of list.body) expect(report).to.include({ publishedVersion: "v1", hasDraft: false });
      for (const id of ["anemia-mineral", "dialysis-adequacy"]) {
        const audit = await call("GET", `/api/reports/${id}/versions/v1/audit`, { tenant: "demo" });
        expect(["A", "B"]).to.include(audit.body.grade);
      }
    });

    it("answers rows for every query of both reports, with a plausible monthly Kt/V", async () => {
      for (const id of ["anemia-mineral", "dialysis-adequacy"]) {
        const data = await call("POST", `/api/reports/${id}/data`, { tenant: "demo", body: {} });
        expect(data.status).to.equal(200);
        for (const [name, result] of Object.entries(
          data.body.queries as Record<string, { error?: string; rows?: unknown[][] }>,
        )) {
          expect(result.error, `${id}.${name}`).to.equal(undefined);
          expect(result.rows!.length, `${id}.${name}`).to.be.greaterThan(0);
        }
      }
      const adequacy = (await call("POST", "/api/reports/dialysis-adequacy/data", { tenant: "demo", body: {} })).body
        .queries;
      const monthly = adequacy.monthly;
      expect(monthly.rows.length).to.be.at.least(12);
      const ktv = monthly.columns.indexOf("ktv");
      for (const row of monthly.rows) expect(row[ktv]).to.be.within(1.1, 1.8);
      expect(adequacy.wardList.rows.map((r: string[]) => r[0])).to.deep.equal(["A", "B", "C"]);
      const wardB = (
        await call("POST", "/api/reports/dialysis-adequacy/data", {
          tenant: "demo",
          body: { params: { wards: ["B"] } },
        })
      ).body.queries.byWard;
      expect(wardB.rows.map((r: string[]) => r[0])).to.deep.equal(["B"]);
    });

    it("drills through to the patients of a month", async () => {
      const month = (await call("POST", "/api/reports/dialysis-adequacy/data", { tenant: "demo", body: {} })).body
        .queries.monthly.rows[3][0];
      const drill = await call("POST", "/api/reports/dialysis-adequacy/drill", {
        tenant: "demo",
        body: { drill: "byMonth", args: { month } },
      });
      expect(drill.status).to.equal(200);
      const patients = drill.body.queries.patients;
      expect(patients.rows.length).to.be.at.least(200);
      const ktv = patients.columns.indexOf("ktv");
      const values = patients.rows.map((r: number[]) => r[ktv]);
      expect(values).to.deep.equal([...values].sort((a, b) => a - b));
      const anemia = await call("POST", "/api/reports/anemia-mineral/drill", {
        tenant: "demo",
        body: { drill: "outOfTarget", args: { month } },
      });
      expect(anemia.status).to.equal(200);
      expect(anemia.body.queries.patients.rows.length).to.be.greaterThan(10);
    });

    it("loads nothing a second time", async () => {
      // How long the load took is a figure, not a test (a busy machine is slower): printed here.
      console.log(
        `      demo load: ${loaded.patients} patients, ${loaded.labReports} lab reports in ${(loaded.elapsedMs / 1000).toFixed(1)} s`,
      );
      // Access records of the calls before (the reports' data and drills) are written off their
      // answers' path and may land meanwhile: they are the access log's, not the demo's.
      const demoEvents = async () =>
        (await hub.service.db.query("select count(*)::int as n from events where type <> 'PatientRecordsShown'"))
          .rows[0].n;
      const before = await demoEvents();
      expect(await loadDemo(hub.service.url!, TEST_ADMIN_TOKEN)).to.equal(null);
      expect(await demoEvents()).to.equal(before);
    });
  });
});

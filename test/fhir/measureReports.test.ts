import { expect } from "chai";
import { Fhir } from "fhir";
import { Client } from "fhir-kit-client";
import type { Bundle, CapabilityStatement, MeasureReport } from "fhir/r4.js";
import { MEASURE_POPULATION_SYSTEM, WARD_SYSTEM } from "../../src/ingestion/fhir/measureReports.ts";
import { ADMIN } from "../support/http.ts";
import { useIngestionService } from "../support/ingestion.ts";
import { CLOSED_MONTH, monthFromApi, OPEN_MONTH, twoMonthsOfFigures, type Figures } from "../support/qualityMonths.ts";

/*
 * GET /fhir/r4/MeasureReport?period=yyyy-MM (contract G.2), searched with fhir-kit-client: one
 * summary MeasureReport per indicator with the figures GET /api/quality/months answers (a closed
 * month's frozen ones), every resource validated against FHIR R4 by the `fhir` package's validator.
 */

const PUBLIC_URL = "https://dialysis.hospital.example";
const validator = new Fhir();
function valid<T>(resource: unknown): T {
  const { messages } = validator.validate(resource as object);
  expect(
    messages.filter((message) => message.severity === "error"),
    JSON.stringify(resource).slice(0, 2000),
  ).to.deep.equal([]);
  return resource as T;
}

/** A report's figures as the API writes them: the indicator of its measure, its populations, its score. */
function figuresOf(report: MeasureReport): Figures {
  const [code, version] = report.measure.slice(`${PUBLIC_URL}/fhir/r4/Measure/`.length).split("|") as [string, string];
  const count = (population: string) =>
    report.group![0]!.population!.find((entry) => entry.code!.coding![0]!.code === population)!.count!;
  return {
    code,
    version: Number(version),
    numerator: count("numerator"),
    denominator: count("denominator"),
    rate: report.group![0]!.measureScore?.value ?? null,
  };
}

describe("FHIR R4 MeasureReport: a month's quality figures", function () {
  this.timeout(90_000);
  const hub = useIngestionService({ env: { PUBLIC_URL } });
  const clientWith = (token: string) =>
    new Client({
      baseUrl: `${hub.service.url}/fhir/r4`,
      customHeaders: { Authorization: `Bearer ${token}`, "X-Service-Tenant": "h1" },
    });
  const search = async (token: string, period: string) =>
    valid<Bundle>(await clientWith(token).search({ resourceType: "MeasureReport", searchParams: { period } }));
  const reportsOf = (bundle: Bundle) => bundle.entry!.map((entry) => valid<MeasureReport>(entry.resource));
  const author = async (roles: string[], wards?: string[]) => {
    const made = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: `Dr ${roles.join("+")} ${wards?.join("+") ?? "all"}`, tenant: "h1", roles, wards },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  };

  before(() => twoMonthsOfFigures(hub.tenant, hub.service.url!));

  it("answers one summary MeasureReport per indicator, with the figures GET /api/quality/months counts now", async () => {
    const bundle = await search(hub.tenant.authorToken, OPEN_MONTH);
    expect(bundle.type).to.equal("searchset");
    const reports = reportsOf(bundle);
    const api = await monthFromApi(hub.tenant, OPEN_MONTH, null);
    expect(api.state).to.equal("open");
    expect(bundle.total).to.equal(api.figures.length);
    expect(reports.map(figuresOf)).to.deep.equal(api.figures);
    const [year, month] = OPEN_MONTH.split("-").map(Number) as [number, number];
    const lastDay = new Date(year, month, 0).getDate();
    for (const report of reports) {
      expect(report).to.deep.include({ status: "complete", type: "summary" });
      expect(report.measure).to.match(new RegExp(`^${PUBLIC_URL}/fhir/r4/Measure/[A-Z0-9_]+\\|\\d+$`));
      expect(report.period!.start).to.match(new RegExp(`^${OPEN_MONTH}-01T00:00:00[+-]\\d{2}:\\d{2}$`));
      expect(report.period!.end).to.match(new RegExp(`^${OPEN_MONTH}-${lastDay}T23:59:59[+-]\\d{2}:\\d{2}$`));
      expect(report.group![0]!.population!.map((population) => population.code!.coding)).to.deep.equal([
        [{ system: MEASURE_POPULATION_SYSTEM, code: "numerator", display: "Numerator" }],
        [{ system: MEASURE_POPULATION_SYSTEM, code: "denominator", display: "Denominator" }],
      ]);
      expect(report, "the whole tenant's: no ward as subject").not.to.have.property("subject");
    }
    const hgb = reports.find((report) => report.measure.endsWith("/HGB_TARGET|1"))!;
    expect(hgb.group![0]!.measureScore).to.deep.equal({ value: 0.5 });
    const critical = reports.find((report) => report.measure.endsWith("/CRITICAL_ACK_30MIN|1"))!;
    expect(critical.group![0], "no score of a denominator of 0").not.to.have.property("measureScore");
  });

  it("answers a closed month with its frozen figures, and a caller of ward A with ward A's alone", async () => {
    const wardA = await author(["clinician"], ["A"]);
    const reports = reportsOf(await search(wardA, CLOSED_MONTH));
    const closed = await monthFromApi(hub.tenant, CLOSED_MONTH, "A", wardA);
    expect(closed.state).to.equal("closed");
    expect(reports.map(figuresOf)).to.deep.equal(closed.figures);
    // Frozen before 王五's late haemoglobin: 张三 alone, where the open tenant month counts both.
    expect(figuresOf(reports.find((report) => report.measure.endsWith("/HGB_TESTED|1"))!)).to.deep.include({
      numerator: 1,
      denominator: 1,
    });
    const closedAt = (await hub.tenant.call("GET", `/api/quality/months/${CLOSED_MONTH}?ward=A`, { token: wardA })).body
      .closedAt as string;
    for (const report of reports) {
      expect(report.subject).to.deep.equal({
        type: "Location",
        identifier: { system: WARD_SYSTEM, value: "A" },
        display: "A",
      });
      expect(report.date!.slice(0, 19)).to.equal(closedAt);
    }
    const tenant = reportsOf(await search(hub.tenant.authorToken, CLOSED_MONTH)).map(figuresOf);
    expect(tenant).to.deep.equal((await monthFromApi(hub.tenant, CLOSED_MONTH, null)).figures);
    expect(tenant.find((figures) => figures.code === "HGB_TESTED")).to.deep.include({ numerator: 4, denominator: 4 });
  });

  it("answers a missing or malformed period, or another parameter, 400 with an OperationOutcome saying how to ask", async () => {
    for (const query of [
      "",
      "period=2026-13",
      "period=2026-1",
      "period=eq2026-10",
      "period=9999-01",
      "period=1899-12",
      `period=${OPEN_MONTH}&period=${CLOSED_MONTH}`,
    ]) {
      const answer = await fetch(`${hub.service.url}/fhir/r4/MeasureReport?${query}`, {
        headers: { authorization: `Bearer ${hub.tenant.authorToken}`, "x-service-tenant": "h1" },
      });
      expect(answer.status, query).to.equal(400);
      expect(answer.headers.get("content-type")).to.match(/^application\/fhir\+json/);
      const outcome = valid<{ resourceType: string; issue: Array<{ code: string; diagnostics: string }> }>(
        await answer.json(),
      );
      expect(outcome.resourceType).to.equal("OperationOutcome");
      expect(outcome.issue[0]!.code, query).to.equal("invalid");
      expect(outcome.issue[0]!.diagnostics, query).to.match(/^Send period=yyyy-MM once: a month .* from 1900-01/);
    }
    const other = await fetch(`${hub.service.url}/fhir/r4/MeasureReport?period=${OPEN_MONTH}&measure=x`, {
      headers: { authorization: `Bearer ${hub.tenant.authorToken}`, "x-service-tenant": "h1" },
    });
    expect(other.status).to.equal(400);
    expect(valid<{ issue: Array<{ diagnostics: string }> }>(await other.json()).issue[0]!.diagnostics).to.match(
      /Unknown search parameter measure: MeasureReport is searched by period=yyyy-MM alone/,
    );
  });

  it("is read as the Observations are: a clinician's token or above, not a viewer's, not without one", async () => {
    const url = `${hub.service.url}/fhir/r4/MeasureReport?period=${OPEN_MONTH}`;
    const without = await fetch(url, { headers: { "x-service-tenant": "h1" } });
    expect(without.status).to.equal(401);
    valid(await without.json());
    const viewer = await fetch(url, {
      headers: { authorization: `Bearer ${await author(["viewer"])}`, "x-service-tenant": "h1" },
    });
    expect(viewer.status).to.equal(403);
    valid(await viewer.json());
    const otherTenant = await fetch(url, {
      headers: { authorization: `Bearer ${hub.tenant.authorToken}`, "x-service-tenant": "h2" },
    });
    expect(otherTenant.status).to.equal(403);
  });

  it("lists the MeasureReport search in the CapabilityStatement", async () => {
    const statement = valid<CapabilityStatement>(
      await new Client({ baseUrl: `${hub.service.url}/fhir/r4` }).capabilityStatement(),
    );
    const measureReport = statement.rest![0]!.resource!.find((resource) => resource.type === "MeasureReport")!;
    expect(measureReport.interaction).to.deep.equal([{ code: "search-type" }]);
    expect(measureReport.searchParam!.map((param) => [param.name, param.type])).to.deep.equal([["period", "date"]]);
  });
});

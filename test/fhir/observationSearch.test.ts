import { expect } from "chai";
import { Fhir } from "fhir";
import { Client } from "fhir-kit-client";
import type { Bundle, DiagnosticReport, Observation } from "fhir/r4.js";
import { NATIONAL_ID_SYSTEM } from "../../src/ingestion/fhir/bundleToLabReports.ts";
import { fhirId, textOfFhirId } from "../../src/ingestion/fhir/fhirIds.ts";
import { SENT_VALUE_EXTENSION } from "../../src/ingestion/fhir/fhirResources.ts";
import { diagnosticReportBundle } from "../support/fhirBundles.ts";
import { ZHANG_SAN_ID } from "../support/hl7Messages.ts";
import { useIngestionService } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * GET /fhir/r4/Observation (contract D.6) searched with fhir-kit-client, a FHIR client this project
 * did not write, following the next links it is given; every Observation and Bundle answered is
 * validated against FHIR R4 by the `fhir` package's validator.
 */

const validator = new Fhir();
function valid<T>(resource: unknown): T {
  const { messages } = validator.validate(resource as object);
  expect(
    messages.filter((message) => message.severity === "error"),
    JSON.stringify(resource).slice(0, 2000),
  ).to.deep.equal([]);
  return resource as T;
}

/**
 * Twelve monthly reports of 2025 for P001, each with its haemoglobin; June's sent in g/dL, July's
 * potassium coded in UCUM as mol/L under a Chinese display.
 */
function monthlyBundle(): Bundle {
  const entries = Array.from({ length: 12 }, (_, m) => {
    const month = String(m + 1).padStart(2, "0");
    const bundle = diagnosticReportBundle({
      externalId: `SEARCH-2025-${month}`,
      issued: `2025-${month}-15T10:00:00+08:00`,
    });
    const json = JSON.stringify(bundle.entry)
      .replace(/0000-4000-8000-0000/g, `0000-4000-8000-00${month}`)
      .replace(/2026-03-01T07:30:00/g, `2025-${month}-15T07:30:00`);
    const entry = JSON.parse(json) as NonNullable<Bundle["entry"]>;
    if (m === 5) {
      const hgb = entry[2]!.resource as Observation;
      hgb.valueQuantity = { value: 11.5, unit: "g/dL" };
      hgb.referenceRange = [{ low: { value: 11.5 }, high: { value: 15 } }];
    }
    if (m === 6)
      (entry[3]!.resource as Observation).valueQuantity = {
        value: 0.0046,
        unit: "摩尔/升",
        system: "http://unitsofmeasure.org",
        code: "mol/L",
      };
    return entry;
  });
  return { resourceType: "Bundle", type: "batch", entry: entries.flat() };
}

describe("FHIR R4 read: a patient's Observations searched, the patient found, a report read", function () {
  this.timeout(60_000);
  const hub = useIngestionService();
  let fhir: Client;

  before(async () => {
    const poster = new Client({
      baseUrl: `${hub.service.url}/fhir/r4`,
      customHeaders: { Authorization: `Bearer ${hub.tenant.client.key}` },
    });
    const posted = (await poster.batch({
      body: monthlyBundle() as unknown as Parameters<Client["batch"]>[0]["body"],
    })) as unknown as Bundle;
    expect(posted.entry!.filter((entry) => entry.response!.status !== "201 Created")).to.deep.equal([]);
    await projectionsCaughtUp(hub.service.url!);
    fhir = new Client({
      baseUrl: `${hub.service.url}/fhir/r4`,
      customHeaders: { Authorization: `Bearer ${hub.tenant.authorToken}`, "X-Service-Tenant": "h1" },
    });
  });

  it("pages a patient's results of a LOINC code newest first, following next links to the end", async () => {
    const seen: Observation[] = [];
    let page = valid<Bundle>(
      await fhir.search({
        resourceType: "Observation",
        searchParams: { patient: "P001", code: "http://loinc.org|718-7", _count: 5 },
      }),
    );
    for (;;) {
      expect(page.type).to.equal("searchset");
      seen.push(...(page.entry ?? []).map((entry) => valid<Observation>(entry.resource)));
      const next = fhir.nextPage({ bundle: page as unknown as Parameters<Client["nextPage"]>[0]["bundle"] });
      if (!next) break;
      page = valid<Bundle>(await next);
    }
    expect(seen.map((observation) => observation.effectiveDateTime!.slice(0, 7))).to.deep.equal(
      Array.from({ length: 12 }, (_, m) => `2025-${String(12 - m).padStart(2, "0")}`),
    );
    expect(
      seen.every(
        (observation) =>
          observation.subject!.reference === "Patient/P001" && observation.code.coding![0]!.code === "718-7",
      ),
    ).to.equal(true);
    expect(new Set(seen.map((observation) => observation.id)).size, "no result twice across pages").to.equal(12);
  });

  it("serves the value in the standard unit, the value as sent kept in an extension", async () => {
    const june = valid<Bundle>(
      await fhir.search({
        resourceType: "Observation",
        searchParams: { patient: "P001", code: "HGB", date: ["ge2025-06-01", "le2025-06-30"] },
      }),
    );
    expect(june.entry).to.have.length(1);
    const hgb = june.entry![0]!.resource as Observation;
    expect(hgb.valueQuantity).to.deep.equal({
      value: 115,
      unit: "g/L",
      system: "http://unitsofmeasure.org",
      code: "g/L",
    });
    expect(hgb.extension).to.deep.equal([
      {
        url: SENT_VALUE_EXTENSION,
        valueQuantity: { value: 11.5, unit: "g/dL", system: "http://unitsofmeasure.org", code: "g/dL" },
      },
    ]);
    expect(hgb.interpretation![0]!.coding![0]!.code).to.equal("L");
  });

  it("reads a sent UCUM code rather than its display, and converts by UCUM where the dictionary has no factor", async () => {
    const july = valid<Bundle>(
      await fhir.search({
        resourceType: "Observation",
        searchParams: { patient: "P001", code: "K", date: "eq2025-07-15" },
      }),
    );
    const potassium = july.entry![0]!.resource as Observation;
    expect(potassium.valueQuantity).to.deep.equal({
      value: 4.6,
      unit: "mmol/L",
      system: "http://unitsofmeasure.org",
      code: "mmol/L",
    });
    expect(potassium.extension).to.deep.equal([
      {
        url: SENT_VALUE_EXTENSION,
        valueQuantity: { value: 0.0046, unit: "mol/L", system: "http://unitsofmeasure.org", code: "mol/L" },
      },
    ]);
  });

  it("keeps to the date range, and to the tenant of the token", async () => {
    const spring = valid<Bundle>(
      await fhir.search({
        resourceType: "Observation",
        searchParams: { patient: "P001", code: "HGB,K", date: ["ge2025-03-01", "le2025-05-31"] },
      }),
    );
    expect(
      spring.entry!.map((entry) => (entry.resource as Observation).effectiveDateTime!.slice(0, 7)).sort(),
    ).to.deep.equal(["2025-03", "2025-03", "2025-04", "2025-04", "2025-05", "2025-05"]);
    const otherTenant = await fetch(`${hub.service.url}/fhir/r4/Observation?patient=P001`, {
      headers: { authorization: `Bearer ${hub.tenant.authorToken}`, "x-service-tenant": "h2" },
    });
    expect(otherTenant.status).to.equal(403);
    expect(((await otherTenant.json()) as { resourceType: string }).resourceType).to.equal("OperationOutcome");
  });

  it("answers a search it cannot run with an OperationOutcome saying how to fix it", async () => {
    for (const [query, says] of [
      ["code=HGB", /Send patient=/],
      ["patient=P001&date=2025-13-01", /date=2025-13-01: send a day/],
      ["patient=P001&_count=0", /_count must be a whole number from 1 to 500/],
      ["patient=P001&code=http://snomed.info/sct|123", /search by LOINC/],
      ["patient=P001&_cursor=nonsense", /follow the next link/],
      ["patient=P001&name=x", /Unknown search parameter name/],
    ] as const) {
      const answer = await fetch(`${hub.service.url}/fhir/r4/Observation?${query}`, {
        headers: { authorization: `Bearer ${hub.tenant.authorToken}`, "x-service-tenant": "h1" },
      });
      expect(answer.status, query).to.equal(400);
      expect(
        valid<{ issue: Array<{ diagnostics: string }> }>(await answer.json()).issue[0]!.diagnostics,
        query,
      ).to.match(says);
    }
  });

  it("finds the patient by national id, and reads a report whole with its results contained", async () => {
    const found = valid<Bundle>(
      await fhir.search({
        resourceType: "Patient",
        searchParams: { identifier: `${NATIONAL_ID_SYSTEM}|${ZHANG_SAN_ID}` },
      }),
    );
    expect(found.entry!.map((entry) => entry.resource!.id)).to.deep.equal(["P001"]);
    const report = valid<DiagnosticReport>(
      await fhir.read({ resourceType: "DiagnosticReport", id: fhirId("SEARCH-2025-06") }),
    );
    expect(report.identifier![0]!.value).to.equal("SEARCH-2025-06");
    expect(report.subject!.reference).to.equal("Patient/P001");
    expect(report.issued!.slice(0, 19)).to.equal("2025-06-15T10:00:00");
    expect(report.result!.map((result) => result.reference)).to.deep.equal(["#r0", "#r1", "#r2", "#r3"]);
    expect((report.contained![0] as Observation).valueQuantity).to.deep.include({ value: 115, unit: "g/L" });
    const missing = await fetch(`${hub.service.url}/fhir/r4/DiagnosticReport/NO-SUCH`, {
      headers: { authorization: `Bearer ${hub.tenant.authorToken}`, "x-service-tenant": "h1" },
    });
    expect(missing.status).to.equal(404);
    valid(await missing.json());
  });

  it("writes ids that read back to the text they were made of", () => {
    for (const text of ["P001", "L20260301-0001", "a_b.c", "报告/7", "x y"]) {
      const id = fhirId(text);
      expect(id, text).to.match(/^[A-Za-z0-9\-.]{1,64}$/);
      expect(textOfFhirId(id)).to.equal(text);
    }
  });
});

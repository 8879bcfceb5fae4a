import { expect } from "chai";
import type { Bundle, DiagnosticReport, Observation } from "fhir/r4.js";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { bundleToLabReports, fhirLocalDateTime } from "../../src/ingestion/fhir/bundleToLabReports.ts";
import { diagnosticReportAsJson, diagnosticReportBundle } from "../support/fhirBundles.ts";

const dictionary = loadDefaultDictionary();
const loincCodes = new Map(dictionary.items.flatMap((item) => (item.loinc ? [[item.loinc, item.code] as const] : [])));
const reports = (bundle: Bundle) => bundleToLabReports(bundle, loincCodes);

describe("a FHIR R4 Bundle's DiagnosticReports as lab reports (contract D.6)", () => {
  it("maps a DiagnosticReport with its Patient and Observations field by field, LOINC codes onto dictionary items", () => {
    const [mapped, ...others] = reports(diagnosticReportBundle());
    expect(others).to.have.length(0);
    expect(mapped!.entryIndex).to.equal(1);
    expect(mapped!.report).to.deep.equal(diagnosticReportAsJson());
  });

  it("reads preliminary, corrected and amended reports as the push's statuses", () => {
    for (const [status, ours] of [
      ["preliminary", "PRELIMINARY"],
      ["corrected", "CORRECTED"],
      ["amended", "CORRECTED"],
      ["cancelled", "CANCELLED"],
    ]) {
      expect(reports(diagnosticReportBundle({ status }))[0]!.report.status, status).to.equal(ours);
    }
  });

  it("finds resources by Type/id as well as by fullUrl, and names the FHIRPath of each field", () => {
    const bundle = diagnosticReportBundle();
    const observationEntry = bundle.entry![3]!;
    observationEntry.resource!.id = "k-1";
    (bundle.entry![1]!.resource as DiagnosticReport).result![1] = { reference: "Observation/k-1" };
    const [mapped] = reports(bundle);
    expect((mapped!.report.items as Array<{ itemCode: string }>)[1]!.itemCode).to.equal("K");
    expect(mapped!.expressionOf("reportedAt")).to.equal("Bundle.entry[1].resource.issued");
    expect(mapped!.expressionOf("patient.idCard")).to.equal("Bundle.entry[0].resource.identifier[1].value");
    expect(mapped!.expressionOf("items[1].value")).to.equal("Bundle.entry[3].resource.valueQuantity.value");
    expect(mapped!.expressionOf("items[2].value")).to.equal("Bundle.entry[4].resource.valueCodeableConcept");
    expect(mapped!.expressionOf("items[0].refLow")).to.equal("Bundle.entry[2].resource.referenceRange[0].low.value");
  });

  it("leaves a result it cannot find empty, for the push to reject at its reference", () => {
    const bundle = diagnosticReportBundle();
    (bundle.entry![1]!.resource as DiagnosticReport).result!.push({ reference: "urn:uuid:missing" });
    const [mapped] = reports(bundle);
    expect((mapped!.report.items as unknown[])[4]).to.deep.equal({});
    expect(mapped!.expressionOf("items[4].itemCode")).to.equal("Bundle.entry[1].resource.result[4]");
  });

  it("keeps a result's own code when its LOINC code is not in the dictionary", () => {
    const bundle = diagnosticReportBundle();
    (bundle.entry![2]!.resource as Observation).code = {
      coding: [
        { system: "http://loinc.org", code: "99999-9" },
        { system: "http://lis.example.cn/items", code: "XHGB", display: "血红蛋白" },
      ],
    };
    expect((reports(bundle)[0]!.report.items as Array<{ itemCode: string }>)[0]!.itemCode).to.equal("XHGB");
  });

  it("reads FHIR dateTimes and instants as local time, zone dropped", () => {
    expect(fhirLocalDateTime("2026-03-01T10:15:45+08:00")).to.equal("2026-03-01 10:15:45");
    expect(fhirLocalDateTime("2026-03-01T10:15:45.123Z")).to.equal("2026-03-01 10:15:45");
    expect(fhirLocalDateTime("2026-03-01")).to.equal("2026-03-01 00:00:00");
    expect(fhirLocalDateTime("yesterday")).to.equal("yesterday");
  });
});

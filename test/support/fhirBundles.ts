import type { Bundle, BundleEntry, DiagnosticReport, Observation, Patient } from "fhir/r4.js";
import { NATIONAL_ID_SYSTEM } from "../../src/ingestion/fhir/bundleToLabReports.ts";
import { oruR01AsJson, ZHANG_SAN_ID } from "./hl7Messages.ts";

/*
 * FHIR R4 Bundles as a Chinese hospital's laboratory system sends them (contract D.6): the
 * patient's national id under its OID beside the hospital's own id, names and item names in
 * Chinese, results coded in LOINC (and one in the laboratory's own system only), a numeric panel
 * with reference ranges and interpretations, and a qualitative result.
 */

const observation = (
  id: string,
  fields: Omit<Observation, "resourceType" | "status"> & { status?: Observation["status"] },
): BundleEntry<Observation> => ({
  fullUrl: `urn:uuid:00000000-0000-4000-8000-${id.padStart(12, "0")}`,
  resource: { resourceType: "Observation", status: "final", ...fields },
  request: { method: "POST", url: "Observation" },
});

const mmol = (value: number, unit: string, low?: number, high?: number) => ({
  valueQuantity: { value, unit, system: "http://unitsofmeasure.org", code: unit },
  ...(low !== undefined || high !== undefined
    ? {
        referenceRange: [
          {
            ...(low !== undefined ? { low: { value: low, unit } } : {}),
            ...(high !== undefined ? { high: { value: high, unit } } : {}),
          },
        ],
      }
    : {}),
});

const flag = (code: string) => ({
  interpretation: [
    { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation", code }] },
  ],
});

/** A Bundle of one DiagnosticReport with its Patient and four Observations. */
export function diagnosticReportBundle(
  overrides: { type?: "batch" | "transaction"; externalId?: string; status?: string; issued?: string } = {},
): Bundle<Patient | DiagnosticReport | Observation> {
  const {
    type = "batch",
    externalId = "F20260301-0001",
    status = "final",
    issued = "2026-03-01T10:00:00+08:00",
  } = overrides;
  const patientUrl = "urn:uuid:00000000-0000-4000-8000-0000000000aa";
  const results = [
    observation("1", {
      code: { coding: [{ system: "http://loinc.org", code: "718-7", display: "Hemoglobin" }], text: "血红蛋白" },
      ...mmol(112, "g/L", 115, 150),
      ...flag("L"),
    }),
    observation("2", {
      code: { coding: [{ system: "http://loinc.org", code: "2823-3" }], text: "钾" },
      ...mmol(5.6, "mmol/L", 3.5, 5.5),
      ...flag("H"),
    }),
    observation("3", {
      code: { coding: [{ system: "http://lis.example.cn/items", code: "HBSAG", display: "乙肝表面抗原" }] },
      valueCodeableConcept: { text: "阴性(-)" },
    }),
    observation("4", {
      code: { coding: [{ system: "http://lis.example.cn/items", code: "CRP", display: "C反应蛋白" }] },
      ...mmol(3.2, "mg/L", undefined, 5),
      ...flag("N"),
    }),
  ];
  return {
    resourceType: "Bundle",
    type,
    entry: [
      {
        fullUrl: patientUrl,
        resource: {
          resourceType: "Patient",
          identifier: [
            { system: "http://hospital.example.cn/mrn", value: "H-100001" },
            { system: NATIONAL_ID_SYSTEM, value: ZHANG_SAN_ID },
          ],
          name: [{ family: "张", given: ["三"] }],
        },
        request: { method: "POST", url: "Patient" },
      },
      {
        fullUrl: "urn:uuid:00000000-0000-4000-8000-0000000000bb",
        resource: {
          resourceType: "DiagnosticReport",
          identifier: [{ system: "http://lis.example.cn/reports", value: externalId }],
          status: status as "final",
          code: { coding: [{ system: "http://lis.example.cn/panels", code: "DLYM" }], text: "透析月度检查" },
          subject: { reference: patientUrl },
          effectiveDateTime: "2026-03-01T07:30:00+08:00",
          issued,
          result: results.map((entry) => ({ reference: entry.fullUrl })),
        },
        request: { method: "POST", url: "DiagnosticReport" },
      },
      ...results,
    ],
  };
}

/** diagnosticReportBundle() as the JSON push of the same report would send it: oruR01()'s report, with its own results. */
export function diagnosticReportAsJson(externalId = "F20260301-0001") {
  return {
    ...oruR01AsJson(externalId),
    items: [
      { itemCode: "HGB", itemName: "血红蛋白", value: 112, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: "L" },
      { itemCode: "K", itemName: "钾", value: 5.6, unit: "mmol/L", refLow: 3.5, refHigh: 5.5, abnormalFlag: "H" },
      { itemCode: "HBSAG", itemName: "乙肝表面抗原", value: "阴性(-)", resultType: "QUALITATIVE" },
      { itemCode: "CRP", itemName: "C反应蛋白", value: 3.2, unit: "mg/L", refHigh: 5, abnormalFlag: "N" },
    ],
  };
}

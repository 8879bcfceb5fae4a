import type { CapabilityStatement } from "fhir/r4.js";
import { WARD_SYSTEM } from "./measureReports.ts";

/**
 * What this server does, exactly (contract D.6): a batch or transaction Bundle of DiagnosticReports
 * with their Observations and Patients, posted with a client key; patients, reports and a
 * patient's Observations read with an author token, and a month's quality figures as
 * MeasureReports. Each capability is listed when it is built, none before.
 */
export function capabilityStatement(date: Date): CapabilityStatement {
  return {
    resourceType: "CapabilityStatement",
    status: "active",
    date: date.toISOString(),
    publisher: "Dialysis Hub",
    kind: "instance",
    implementation: { description: "Dialysis Hub: laboratory reports for hemodialysis centres" },
    fhirVersion: "4.0.1",
    format: ["application/fhir+json"],
    rest: [
      {
        mode: "server",
        documentation:
          "POST a batch or transaction Bundle of DiagnosticReports (identifier[0].value: the report's id), " +
          "each with the Observations it refers to in result and the Patient of its subject (the national id " +
          "under urn:oid:2.16.156.10011.1.1); each report is stored as a lab report of the open API. " +
          "Authorization: Bearer <client key>.",
        security: {
          description:
            "Bearer client key (issued by the administrator) to post; an author token of the tenant (or the ADMIN_TOKEN) " +
            "or a staff session, with the role clinician or above, to read and search; metadata needs none.",
        },
        interaction: [{ code: "batch" }, { code: "transaction" }],
        resource: [
          {
            type: "Patient",
            interaction: [{ code: "search-type" }],
            searchParam: [
              { name: "identifier", type: "token", documentation: "urn:oid:2.16.156.10011.1.1|<national id>" },
            ],
          },
          {
            type: "DiagnosticReport",
            interaction: [{ code: "read" }],
            documentation:
              "By id: the report's externalId, each character other than letters, digits and - written . and its bytes in hex; its Observations contained",
          },
          {
            type: "Observation",
            interaction: [{ code: "search-type" }],
            searchParam: [
              { name: "patient", type: "reference", documentation: "Required: the Patient id (the patientRef)" },
              {
                name: "code",
                type: "token",
                documentation:
                  "http://loinc.org|<code>, urn:dialysis-hub:item|<code> or the item code alone; several separated by commas",
              },
              {
                name: "date",
                type: "date",
                documentation:
                  "The day the sample was collected (else reported): eq, ge or le with yyyy-MM-dd, at most a pair",
              },
              {
                name: "_count",
                type: "number",
                documentation: "Results a page, 1 to 500 (50); the next page by the Bundle's next link",
              },
            ],
          },
          {
            type: "MeasureReport",
            interaction: [{ code: "search-type" }],
            documentation:
              "A month's quality figures: one summary MeasureReport per indicator, measure " +
              "<base>/fhir/r4/Measure/<code>|<version>, the numerator and denominator as populations and the rate " +
              "(0–1) as measureScore (left out when the denominator is 0); a closed month's figures as frozen at its " +
              "close. A caller limited to wards gets each of its wards' (subject: the ward, " +
              `${WARD_SYSTEM}|<ward>), any other caller the whole tenant's.`,
            searchParam: [
              {
                name: "period",
                type: "date",
                documentation: "Required, once: the month, yyyy-MM, in the service's time zone, up to the current one",
              },
            ],
          },
        ],
      },
    ],
  };
}

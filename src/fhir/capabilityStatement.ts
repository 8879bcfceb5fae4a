import type { CapabilityStatement } from "fhir/r4.js";

/**
 * What this server does, exactly (contract D.6): a batch or transaction Bundle of DiagnosticReports
 * with their Observations and Patients, posted with a client key. Each capability is listed when
 * it is built, none before.
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
          "POST a batch or transaction Bundle of DiagnosticReports (identifier[0].value: the report's id), each with the Observations it refers to in result and the Patient of its subject (the national id under urn:oid:2.16.156.10011.1.1); each report is stored as a lab report of the open API. Authorization: Bearer <client key>.",
        security: { description: "Bearer client key (issued by the administrator) for POST; metadata needs none." },
        interaction: [{ code: "batch" }, { code: "transaction" }],
      },
    ],
  };
}

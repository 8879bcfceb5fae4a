import { z } from "zod";
import { bundleSchema } from "../../ingestion/fhir/bundleSchema.ts";
import { security } from "./shared.ts";

/*
 * FHIR R4 (contract D.6) as OpenAPI states it: the Bundle posted is the zod schema the route checks;
 * the resources answered are FHIR's own, named and linked rather than restated.
 */

const fhirResource = (name: string, description: string) =>
  z
    .looseObject({ resourceType: z.literal(name) })
    .meta({ description: `${description} (FHIR R4 ${name}: https://hl7.org/fhir/R4/${name.toLowerCase()}.html)` });
const operationOutcome = fhirResource(
  "OperationOutcome",
  "What failed, and how to fix the call; each issue's expression is the FHIRPath of the element at fault",
);
const fhirJson = (schema: z.ZodType) => ({ content: { "application/fhir+json": { schema } } });
const failures = (described: Record<number, string>) =>
  Object.fromEntries(
    Object.entries(described).map(([status, description]) => [status, { description, ...fhirJson(operationOutcome) }]),
  );

export const fhirR4Paths = {
  "/fhir/r4/metadata": {
    get: {
      tags: ["FHIR R4"],
      operationId: "fhirCapabilityStatement",
      summary: "What this FHIR server does (contract D.6)",
      security: security.none,
      responses: {
        200: {
          description: "The CapabilityStatement",
          ...fhirJson(fhirResource("CapabilityStatement", "Exactly the interactions supported")),
        },
        ...failures({ 400: "X-Service-Tenant is not a tenant name" }),
      },
    },
  },
  "/fhir/r4/Patient": {
    get: {
      tags: ["FHIR R4"],
      operationId: "fhirSearchPatients",
      summary: "The registered patient with a national id (contract D.6)",
      security: security.author,
      requestParams: {
        query: z.object({
          identifier: z.string().meta({
            description: "urn:oid:2.16.156.10011.1.1|<national id>",
            example: "urn:oid:2.16.156.10011.1.1|11010519491231002X",
          }),
        }),
      },
      responses: {
        200: {
          description: "A searchset Bundle of the Patients (none or one)",
          ...fhirJson(fhirResource("Bundle", "searchset")),
        },
        ...failures({
          400: "No identifier of the national-id system",
          401: "No author token, or an invalid one",
          403: "A token of another tenant",
        }),
      },
    },
  },
  "/fhir/r4/DiagnosticReport/{id}": {
    get: {
      tags: ["FHIR R4"],
      operationId: "fhirReadDiagnosticReport",
      summary: "A lab report with its results contained (contract D.6)",
      security: security.author,
      requestParams: {
        path: z.object({
          id: z.string().meta({
            description:
              "The externalId, each character other than letters, digits and - written . and its bytes in hex",
            example: "L20260301-0001",
          }),
        }),
      },
      responses: {
        200: {
          description: "The DiagnosticReport",
          ...fhirJson(fhirResource("DiagnosticReport", "Its Observations contained")),
        },
        ...failures({
          401: "No author token, or an invalid one",
          403: "A token of another tenant",
          404: "No report with this id",
        }),
      },
    },
  },
  "/fhir/r4/Observation": {
    get: {
      tags: ["FHIR R4"],
      operationId: "fhirSearchObservations",
      summary: "A patient's results as Observations, newest first, a page at a time (contract D.6)",
      description:
        "Each result item the service stored for the patient: the standard code (LOINC where the dictionary " +
        "has one, then urn:dialysis-hub:item), the value in the item's standard unit, the value as sent in the " +
        "extension urn:dialysis-hub:fhir:sent-value when they differ. The next page is the Bundle's next link.",
      security: security.author,
      requestParams: {
        query: z.object({
          patient: z
            .string()
            .meta({ description: "The Patient id (the patientRef), or Patient/<id>", example: "P001" }),
          code: z.string().optional().meta({
            description:
              "http://loinc.org|<code>, urn:dialysis-hub:item|<code>, or the item code alone; several separated by commas",
            example: "http://loinc.org|718-7",
          }),
          date: z.string().optional().meta({
            description: "eq, ge or le and a day (yyyy-MM-dd) of collection (else report); send twice for a range",
            example: "ge2025-01-01",
          }),
          _count: z.int().min(1).max(500).optional().meta({ description: "Results a page (50)" }),
          _cursor: z
            .string()
            .optional()
            .meta({ description: "Written by the server in the next link: follow it as it is" }),
        }),
      },
      responses: {
        200: { description: "A searchset Bundle of Observations", ...fhirJson(fhirResource("Bundle", "searchset")) },
        ...failures({
          400: "A search parameter it cannot run, saying how to fix it",
          401: "No author token, or an invalid one",
          403: "A token of another tenant",
        }),
      },
    },
  },
  "/fhir/r4/MeasureReport": {
    get: {
      tags: ["FHIR R4"],
      operationId: "fhirSearchMeasureReports",
      summary: "A month's quality figures as summary MeasureReports, one per indicator (contract G.2)",
      description:
        "The figures of GET /api/quality/months/{yyyy-MM} (a closed month's as frozen at its close): measure " +
        "<PUBLIC_URL>/fhir/r4/Measure/<code>|<version>, the numerator and denominator as group[0].population " +
        "(measure-population codes), the rate (0–1) as measureScore, left out when the denominator is 0. A " +
        "caller limited to wards gets each of its wards' reports (subject: urn:dialysis-hub:ward|<ward>), any " +
        "other caller the whole tenant's (decision 0081).",
      security: security.author,
      requestParams: {
        query: z.object({
          period: z.string().meta({
            description: "The month, yyyy-MM, in the service's time zone, from 1900-01 to the current one",
            example: "2026-10",
          }),
        }),
      },
      responses: {
        200: {
          description: "A searchset Bundle of MeasureReports",
          ...fhirJson(fhirResource("Bundle", "searchset")),
        },
        ...failures({
          400: "No period, a period that is not a month up to the current one, or another parameter",
          401: "No author token or session, or an invalid one",
          403: "A role below clinician, or a token of another tenant",
        }),
      },
    },
  },
  "/fhir/r4": {
    post: {
      tags: ["FHIR R4"],
      operationId: "fhirPostBundle",
      summary: "Push laboratory reports as a batch or transaction Bundle of DiagnosticReports (contract D.6)",
      description:
        "Each DiagnosticReport, with the Observations of its result and the Patient of its subject (found in " +
        "the Bundle by fullUrl or Type/id), is one lab report, mapped as the integration guide's FHIR section " +
        "shows and stored by the same rules as a JSON push. A batch answers each entry: 201 Created, 200 OK " +
        "(updated, or unchanged when sent again), 400 with an OperationOutcome; the Observations and Patient " +
        "of a report share its answer. A transaction is stored whole, or not at all: one rejected report (or " +
        "an entry no report refers to) answers 400 with an OperationOutcome naming every problem.",
      security: security.client,
      requestBody: { required: true, ...fhirJson(bundleSchema) },
      responses: {
        200: {
          description: "A batch-response or transaction-response Bundle, one entry per entry sent, in order",
          ...fhirJson(fhirResource("Bundle", "batch-response or transaction-response")),
        },
        ...failures({
          400: "Not a batch or transaction Bundle, none of its entries a DiagnosticReport, or (transaction) a report rejected",
          401: "No client key, or an unknown or revoked one",
          413: "The body is over 16 MB, or the Bundle holds more than 1,000 DiagnosticReports",
          415: "Not sent as application/fhir+json",
          429: "Too many calls: wait as Retry-After says",
          503: "The database cannot be reached: post again",
        }),
      },
    },
  },
};

import { createDocument } from "zod-openapi";
import { pushResultSchema } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import { auditSchema } from "../../../commands/reports/spec/audit.ts";
import { reportSpecSchema } from "../../../commands/reports/spec/specSchema.ts";
import type { Dictionary } from "../../../db/seed/defaultDictionary.ts";
import type { ServedDictionary } from "../../../queries/dictionary/dictionary.ts";
import { patientListEntrySchema } from "../../../queries/patients/patients.ts";
import { queryOutcomeSchema } from "../../../commands/reports/spec/queryOutcome.ts";
import { reportListEntrySchema, versionEntrySchema } from "../../../queries/reports/reportCatalog.ts";
import { unmatchedEntrySchema } from "../../../queries/ingestion/unmatched.ts";
import { apiErrorSchema } from "../../http/apiErrors.ts";
import { accessLogApiPaths } from "./accessLogApi.ts";
import { callerApiPaths } from "./callerApi.ts";
import { fhirR4Paths } from "./fhirR4.ts";
import { openV1Paths } from "./openV1.ts";
import { patientCopyApiPaths } from "./patientCopyApi.ts";
import { qualityApiPaths } from "./qualityApi.ts";
import { escalationApiPaths } from "./escalationApi.ts";
import { messagesApiPaths } from "./messagesApi.ts";
import { copyPatientSchema, copyResultLineSchema } from "../../../queries/patients/patientCopy.ts";
import { recordsApiPaths } from "./recordsApi.ts";
import { reportsApiPaths } from "./reportsApi.ts";
import { servicePaths } from "./servicePages.ts";
import { securitySchemes } from "./shared.ts";

export interface OpenApiDocumentSource {
  /** The exam report schema lists the dictionary's exam types, as the push checks them. */
  dictionary: Dictionary;
  /** The categories the dictionary call accepts. */
  served: ServedDictionary;
}

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** The OpenAPI 3.1 document of both interfaces (and the service's pages), generated from the zod schemas. */
export function openApiDocument(source: OpenApiDocumentSource): OpenApiDocument {
  const document = {
    openapi: "3.1.0" as const,
    info: {
      title: "Dialysis Hub",
      version: "1",
      description:
        "Report viewing and authoring under `/api` (failures answer `{ error }`), clinical report ingestion under `/open/v1` " +
        "(every answer is the envelope `{ code, msg, data, timestamp }`). The help articles are listed at /llms.txt.",
    },
    // Relative to where this document is served (/openapi.json), so a client generator or Swagger
    // UI calls the host, port and reverse-proxy prefix it fetched the document from.
    servers: [{ url: "/", description: "This service: the origin that served this document" }],
    tags: [
      { name: "Report viewing", description: "Contract A: no credential (the reverse proxy guards it)" },
      { name: "Authoring", description: "Contract C.3: an author token of the tenant, or the ADMIN_TOKEN" },
      {
        name: "Patients and unmatched reports",
        description: "Contract C.4: an author token of the tenant, or the ADMIN_TOKEN",
      },
      {
        name: "Bulk jobs",
        description: "Contract D.4 as the staff pages follow it: an author token of the tenant, or the ADMIN_TOKEN",
      },
      {
        name: "Administration",
        description:
          "Contract C.2, C.6, E.3, E.4: the operator's ADMIN_TOKEN; a tenant's credentials and access log also its administrators (role admin, E.2)",
      },
      {
        name: "Quality figures",
        description:
          "Contract G.2: the month's quality indicators, live, closed and restated; a clinician (or above) of the tenant, an administrator to close",
      },
      {
        name: "Messages",
        description:
          "Contract G.5: every message the tenant's senders sent, kept; an administrator or integrator of the tenant",
      },
      { name: "Ingestion open API", description: "Contract B: a client key" },
      {
        name: "FHIR R4",
        description: "Contract D.6: a client key to post; answers are FHIR resources, failures OperationOutcomes",
      },
      { name: "Service", description: "Health, help articles, the embed page and these docs" },
    ],
    paths: {
      ...reportsApiPaths,
      ...recordsApiPaths,
      ...escalationApiPaths,
      ...messagesApiPaths,
      ...accessLogApiPaths,
      ...patientCopyApiPaths,
      ...qualityApiPaths,
      ...callerApiPaths,
      ...openV1Paths(source.dictionary, source.served),
      ...fhirR4Paths,
      ...servicePaths,
    },
    components: {
      securitySchemes,
      // Named where they are used, instead of repeated inline (the same schema instances as in the paths).
      schemas: {
        ApiError: apiErrorSchema,
        LabReport: reportKinds.lab.schema(source.dictionary),
        ExamReport: reportKinds.exam.schema(source.dictionary),
        PushResult: pushResultSchema,
        ReportSpec: reportSpecSchema,
        ReportListEntry: reportListEntrySchema,
        VersionEntry: versionEntrySchema,
        Audit: auditSchema,
        QueryResult: queryOutcomeSchema,
        PatientListEntry: patientListEntrySchema,
        UnmatchedEntry: unmatchedEntrySchema,
        // The files of a patient's copy (GET /api/patients/{patientRef}/copy), which a zip cannot name in a schema.
        PatientCopyPatient: copyPatientSchema,
        PatientCopyResultLine: copyResultLineSchema,
      },
    },
  };
  return createDocument(document, {
    override: ({ jsonSchema }) => {
      // z.int() states JavaScript's safe-integer range: as bounds of a JSON field it is noise (and Swagger UI's example).
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
}

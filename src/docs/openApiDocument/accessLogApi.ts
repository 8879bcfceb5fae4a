import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { PATIENT_REF_PATTERN } from "../../../commands/patients/registerPatient.ts";
import { accessRecordSchema } from "../../../queries/access/accessLog.ts";
import {
  patientAccessLogQuery,
  tenantAccessLogAnswer,
  tenantAccessLogExportQuery,
  tenantAccessLogQuery,
} from "../../access/accessLogRoutes.ts";
import { XLSX_CONTENT_TYPE } from "../../reports/export/contentTypes.ts";
import { pageLinkHeader } from "../../http/paging.ts";
import { apiFailures, json, LIST_BUSY, security } from "./shared.ts";

const patientPath = z.object({
  patientRef: z
    .string()
    .regex(PATIENT_REF_PATTERN)
    .meta({ description: "The centre's own reference of the patient", example: "P001" }),
});
const adminFailures = {
  401: "No credential, or one that is wrong, expired or revoked",
  403: "The caller lacks the role admin or is of another tenant",
} as const;
// The log of the tenant X-Service-Tenant names (`default` when absent), for its administrators and the operator.
const adminOfTenant = security.tenantAdmin;

/** Contract E.4: who was shown which patients. */
export const accessLogApiPaths: ZodOpenApiPathsObject = {
  "/api/patients/{patientRef}/access-log": {
    get: {
      tags: ["Administration"],
      operationId: "patientAccessLog",
      summary: "Who was shown this patient: the access records naming the patient, oldest first (contract E.4)",
      security: adminOfTenant,
      requestParams: { path: patientPath, query: patientAccessLogQuery },
      responses: {
        200: {
          description: "The records naming the patient, by when the answer was given; a page of them with limit",
          ...json(z.array(accessRecordSchema)),
          headers: pageLinkHeader,
        },
        ...apiFailures({
          ...adminFailures,
          400: "A bad from, to, limit, cursor or patientRef",
          404: "A caller limited to some wards asked for a patient outside them",
          503: LIST_BUSY,
        }),
      },
    },
  },
  "/api/admin/access-log": {
    get: {
      tags: ["Administration"],
      operationId: "tenantAccessLog",
      summary:
        "The tenant's access records, a page at a time, in the order they were written or the newest first, filtered by who, patient, action and period (contract E.4)",
      security: adminOfTenant,
      requestParams: { query: tenantAccessLogQuery },
      responses: {
        200: { description: "A page of records and the cursor of the next", ...json(tenantAccessLogAnswer) },
        ...apiFailures({
          ...adminFailures,
          400: "A bad who, patientRef, action, from, to, order, limit or cursor; from after to",
          403: "The caller lacks the role admin, is of another tenant, or is limited to some wards (the tenant's log names every ward's patients; code access-log-every-ward)",
          503: LIST_BUSY,
        }),
      },
    },
  },
  "/api/admin/access-log/export": {
    get: {
      tags: ["Administration"],
      operationId: "exportTenantAccessLog",
      summary:
        "The access records the same filters choose, as one file: xlsx (a sheet of the records, one of the filters) or csv (UTF-8 with a byte order mark)",
      description:
        "Every record the filters choose, up to 100,000 (past it the file says it was cut: narrow the period and export it in parts), read a page at a time while the file is written. " +
        "Columns: at, who, credential, roles, action, patients shown, reports shown, request id, outcome; the file's own words (headings, outcomes, the filters sheet) in lang. " +
        "Text that a spreadsheet could take for a formula is written inert (a leading ').",
      security: adminOfTenant,
      requestParams: { query: tenantAccessLogExportQuery },
      responses: {
        200: {
          description: "The file, streamed",
          content: {
            [XLSX_CONTENT_TYPE]: { schema: z.string().meta({ format: "binary" }) },
            "text/csv": { schema: z.string() },
          },
          headers: z.object({
            "Content-Disposition": z.string().meta({
              description: 'attachment; filename="access-log <tenant> <yyyy-MM-dd>.<format>" (访问日志 … in Chinese)',
              example: 'attachment; filename="access-log h1 2026-03-01.xlsx"',
            }),
          }),
        },
        ...apiFailures({
          ...adminFailures,
          400: "A bad who, patientRef, action, from, to, order, format or lang; from after to",
          403: "The caller lacks the role admin, is of another tenant, or is limited to some wards (code access-log-every-ward)",
          503: LIST_BUSY,
        }),
      },
    },
  },
};

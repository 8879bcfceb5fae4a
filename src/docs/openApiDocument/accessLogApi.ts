import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { PATIENT_REF_PATTERN } from "../../../commands/patients/registerPatient.ts";
import { accessRecordSchema } from "../../../queries/access/accessLog.ts";
import { patientAccessLogQuery, tenantAccessLogAnswer, tenantAccessLogQuery } from "../../access/accessLogRoutes.ts";
import { pageLinkHeader } from "../../http/paging.ts";
import { apiFailures, json } from "./shared.ts";

const patientPath = z.object({ patientRef: z.string().regex(PATIENT_REF_PATTERN).meta({ description: "The centre's own reference of the patient", example: "P001" }) });
const adminFailures = { 401: "The ADMIN_TOKEN is missing or wrong, or administration is switched off (no ADMIN_TOKEN)" } as const;
// The operator reads the log of the tenant X-Service-Tenant names (`default` when absent).
const adminOfTenant: Array<Record<string, string[]>> = [{ adminToken: [], serviceTenant: [] }, { adminToken: [] }];

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
        200: { description: "The records naming the patient, by when the answer was given; a page of them with limit", ...json(z.array(accessRecordSchema)), headers: pageLinkHeader },
        ...apiFailures({ ...adminFailures, 400: "A bad from, to, limit, cursor or patientRef" }),
      },
    },
  },
  "/api/admin/access-log": {
    get: {
      tags: ["Administration"],
      operationId: "tenantAccessLog",
      summary: "The tenant's access records, a page at a time, in the order they were written (contract E.4)",
      security: adminOfTenant,
      requestParams: { query: tenantAccessLogQuery },
      responses: {
        200: { description: "A page of records and the cursor of the next", ...json(tenantAccessLogAnswer) },
        ...apiFailures({ ...adminFailures, 400: "A bad who, from, to, limit or cursor" }),
      },
    },
  },
};

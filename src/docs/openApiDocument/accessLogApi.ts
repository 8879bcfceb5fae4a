import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { PATIENT_REF_PATTERN } from "../../../commands/patients/registerPatient.ts";
import { accessRecordSchema } from "../../../queries/access/accessLog.ts";
import { patientAccessLogQuery, tenantAccessLogAnswer, tenantAccessLogQuery } from "../../access/accessLogRoutes.ts";
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
      summary: "The tenant's access records, a page at a time, in the order they were written (contract E.4)",
      security: adminOfTenant,
      requestParams: { query: tenantAccessLogQuery },
      responses: {
        200: { description: "A page of records and the cursor of the next", ...json(tenantAccessLogAnswer) },
        ...apiFailures({
          ...adminFailures,
          400: "A bad who, from, to, limit or cursor",
          403: "The caller lacks the role admin, is of another tenant, or is limited to some wards (the tenant's log names every ward's patients)",
          503: LIST_BUSY,
        }),
      },
    },
  },
};

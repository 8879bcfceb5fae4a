import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { PATIENT_REF_PATTERN } from "../../../commands/patients/registerPatient.ts";
import { PATIENT_COPY_CONTENT_TYPE } from "../../patients/patientCopyRoutes.ts";
import { apiFailures, security } from "./shared.ts";

const patientPath = z.object({
  patientRef: z
    .string()
    .regex(PATIENT_REF_PATTERN)
    .meta({ description: "The centre's own reference of the patient", example: "P001" }),
});

/** Contract G.1 (PIPL art. 45): the copy of a patient's data that the patient may ask for. */
export const patientCopyApiPaths: ZodOpenApiPathsObject = {
  "/api/patients/{patientRef}/copy": {
    get: {
      tags: ["Administration"],
      operationId: "patientCopy",
      summary: "A patient's copy of their own data, as one zip (contract G.1)",
      description:
        "A zip streamed while it is read, holding: `patient.json` (PatientCopyPatient: the patient as " +
        "registered, the id card in full, and every registration), " +
        "`results.ndjson` (one PatientCopyResultLine a line: every laboratory result as sent and in standard " +
        "units with its report, oldest first; then the derived values, marked; then the examination reports), " +
        "`history.json` (the history of each of the patient's reports, as GET /api/history/{kind}/{externalId} answers it), " +
        "`alerts.json` (the patient's critical-result and delta alerts, every state, as GET /api/alerts lists them) and " +
        "`access-log.json` (the access records naming the patient, as GET /api/patients/{patientRef}/access-log answers them). " +
        "The copy is itself recorded in the access log (contract E.4), also when it answers 404. A failure " +
        "after the first byte cuts the response: the client sees a broken download, never a " +
        "partial zip that opens.",
      security: security.tenantAdmin,
      requestParams: { path: patientPath },
      responses: {
        200: {
          description: "The zip, streamed",
          content: { [PATIENT_COPY_CONTENT_TYPE]: { schema: z.string().meta({ format: "binary" }) } },
          headers: z.object({
            "Content-Disposition": z.string().meta({
              description: 'attachment; filename="<patientRef> copy <yyyy-MM-dd>.zip"',
              example: 'attachment; filename="P001 copy 2026-03-01.zip"',
            }),
          }),
        },
        ...apiFailures({
          400: "patientRef is not a patient reference (1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit)",
          401: "No credential, or one that is wrong, expired or revoked",
          403: "The caller lacks the role admin or is of another tenant",
          404: "No such patient in this tenant, or one of a ward outside the administrator's",
        }),
      },
    },
  },
};

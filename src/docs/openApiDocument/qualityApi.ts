import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { indicatorAnswerSchema } from "../../../queries/quality/indicators.ts";
import { monthAnswerSchema } from "../../../queries/quality/months.ts";
import { monthPath, wardQuery } from "../../quality/qualityParams.ts";
import { apiFailures, json, security } from "./shared.ts";

const clinicianFailures = {
  401: "No credential, or one that is wrong, expired or revoked",
  403: "The caller lacks the role clinician (or above) or is of another tenant",
} as const;

const monthFailures = {
  400: "The month is not yyyy-MM up to the current one, a query parameter other than ward, or a caller limited to wards who named none (ward-required)",
  ...clinicianFailures,
  404: "No patient of the tenant is in the ward, or the ward is outside the caller's (ward-not-found)",
} as const;

/** Contract G.2: the month's quality figures. */
export const qualityApiPaths: ZodOpenApiPathsObject = {
  "/api/quality/indicators": {
    get: {
      tags: ["Quality figures"],
      operationId: "qualityIndicators",
      summary: "The quality indicators in force, each in the version a dictionary release put in force (contract G.2)",
      security: security.author,
      responses: {
        200: { description: "The indicators, in the dictionary's order", ...json(z.array(indicatorAnswerSchema)) },
        ...apiFailures(clinicianFailures),
      },
    },
  },
  "/api/quality/months/{month}": {
    get: {
      tags: ["Quality figures"],
      operationId: "qualityMonth",
      summary: "A month's quality figures, of the tenant or of one ward (contract G.2)",
      description:
        "An open month is counted from what is known now, by the indicators in force; a closed one answers the figures frozen when it was closed. " +
        "A patient is under care in a month when any result of theirs was collected in it (local time). A target counts each patient's last value of the month; " +
        "a tested indicator whether the items were measured within its window. A ward's figures are those of its patients as they are now. " +
        "CRITICAL_ACK_30MIN counts nothing (0 of 0) until critical values' acknowledgement times are counted (contract G.3). The answer is an access record naming its patients (contract E.4).",
      security: security.author,
      requestParams: { path: monthPath, query: wardQuery },
      responses: {
        200: {
          description: "The month's figures, an indicator each, in the dictionary's order",
          ...json(monthAnswerSchema),
        },
        ...apiFailures(monthFailures),
      },
    },
  },
};

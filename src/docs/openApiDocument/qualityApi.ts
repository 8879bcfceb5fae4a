import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { indicatorAnswerSchema } from "../../../queries/quality/indicators.ts";
import { apiFailures, json, security } from "./shared.ts";

const clinicianFailures = {
  401: "No credential, or one that is wrong, expired or revoked",
  403: "The caller lacks the role clinician (or above) or is of another tenant",
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
};

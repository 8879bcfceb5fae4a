import type { ZodOpenApiPathsObject } from "zod-openapi";
import { callerAnswer } from "../../credentials/callerRoutes.ts";
import { apiFailures, json, security } from "./shared.ts";

/** Who the caller is (contract E.2), for pages that offer only what the caller's roles allow. */
export const callerApiPaths: ZodOpenApiPathsObject = {
  "/api/me": {
    get: {
      tags: ["Administration"],
      operationId: "whoAmI",
      summary: "The caller of this credential: name, tenant, roles and wards",
      security: [...security.author, { staffSession: [], serviceTenant: [] }],
      responses: { 200: { description: "The caller", ...json(callerAnswer) }, ...apiFailures({ 401: "No credential, or one that is wrong, expired or revoked", 403: "The credential belongs to another tenant than X-Service-Tenant" }) },
    },
  },
};

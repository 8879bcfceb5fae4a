import type { ZodOpenApiPathsObject } from "zod-openapi";
import { escalationPolicyInput } from "../../../commands/alerts/setEscalationPolicy.ts";
import { escalationPolicyAnswer } from "../../../queries/alerts/escalationPolicy.ts";
import { timelinessAnswer } from "../../../queries/alerts/timeliness.ts";
import { timelinessQuery } from "../../alerts/escalationRoutes.ts";
import { apiFailures, json, jsonBody, security } from "./shared.ts";

const adminFailures = {
  401: "No credential, or one that is wrong, expired or revoked",
  403: "The caller lacks the role admin or is of another tenant",
} as const;

/** Contract G.3: critical values reach a clinician in time. */
export const escalationApiPaths: ZodOpenApiPathsObject = {
  "/api/alerts/escalation": {
    get: {
      tags: ["Critical results"],
      operationId: "escalationPolicy",
      summary:
        "The tenant's escalation policy: who is told of a critical value, after how many minutes without an acknowledgement (contract G.3)",
      security: security.tenantAdmin,
      responses: {
        200: {
          description: "The policy in force; without one, no ward and no read-back",
          ...json(escalationPolicyAnswer),
        },
        ...apiFailures(adminFailures),
      },
    },
    put: {
      tags: ["Critical results"],
      operationId: "setEscalationPolicy",
      summary: "Replace the tenant's escalation policy (contract G.3)",
      description:
        "Each critical alert is escalated by the steps of its patient's ward (else `*`) as they stood when it was raised: each step, " +
        "due afterMinutes after the alert was raised and still unacknowledged, sends a mail (through the service's SMTP_URL, in Chinese and " +
        "English, naming the patient, the item, value, unit, flag, collection time and a link to the chart) and/or a webhook signed as the " +
        "alert webhook is (X-Dialysis-Hub-Timestamp, X-Dialysis-Hub-Signature with ALERT_WEBHOOK_SECRET), within 30 s of its time. " +
        "A refused or unanswered delivery is tried again with growing pauses, then recorded failed. Webhook URLs pointing at this " +
        "machine, a link-local address or a cloud's metadata service are refused unless ALERT_WEBHOOK_ALLOW_PRIVATE=1. " +
        "With readBackRequired, an acknowledgement must read the alert's value back.",
      security: security.tenantAdmin,
      requestBody: jsonBody(escalationPolicyInput),
      responses: {
        200: { description: "The policy now in force", ...json(escalationPolicyAnswer) },
        ...apiFailures({
          400: "A step without targets, steps out of the order of their minutes, a bad address or URL, a refused webhook address, or webhooks while ALERT_WEBHOOK_SECRET is not set",
          ...adminFailures,
        }),
      },
    },
  },
  "/api/alerts/timeliness": {
    get: {
      tags: ["Critical results"],
      operationId: "criticalTimeliness",
      summary: "How fast the month's critical values were acknowledged, of the tenant or a ward (contract G.3)",
      description:
        "Over the critical alerts raised in the month (the service's time zone), of the patients now in the ward when one is named: " +
        "how many were raised and acknowledged, acknowledged within 15, 30 and 60 minutes, the median and 90th percentile of the minutes " +
        "from raised to acknowledged (null when none was), and how many are overdue now. A caller limited to wards names one of them.",
      security: security.author,
      requestParams: { query: timelinessQuery },
      responses: {
        200: { description: "The month's figures", ...json(timelinessAnswer) },
        ...apiFailures({
          400: "No month, one not written yyyy-MM or not begun, another parameter, or a caller limited to wards who named none (ward-required)",
          401: adminFailures[401],
          403: "The caller lacks the role clinician (or above) or is of another tenant",
          404: "No patient of the tenant is in the ward, or the ward is outside the caller's (ward-not-found)",
        }),
      },
    },
  },
};

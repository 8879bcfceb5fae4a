import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { indicatorAnswerSchema } from "../../../queries/quality/indicators.ts";
import { monthAnswerSchema } from "../../../queries/quality/months.ts";
import { restatementAnswerSchema } from "../../../queries/quality/restatement.ts";
import { patientMonthSchema } from "../../../queries/quality/patientMonth.ts";
import { PATIENT_REF_PATTERN } from "../../../commands/patients/registerPatient.ts";
import { offTargetAnswerSchema } from "../../../queries/quality/offTargetPatients.ts";
import { closeBody, monthPath, offTargetQuery, qualityExportBody, wardQuery } from "../../quality/qualityParams.ts";
import { DOCX_CONTENT_TYPE, XLSX_CONTENT_TYPE } from "../../reports/export/contentTypes.ts";
import { apiFailures, json, jsonBody, security } from "./shared.ts";

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
  "/api/quality/wards": {
    get: {
      tags: ["Quality figures"],
      operationId: "qualityWards",
      summary: "The wards a month's figures can be asked for: those of the tenant's patients the caller sees",
      description:
        "Sorted. A caller limited to wards (contract E.2) gets those of its wards that have patients; one that sees every ward gets every ward a patient is in.",
      security: security.author,
      responses: {
        200: { description: "The wards' names", ...json(z.array(z.string()).meta({ example: ["A", "B"] })) },
        ...apiFailures({ 400: "A query parameter was sent", ...clinicianFailures }),
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
  "/api/quality/months/{month}/patients": {
    get: {
      tags: ["Quality figures"],
      operationId: "qualityMonthOffTarget",
      summary:
        "One indicator's patients not at target in a month, with their names and last values (the staff page's list)",
      description:
        "A target's patients measured outside its band (notMet), a tested indicator's patients not measured in its window (untested), as GET /api/quality/months/{month} answers them " +
        "(a closed month's as frozen), each with the last value of the month known now and their place now. The answer is an access record naming its patients (contract E.4).",
      security: security.author,
      requestParams: { path: monthPath, query: offTargetQuery },
      responses: {
        200: { description: "The patients, by patientRef", ...json(offTargetAnswerSchema) },
        ...apiFailures({
          ...monthFailures,
          400: "The month is not yyyy-MM up to the current one, code is missing or not a target or tested indicator in force, a query parameter other than code and ward, or a caller limited to wards who named none (ward-required)",
        }),
      },
    },
  },
  "/api/quality/months/{month}/close": {
    post: {
      tags: ["Quality figures"],
      operationId: "closeQualityMonth",
      summary: "Close a month: its figures frozen, of one ward or of the whole tenant (contract G.2)",
      description:
        "Counts the month as GET /api/quality/months/{month} does, once the figures hold every event the store had when the call came, and appends an event " +
        "holding the figures, the indicator versions and the store position they were counted at. From then on the month answers those figures; " +
        "what changes later (a late result, a corrected report, a claim, an item mapping, a dictionary release) shows in its restatement only. " +
        "Each ward closes once, and the whole tenant once (no ward). The answer is an access record naming its patients (contract E.4).",
      security: security.tenantAdmin,
      requestParams: { path: monthPath },
      requestBody: jsonBody(closeBody, false),
      responses: {
        201: { description: "The month as closed", ...json(monthAnswerSchema) },
        ...apiFailures({
          400: "The month is not yyyy-MM up to the current one, the body holds more than ward, or an administrator limited to wards named none (ward-required)",
          401: clinicianFailures[401],
          403: "The caller lacks the role admin or is of another tenant",
          404: "No patient of the tenant is in the ward, or the ward is outside the caller's (ward-not-found)",
          409: "The month has not ended in the service's time zone (month-not-ended), or it was closed already for this ward or the whole tenant (month-closed)",
          503: "The figures were not brought up to date with the store's latest events within 10 s: close again after Retry-After seconds",
        }),
      },
    },
  },
  "/api/quality/months/{month}/restatement": {
    get: {
      tags: ["Quality figures"],
      operationId: "qualityMonthRestatement",
      summary:
        "A closed month's figures as closed beside the same month counted now, with the events that moved each patient (contract G.2)",
      description:
        "For each indicator: the figures as closed and as counted now (by the indicators in force), and each patient whose place changed " +
        "(met, notMet, untested; null when not counted) with the events recorded after the close that moved them: a result that arrived late, a corrected report, " +
        "a claim, an item mapping made or undone, a dictionary release (a formula's or the indicator's new version), or the patient's move to or from the ward. " +
        "The answer is an access record naming the patients whose place changed (contract E.4).",
      security: security.author,
      requestParams: { path: monthPath, query: wardQuery },
      responses: {
        200: { description: "The restatement, an indicator each", ...json(restatementAnswerSchema) },
        ...apiFailures({
          ...monthFailures,
          409: "The month (of this ward, or of the whole tenant) is not closed (month-not-closed)",
        }),
      },
    },
  },
  "/api/quality/months/{month}/export": {
    post: {
      tags: ["Quality figures"],
      operationId: "exportQualityMonth",
      summary: "A month's quality figures as a workbook or a Word document, in Chinese or English (contract G.2)",
      description:
        "The month as GET /api/quality/months/{month} answers it (a closed month's frozen figures, with when and by whom it was closed; an open month counted now): " +
        "the indicator table (code, name, numerator, denominator, rate as a percentage, band with its unit, version, source), each patient's place " +
        "(met, not met, untested) and last value in each indicator that counts patients, and the 12 months up to it (each closed month's frozen rates, " +
        "each open month's counted now). xlsx: the sheets About, Indicators, Patients and Trend (in Chinese 说明, 指标, 患者, 趋势), a header in row 1, " +
        "typed cells from row 2, rates as numbers formatted as percentages. docx: landscape, the indicator table, the trend as two line charts " +
        "(targets; tested) and the patient table. Every word of the file is in `lang`; date-times are written yyyy-MM-dd HH:mm:ss. " +
        "Called, refused and recorded as the month's answer: ward-scoped, an access record naming its patients (contract E.4).",
      security: security.author,
      requestParams: { path: monthPath },
      requestBody: jsonBody(qualityExportBody),
      responses: {
        200: {
          description: "The file, as an attachment",
          content: { [XLSX_CONTENT_TYPE]: {}, [DOCX_CONTENT_TYPE]: {} },
          headers: z.object({
            "Content-Disposition": z.string().meta({
              description: "attachment; filename=\"…\"; filename*=UTF-8''… (the title is Chinese in a Chinese file)",
            }),
          }),
        },
        ...apiFailures({
          400: "The month is not yyyy-MM up to the current one, format is not xlsx or docx, lang is not zh or en, the body holds more than format, lang and ward, or a caller limited to wards named none (ward-required)",
          ...clinicianFailures,
          404: monthFailures[404],
        }),
      },
    },
  },
  "/api/patients/{patientRef}/months/{month}": {
    get: {
      tags: ["Quality figures"],
      operationId: "patientQualityMonth",
      summary:
        "A patient's month as the quality figures count it: the last value of each indicator item, and the place in each indicator (contract G.2)",
      description:
        "The patient's last value of the month of each indicator item measured in it, derived values included (contract F.2), and for each indicator " +
        "whether the patient met it, counted as GET /api/quality/months/{month} counts an open month (by what is known now and the indicators in force). " +
        "The answer is an access record (contract E.4), also when it answers 404.",
      security: security.author,
      requestParams: {
        path: z.object({
          patientRef: z
            .string()
            .regex(PATIENT_REF_PATTERN)
            .meta({ description: "The centre's own reference of the patient", example: "P001" }),
          month: monthPath.shape.month,
        }),
      },
      responses: {
        200: { description: "The patient's month", ...json(patientMonthSchema) },
        ...apiFailures({
          400: "patientRef is not a patient reference, the month is not yyyy-MM up to the current one, or a query parameter was sent",
          ...clinicianFailures,
          404: "No such patient in this tenant, or one of a ward outside the caller's (patient-not-found)",
        }),
      },
    },
  },
};

// Per-report validation of the ingestion open API (contract B.2, B.3). The zod schemas below are
// the single source of truth: every rule carries the message the sender will read.
//
// Unknown fields, at any level, are stripped rather than rejected: sending systems add fields
// over time and must not start failing because of it.
import { createHash } from "node:crypto";
import { z } from "zod";
import { isReadableNumber } from "../../db/numberBounds.ts";
import { fieldPath } from "../../db/fieldPath.ts";
import { mayHoldUnstorableText, UNSTORABLE_TEXT_RULE, unstorableTextPath } from "../kit/storableText.ts";

export const LAB_STATUSES = ["FINAL", "PRELIMINARY", "CORRECTED", "CANCELLED"] as const;
export const ABNORMAL_FLAGS = ["L", "H", "LL", "HH", "N", "A"] as const;
export const RESULT_TYPES = ["NUMERIC", "QUALITATIVE", "TEXT"] as const;
export const MAX_ITEMS = 500;
export const MAX_ERRORS_PER_REPORT = 50;
const EXAM_TYPES_LISTED = 20;
const DATE_TIME_EXAMPLE = "2026-03-01 08:30:00";

// Trim strings; a blank string or null counts as not sent, so optional fields may be sent empty.
function absentIfBlank(v: unknown): unknown {
  if (v === null) return undefined;
  if (typeof v !== "string") return v;
  const t = v.trim();
  return t === "" ? undefined : t;
}

function optionalText(field: string, max: number) {
  return z.preprocess(
    absentIfBlank,
    z
      .string({ error: `${field} must be a string; send it as JSON text or leave it out` })
      .max(max, { error: `${field} must be at most ${max} characters long; shorten it or leave it out` })
      .optional(),
  );
}

function requiredText(field: string, max: number, requiredMessage: string) {
  return z.preprocess(
    absentIfBlank,
    z
      .string({
        error: (iss) =>
          iss.input === undefined ? requiredMessage : `${field} must be a string of at most ${max} characters`,
      })
      .max(max, { error: `${field} must be at most ${max} characters long; shorten it` }),
  );
}

export function parseLocalDateTime(s: string): { date: string } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // There is no year 0 (1 BC is followed by AD 1): PostgreSQL refuses it, and a stored report
  // whose date the read models cannot take would stop them for everyone.
  if (year < 1) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (daysInMonth === undefined || day < 1 || day > daysInMonth) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  return { date: s.slice(0, 10) };
}

function dateTime(field: string, required: boolean) {
  const invalid = `${field} must be a real date-time written as yyyy-MM-dd HH:mm:ss, e.g. ${DATE_TIME_EXAMPLE}`;
  const base = z
    .string({
      error: (iss) =>
        iss.input === undefined
          ? `${field} is required: send it written as yyyy-MM-dd HH:mm:ss, e.g. ${DATE_TIME_EXAMPLE}`
          : invalid,
    })
    .refine((s) => parseLocalDateTime(s) !== null, { error: invalid, params: { code: "date-time" } })
    .meta({
      description: "yyyy-MM-dd HH:mm:ss, a real calendar date-time",
      pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$",
      example: DATE_TIME_EXAMPLE,
    });
  return required ? z.preprocess(absentIfBlank, base) : z.preprocess(absentIfBlank, base.optional());
}

function oneOf<const T extends readonly [string, ...string[]]>(field: string, values: T) {
  return z.preprocess(
    absentIfBlank,
    z.enum(values, { error: `${field} must be one of ${values.join(", ")}` }).optional(),
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const patientSchema = z.preprocess(
  absentIfBlank,
  z
    .object(
      {
        idCard: optionalText("patient.idCard", 32),
        name: optionalText("patient.name", 100),
        hisPatientId: optionalText("patient.hisPatientId", 64),
      },
      {
        error: (iss) =>
          iss.input === undefined
            ? "patient is required: send an object with idCard or hisPatientId"
            : "patient must be an object with idCard or hisPatientId",
      },
    )
    // `when` lets this run alongside field errors, so all problems are listed in one answer.
    .refine((p) => p.idCard !== undefined || p.hisPatientId !== undefined, {
      error: "patient must identify the patient: send idCard or hisPatientId",
      when: (payload) => isRecord(payload.value),
      params: { code: "patient-unidentified" },
    }),
);

const specimenSchema = z.preprocess(
  absentIfBlank,
  z
    .string({ error: "specimen must be an upper-case token such as SERUM or WHOLE_BLOOD" })
    .max(32, { error: "specimen must be at most 32 characters long, e.g. SERUM or WHOLE_BLOOD" })
    .regex(/^[A-Z][A-Z0-9_]*$/, {
      error:
        "specimen must be an upper-case token of letters, digits and _ starting with a letter, e.g. SERUM or WHOLE_BLOOD",
    })
    .meta({ example: "SERUM" })
    .optional(),
);

const itemValueSchema = z.preprocess(
  absentIfBlank,
  z.union(
    [z.number(), z.string().max(2000, { error: "value must be at most 2000 characters long; shorten the text" })],
    {
      error: (iss) =>
        iss.input === undefined
          ? "value is required: send the result as a number, or as text for a qualitative result"
          : "value must be a number, or text for a qualitative result",
    },
  ),
);

function optionalNumber(field: string) {
  return z.preprocess(
    (v) => (v === null ? undefined : v),
    z
      .number({ error: `${field} must be a finite JSON number, e.g. 3.5, or be left out` })
      .refine(isReadableNumber, {
        error: `${field} must lie between -1e15 and 1e15, e.g. 3.5, or be left out`,
        params: { code: "number-range" },
      })
      .optional(),
  );
}

const itemObjectError = "each entry of items must be an object with itemCode or itemName and a value";
const itemIdentityRule = {
  error: "itemCode or itemName is required: send the item's code, its name, or both",
  when: (payload: { value: unknown }) => isRecord(payload.value),
  params: { code: "item-unidentified" },
};
const itemIdentified = (i: { itemCode?: unknown; itemName?: unknown }) =>
  i.itemCode !== undefined || i.itemName !== undefined;

const labItemSchema = z
  .object(
    {
      itemCode: optionalText("itemCode", 64),
      itemName: optionalText("itemName", 128),
      value: itemValueSchema,
      unit: optionalText("unit", 32),
      refLow: optionalNumber("refLow"),
      refHigh: optionalNumber("refHigh"),
      abnormalFlag: oneOf("abnormalFlag", ABNORMAL_FLAGS),
      resultType: oneOf("resultType", RESULT_TYPES),
    },
    { error: itemObjectError },
  )
  .refine(itemIdentified, itemIdentityRule)
  .refine((i) => !(typeof i.refLow === "number" && typeof i.refHigh === "number" && i.refLow > i.refHigh), {
    error: "refLow must not be greater than refHigh: check the bounds of the reference range",
    path: ["refLow"],
    when: (payload) => isRecord(payload.value),
    params: { code: "reference-range" },
  });

const examItemSchema = z
  .object(
    {
      itemCode: optionalText("itemCode", 64),
      itemName: optionalText("itemName", 128),
      value: itemValueSchema,
      unit: optionalText("unit", 32),
    },
    { error: itemObjectError },
  )
  .refine(itemIdentified, itemIdentityRule);

function itemsArray<T extends z.ZodType>(item: T, kind: string, minOne: boolean) {
  const range = minOne ? `1 to ${MAX_ITEMS}` : `at most ${MAX_ITEMS}`;
  const arr = z
    .array(item, {
      error: (iss) =>
        iss.input === undefined
          ? `items is required: send an array of ${range} ${kind} items`
          : `items must be an array of ${range} ${kind} items`,
    })
    .max(MAX_ITEMS, { error: `items must hold at most ${MAX_ITEMS} entries; split the results over several reports` });
  return minOne ? arr.min(1, { error: `items must not be empty: send at least one ${kind} item` }) : arr;
}

const commonFields = {
  externalId: requiredText(
    "externalId",
    128,
    "externalId is required: send the report's identifier in your system (1 to 128 characters)",
  ),
  reportNo: optionalText("reportNo", 64),
  patient: patientSchema,
  reportedAt: dateTime("reportedAt", true),
  status: oneOf("status", LAB_STATUSES),
  reporter: optionalText("reporter", 200),
  reviewer: optionalText("reviewer", 200),
};

export const labReportSchema = z.object({
  ...commonFields,
  panelName: optionalText("panelName", 200),
  labName: optionalText("labName", 200),
  collectedAt: dateTime("collectedAt", false),
  specimen: specimenSchema,
  items: itemsArray(labItemSchema, "lab", true),
});

export function examReportSchema(examTypeCodes: ReadonlySet<string>) {
  const codes = [...examTypeCodes];
  const listed =
    codes.slice(0, EXAM_TYPES_LISTED).join(", ") +
    (codes.length > EXAM_TYPES_LISTED
      ? ` (and ${codes.length - EXAM_TYPES_LISTED} more in GET /open/v1/dict/lab-items)`
      : "");
  const hint =
    codes.length > 0 ? `one of the dictionary's exam type codes: ${listed}` : "a code of the dictionary's examTypes";
  return z.object({
    ...commonFields,
    examType: z.preprocess(
      absentIfBlank,
      z
        .string({
          error: (iss) => (iss.input === undefined ? `examType is required: send ${hint}` : `examType must be ${hint}`),
        })
        .refine((c) => examTypeCodes.has(c), { error: `examType must be ${hint}`, params: { code: "exam-type" } })
        .meta(codes.length > 0 ? { enum: codes } : {}),
    ),
    examName: optionalText("examName", 200),
    examinedAt: dateTime("examinedAt", false),
    department: optionalText("department", 200),
    findings: optionalText("findings", 20000),
    conclusion: optionalText("conclusion", 20000),
    items: itemsArray(examItemSchema, "exam", false).optional(),
  });
}

export type LabReport = z.output<typeof labReportSchema>;
export type LabItem = LabReport["items"][number];
export type ExamReport = z.output<ReturnType<typeof examReportSchema>>;
export type ExamItem = NonNullable<ExamReport["items"]>[number];
/**
 * What is wrong with a field, as a stable code beside the sentence (issue #54), for pages to say
 * in their language: the sentence stays the sender's. Codes are only ever added; rejections stored
 * before they existed have none.
 */
export const FIELD_ERROR_CODES = [
  "required",
  "wrong-type",
  "too-long",
  "too-many",
  "too-few",
  "not-allowed",
  "format",
  "date-time",
  "number-range",
  "patient-unidentified",
  "item-unidentified",
  "reference-range",
  "exam-type",
  "not-object",
  "not-json",
  "unstorable-text",
  "invalid",
] as const;
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

export const fieldErrorSchema = z.object({
  field: z.string().meta({ description: "Path relative to the report, e.g. items[3].value" }),
  message: z.string(),
  code: z
    .enum(FIELD_ERROR_CODES)
    .optional()
    .meta({ description: "What is wrong, as a stable code (required, wrong-type, too-long, date-time, …)" }),
});
export type FieldError = z.infer<typeof fieldErrorSchema>;
/** A rejected report's result entry (contract B.2); counted in `rejected`. */
export const reportRejectionSchema = z.object({
  index: z.int(),
  externalId: z.string().nullable().meta({ description: "As sent, or null" }),
  status: z.literal("REJECTED"),
  errors: z.array(fieldErrorSchema),
});
export type ReportRejection = z.infer<typeof reportRejectionSchema>;
/**
 * An accepted report comes with its JSON text, written once and used for its content hash, for
 * the storable-text check and as the stored event's report.
 */
export type ReportValidation<T> =
  { ok: true; report: T; json: string; contentHash: string } | { ok: false; rejection: ReportRejection };

function sentExternalId(input: unknown): string | null {
  if (!isRecord(input) || typeof input.externalId !== "string") return null;
  // Cut by code points so a long id never ends in half a surrogate pair.
  return Array.from(input.externalId.trim()).slice(0, 128).join("");
}

export function validateReport<S extends z.ZodType>(
  schema: S,
  input: unknown,
  index: number,
): ReportValidation<z.output<S>> {
  const reject = (errors: FieldError[]): ReportValidation<z.output<S>> => ({
    ok: false,
    rejection: { index, externalId: sentExternalId(input), status: "REJECTED", errors },
  });
  if (!isRecord(input)) {
    return reject([{ field: "(report)", message: "each entry of reports must be a JSON object", code: "not-object" }]);
  }
  const result = schema.safeParse(input);
  if (result.success) {
    const json = JSON.stringify(result.data);
    // Checked on the accepted report: an unknown field is stripped, so its text never needs storing.
    const unstorable = mayHoldUnstorableText(json) ? unstorableTextPath(result.data) : null;
    if (unstorable) {
      const field = fieldPath(unstorable);
      return reject([
        {
          field: field || "(report)",
          message: `${field || "the report"} ${UNSTORABLE_TEXT_RULE}`,
          code: "unstorable-text",
        },
      ]);
    }
    return { ok: true, report: result.data, json, contentHash: contentHashOf(json) };
  }
  return reject(
    result.error.issues
      .slice(0, MAX_ERRORS_PER_REPORT)
      .map((issue) => ({ field: fieldPath(issue.path), message: issue.message, code: fieldErrorCode(issue, input) })),
  );
}

/** The value sent at a path of the report (undefined when absent). */
function sentAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The code of a field's problem: what the rule that broke names, else what kind of rule it was. */
function fieldErrorCode(issue: z.core.$ZodIssue, input: unknown): FieldErrorCode {
  const named = issue.code === "custom" ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  if (typeof named === "string" && (FIELD_ERROR_CODES as readonly string[]).includes(named))
    return named as FieldErrorCode;
  const sent = sentAt(input, issue.path);
  // A blank string or null counts as not sent (absentIfBlank).
  const absent = sent === undefined || sent === null || (typeof sent === "string" && sent.trim() === "");
  switch (issue.code) {
    case "invalid_type":
    case "invalid_union":
      return absent ? "required" : "wrong-type";
    case "too_big":
      return issue.origin === "array" ? "too-many" : "too-long";
    case "too_small":
      return "too-few";
    case "invalid_value":
      return "not-allowed";
    case "invalid_format":
      return "format";
    default:
      return "invalid";
  }
}

// Taken of the parsed report's JSON: parsing strips unknown fields and trims, and zod writes an
// object's keys in the schema's order whatever order they were sent in, so the plain JSON of the
// parsed report is already canonical (and several times cheaper than sorting keys).
function contentHashOf(reportJson: string): string {
  return createHash("sha256").update(reportJson, "utf8").digest("hex");
}

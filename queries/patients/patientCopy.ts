import { z } from "zod";
import {
  birthDateOf,
  explainIdCard,
  patientStreams,
  sexOf,
  type PatientEvent,
} from "../../commands/patients/events.ts";
import { readStream } from "../../db/eventStore.ts";
import type { Db } from "../../db/pool.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";
import { derivedFormulaSchema } from "./derivedResults.ts";
import type { PatientRow } from "./patients.ts";

/*
 * A patient's copy of their own data (contract G.1, PIPL art. 45): the reads behind each file of
 * the archive. Every read is a page, in its own short transaction, so a patient with years of
 * results is read a piece at a time while the archive is written, and no connection waits on a
 * slow download (src/patients/patientCopy.ts puts the pages together).
 */

/** How many rows a page of the copy reads. */
export const COPY_PAGE_ROWS = 2000;

const registrationSchema = z.object({
  event: z.enum(["REGISTERED", "UPDATED"]),
  at: localIsoDateTimeText,
  by: z.string().meta({ description: "Who registered or changed the patient" }),
  name: z.string(),
  idCard: z.string().meta({ description: "In full, as registered then" }),
  hisPatientId: z.string().nullable(),
  ward: z.string().nullable(),
  active: z.boolean(),
});

/** `patient.json`: the patient as registered, the id card in full (it is the patient's own), and every registration and change. */
export const copyPatientSchema = z
  .object({
    patientRef: z.string(),
    name: z.string(),
    idCard: z.string().meta({
      description:
        "The national identity number in full: the copy is the patient's own data (docs/patient-chart-and-alerts.md)",
    }),
    birthDate: z.string().nullable().meta({ description: "As the id card tells it, yyyy-MM-dd" }),
    sex: z.enum(["M", "F"]).nullable().meta({ description: "As the id card tells it" }),
    hisPatientId: z.string().nullable(),
    ward: z.string().nullable(),
    active: z.boolean(),
    registeredAt: localIsoDateTimeText,
    updatedAt: localIsoDateTimeText,
    registrations: z
      .array(registrationSchema)
      .meta({ description: "The registration and every change of it, oldest first" }),
    copiedAt: localIsoDateTimeText.meta({
      description: "When this copy was made: the other files hold what was known then",
    }),
  })
  .meta({ description: "patient.json of a patient's copy (contract G.1)" });
export type CopyPatient = z.infer<typeof copyPatientSchema>;

interface CopiedPatientRow extends PatientRow {
  registered_at: Date;
  updated_at: Date;
}

/**
 * The patient as registered, under the reader's ward scope: undefined when the tenant has no such
 * patient or it is of a ward outside the caller's. Its registrations are read from its stream,
 * which knows no wards: only once the read model has shown the patient.
 */
export async function copyPatient(
  reader: TenantReader,
  db: Db,
  tenant: string,
  patientRef: string,
  copiedAt: Date,
): Promise<CopyPatient | undefined> {
  const { rows } = await reader.query<CopiedPatientRow>(
    "select patient_ref, name, id_card, his_patient_id, ward, active, registered_at, updated_at from read.patients where patient_ref = $1",
    [patientRef],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { events } = await readStream<PatientEvent>(db, tenant, patientStreams.id(patientRef));
  const valid = explainIdCard(row.id_card).valid;
  return {
    patientRef: row.patient_ref,
    name: row.name,
    idCard: row.id_card,
    birthDate: valid ? birthDateOf(row.id_card) : null,
    sex: valid ? sexOf(row.id_card) : null,
    hisPatientId: row.his_patient_id,
    ward: row.ward,
    active: row.active,
    registeredAt: localIsoDateTime(row.registered_at),
    updatedAt: localIsoDateTime(row.updated_at),
    registrations: events.map((event) => ({
      event: event.type === "PatientRegistered" ? ("REGISTERED" as const) : ("UPDATED" as const),
      at: localIsoDateTime(event.recordedAt),
      by: event.metadata.actor,
      ...event.data,
    })),
    copiedAt: localIsoDateTime(copiedAt),
  };
}

/** One line of `results.ndjson`: a result of a laboratory report as sent and as the dictionary standardised it. */
export const copyLabResultSchema = z.object({
  kind: z.literal("lab"),
  externalId: z.string().meta({ description: "The report's externalId (GET /api/history/lab/{externalId})" }),
  reportNo: z.string().nullable(),
  panelName: z.string().nullable(),
  specimen: z.string().nullable(),
  labName: z.string().nullable(),
  status: z.string().nullable(),
  collectedAt: localIsoDateTimeText.nullable(),
  reportedAt: localIsoDateTimeText,
  itemIndex: z.int().meta({ description: "The item's place in the report's items, from 0" }),
  itemCode: z.string().nullable(),
  itemName: z.string().nullable(),
  value: z.union([z.number(), z.string()]).nullable().meta({ description: "As the laboratory sent it" }),
  unit: z.string().nullable().meta({ description: "As the laboratory sent it" }),
  resultType: z.string().nullable(),
  refLow: z.number().nullable(),
  refHigh: z.number().nullable(),
  flag: z.string().nullable().meta({ description: "The laboratory's abnormal flag (L, H, LL, HH, N, A), as sent" }),
  stdCode: z
    .string()
    .nullable()
    .meta({ description: "The dictionary item the result counts as; null when none matched it" }),
  stdName: z.string().nullable(),
  stdValue: z.number().nullable().meta({ description: "The value in the item's standard unit" }),
  stdUnit: z.string().nullable(),
  unitStatus: z.string().meta({ description: "How the sent unit was brought to the standard one" }),
});

/** One line of `results.ndjson`: a value the service derived (contract F.2), marked as such. */
export const copyDerivedResultSchema = z.object({
  kind: z.literal("derived"),
  derived: z.literal(true),
  day: z.string().meta({ description: "The day of collection it belongs to, yyyy-MM-dd" }),
  at: localIsoDateTimeText.meta({ description: "When its newest input was collected (else reported)" }),
  stdCode: z.string(),
  stdValue: z.number(),
  stdUnit: z.string(),
  formula: derivedFormulaSchema,
});

/** One line of `results.ndjson`: an examination report, its few measured items with it. */
export const copyExamReportSchema = z.object({
  kind: z.literal("exam"),
  externalId: z.string().meta({ description: "The report's externalId (GET /api/history/exam/{externalId})" }),
  reportNo: z.string().nullable(),
  examType: z.string(),
  examName: z.string().nullable(),
  examinedAt: localIsoDateTimeText.nullable(),
  reportedAt: localIsoDateTimeText,
  status: z.string().nullable(),
  department: z.string().nullable(),
  reporter: z.string().nullable(),
  reviewer: z.string().nullable(),
  findings: z.string().nullable(),
  conclusion: z.string().nullable(),
  items: z
    .array(z.record(z.string(), z.unknown()))
    .meta({ description: "The measured items as sent (itemCode, itemName, value, unit)" }),
});

export const copyResultLineSchema = z
  .discriminatedUnion("kind", [copyLabResultSchema, copyDerivedResultSchema, copyExamReportSchema])
  .meta({
    description:
      "A line of results.ndjson of a patient's copy (contract G.1): every laboratory result oldest first, then " +
      "the derived values, then the examination reports",
  });
export type CopyLabResult = z.infer<typeof copyLabResultSchema>;
export type CopyDerivedResult = z.infer<typeof copyDerivedResultSchema>;
export type CopyExamReport = z.infer<typeof copyExamReportSchema>;

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS'`;

/** Where a page of laboratory results ends: the moment (as PostgreSQL writes it), the report, the item. */
export type LabResultKey = [string, string, number];

interface LabResultRow {
  external_id: string;
  report_no: string | null;
  panel_name: string | null;
  specimen: string | null;
  lab_name: string | null;
  status: string | null;
  collected_at: string | null;
  reported_at: string;
  item_index: number;
  item_code: string | null;
  item_name: string | null;
  value_num: number | null;
  value_text: string | null;
  unit: string | null;
  result_type: string | null;
  ref_low: number | null;
  ref_high: number | null;
  abnormal_flag: string | null;
  std_code: string | null;
  std_name: string | null;
  std_value: number | null;
  std_unit: string | null;
  unit_status: string;
  at_key: string;
}

/** A page of the patient's laboratory results, by when collected (else reported), after `after`. */
export async function copyLabResults(
  reader: TenantReader,
  patientRef: string,
  after: LabResultKey | null,
): Promise<{ lines: CopyLabResult[]; next: LabResultKey | null }> {
  const { rows } = await reader.query<LabResultRow>(
    `select r.external_id, p.report_no, p.panel_name, p.specimen, p.lab_name, p.status,
            to_char(r.collected_at, ${ISO}) as collected_at, to_char(r.reported_at, ${ISO}) as reported_at, r.item_index,
            r.item_code, r.item_name, r.value_num, r.value_text, r.unit, r.result_type, r.ref_low, r.ref_high, r.abnormal_flag,
            r.std_code, r.std_name, r.std_value, r.std_unit, r.unit_status, coalesce(r.collected_at, r.reported_at)::text as at_key
     from read.lab_results r left join read.lab_reports p on p.external_id = r.external_id
     where r.patient_ref = $1
       and ($2::timestamp is null or (coalesce(r.collected_at, r.reported_at), r.external_id, r.item_index) > ($2::timestamp, $3::text, $4::int))
     order by coalesce(r.collected_at, r.reported_at), r.external_id, r.item_index
     limit $5::int`,
    [patientRef, after?.[0] ?? null, after?.[1] ?? null, after?.[2] ?? null, COPY_PAGE_ROWS],
  );
  const last = rows.at(-1);
  return {
    lines: rows.map((row) => ({
      kind: "lab",
      externalId: row.external_id,
      reportNo: row.report_no,
      panelName: row.panel_name,
      specimen: row.specimen,
      labName: row.lab_name,
      status: row.status,
      collectedAt: row.collected_at,
      reportedAt: row.reported_at,
      itemIndex: row.item_index,
      itemCode: row.item_code,
      itemName: row.item_name,
      value: row.value_num ?? row.value_text,
      unit: row.unit,
      resultType: row.result_type,
      refLow: row.ref_low,
      refHigh: row.ref_high,
      flag: row.abnormal_flag,
      stdCode: row.std_code,
      stdName: row.std_name,
      stdValue: row.std_value,
      stdUnit: row.std_unit,
      unitStatus: row.unit_status,
    })),
    next: rows.length === COPY_PAGE_ROWS && last ? [last.at_key, last.external_id, last.item_index] : null,
  };
}

/** The first and last years of the patient's results (of collection, else report): the span derived values are worked out over. */
export async function resultYears(
  reader: TenantReader,
  patientRef: string,
): Promise<{ first: number; last: number } | null> {
  const { rows } = await reader.query<{ first: number | null; last: number | null }>(
    `select extract(year from min(coalesce(collected_on, reported_on)))::int as first, extract(year from max(coalesce(collected_on, reported_on)))::int as last
     from read.lab_results where patient_ref = $1`,
    [patientRef],
  );
  const { first, last } = rows[0] ?? { first: null, last: null };
  return first === null || last === null ? null : { first, last };
}

/** Where a page of reports ends: the moment reported, the report. */
export type ReportKey = [string, string];

interface ExamRow {
  external_id: string;
  report_no: string | null;
  exam_type: string;
  exam_name: string | null;
  examined_at: string | null;
  reported_at: string;
  status: string | null;
  department: string | null;
  reporter: string | null;
  reviewer: string | null;
  findings: string | null;
  conclusion: string | null;
  items: Array<Record<string, unknown>>;
  at_key: string;
}

/** A page of the patient's examination reports, by when reported, after `after`. */
export async function copyExamReports(
  reader: TenantReader,
  patientRef: string,
  after: ReportKey | null,
): Promise<{ lines: CopyExamReport[]; next: ReportKey | null }> {
  const { rows } = await reader.query<ExamRow>(
    `select external_id, report_no, exam_type, exam_name, to_char(examined_at, ${ISO}) as examined_at, to_char(reported_at, ${ISO}) as reported_at,
            status, department, reporter, reviewer, findings, conclusion, items, reported_at::text as at_key
     from read.exam_reports
     where patient_ref = $1 and ($2::timestamp is null or (reported_at, external_id) > ($2::timestamp, $3::text))
     order by reported_at, external_id
     limit $4::int`,
    [patientRef, after?.[0] ?? null, after?.[1] ?? null, COPY_PAGE_ROWS],
  );
  const last = rows.at(-1);
  return {
    lines: rows.map(({ at_key: _, ...row }) => ({
      kind: "exam",
      externalId: row.external_id,
      reportNo: row.report_no,
      examType: row.exam_type,
      examName: row.exam_name,
      examinedAt: row.examined_at,
      reportedAt: row.reported_at,
      status: row.status,
      department: row.department,
      reporter: row.reporter,
      reviewer: row.reviewer,
      findings: row.findings,
      conclusion: row.conclusion,
      items: row.items,
    })),
    next: rows.length === COPY_PAGE_ROWS && last ? [last.at_key, last.external_id] : null,
  };
}

/** A page of the externalIds of the patient's reports of one kind, oldest reported first, after `after`. */
export async function copyReportIds(
  reader: TenantReader,
  kind: "lab" | "exam",
  patientRef: string,
  after: ReportKey | null,
): Promise<{ externalIds: string[]; next: ReportKey | null }> {
  const table = kind === "lab" ? "read.lab_reports" : "read.exam_reports";
  const { rows } = await reader.query<{ external_id: string; at_key: string }>(
    `select external_id, reported_at::text as at_key from ${table}
     where patient_ref = $1 and ($2::timestamp is null or (reported_at, external_id) > ($2::timestamp, $3::text))
     order by reported_at, external_id
     limit $4::int`,
    [patientRef, after?.[0] ?? null, after?.[1] ?? null, COPY_PAGE_ROWS],
  );
  const last = rows.at(-1);
  return {
    externalIds: rows.map((row) => row.external_id),
    next: rows.length === COPY_PAGE_ROWS && last ? [last.at_key, last.external_id] : null,
  };
}

import { reportKinds } from "../../commands/ingestion/reportKinds.ts";
import type { Db } from "../../db/pool.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { readAsTenant, type TenantReader } from "../../db/tenantScope.ts";
import { patientAccessLog, type PatientAccessKey } from "../../queries/access/accessLog.ts";
import { patientAlerts, type PatientAlertKey } from "../../queries/alerts/alerts.ts";
import { mappingTimeline } from "../../queries/dictionary/itemMappings.ts";
import { reportHistory } from "../../queries/ingestion/reportHistory.ts";
import { formulasInForce, formulaOf, patientDerivedValues } from "../../queries/patients/derivedResults.ts";
import {
  COPY_PAGE_ROWS,
  copyExamReports,
  copyLabResults,
  copyReportIds,
  resultYears,
  type CopyDerivedResult,
  type CopyPatient,
  type LabResultKey,
  type ReportKey,
} from "../../queries/patients/patientCopy.ts";
import type { StreamedZip, ZipFileWriter } from "../http/streamedZip.ts";

/*
 * The files of a patient's copy (contract G.1), written into the archive one after another, each
 * a page at a time: what the patient is registered as, every result, the history of every report,
 * the alerts and who was shown the patient. Every read runs under the caller's ward scope, as the
 * route that asked for the copy does (db/wardScope.ts).
 */

export interface PatientCopySource {
  db: Db;
  dictionary: Dictionary;
  tenant: string;
  /** The patient as registered, read before the answer began (an unknown patient answers 404). */
  patient: CopyPatient;
}

/** The files in the order they are written, as docs/api-reference.md lists them. */
export const PATIENT_COPY_FILES = [
  "patient.json",
  "results.ndjson",
  "history.json",
  "alerts.json",
  "access-log.json",
] as const;

export async function writePatientCopy(zip: StreamedZip, source: PatientCopySource): Promise<void> {
  const read = <T>(work: (reader: TenantReader) => Promise<T>) => readAsTenant(source.db, source.tenant, work);
  const patientRef = source.patient.patientRef;
  await zip.file("patient.json", (file) => file.write(`${JSON.stringify(source.patient, null, 2)}\n`));
  await zip.file("results.ndjson", (file) => writeResults(file, read, patientRef));
  await zip.file("history.json", (file) => writeHistories(file, read, source, patientRef));
  await zip.file("alerts.json", async (file) => {
    const alerts = jsonArray(file);
    let after: PatientAlertKey | null = null;
    do {
      const page = await read((reader) => patientAlerts(reader, source.dictionary, patientRef, after, COPY_PAGE_ROWS));
      for (const alert of page.alerts) await alerts.item(alert);
      after = page.next;
    } while (after);
    await alerts.end();
  });
  await zip.file("access-log.json", async (file) => {
    const records = jsonArray(file);
    let after: PatientAccessKey | null = null;
    do {
      const rows = await read((reader) =>
        patientAccessLog(reader, patientRef, { from: null, before: null }, { limit: COPY_PAGE_ROWS, after }),
      );
      for (const { key: _, ...record } of rows) await records.item(record);
      after = rows.length === COPY_PAGE_ROWS ? rows.at(-1)!.key : null;
    } while (after);
    await records.end();
  });
  zip.end();
}

type Read = <T>(work: (reader: TenantReader) => Promise<T>) => Promise<T>;

/** Laboratory results oldest first, then the values derived from them year by year, then the examination reports. */
async function writeResults(file: ZipFileWriter, read: Read, patientRef: string): Promise<void> {
  const line = (value: unknown) => file.write(`${JSON.stringify(value)}\n`);
  let lab: LabResultKey | null = null;
  do {
    const page = await read((reader) => copyLabResults(reader, patientRef, lab));
    for (const result of page.lines) await line(result);
    lab = page.next;
  } while (lab);

  // A derived value belongs to one day, so a year at a time gives every value once, in memory a year's worth.
  const years = await read((reader) => resultYears(reader, patientRef));
  const formulas = years ? await read((reader) => formulasInForce(reader, null)) : [];
  for (let year = years?.first ?? 0; years && formulas.length > 0 && year <= years.last; year++) {
    const yearText = String(year).padStart(4, "0");
    const values = await read((reader) =>
      patientDerivedValues(reader, patientRef, formulas, `${yearText}-01-01`, `${yearText}-12-31`),
    );
    for (const value of values) {
      await line({
        kind: "derived",
        derived: true,
        day: value.day,
        at: value.at,
        stdCode: value.stdCode,
        stdValue: value.value,
        stdUnit: value.unit,
        formula: formulaOf(value),
      } satisfies CopyDerivedResult);
    }
  }

  let exam: ReportKey | null = null;
  do {
    const page = await read((reader) => copyExamReports(reader, patientRef, exam));
    for (const report of page.lines) await line(report);
    exam = page.next;
  } while (exam);
}

/** The history (contract D.1) of each of the patient's reports: laboratory reports, then examination reports, each oldest first. */
async function writeHistories(
  file: ZipFileWriter,
  read: Read,
  source: PatientCopySource,
  patientRef: string,
): Promise<void> {
  const histories = jsonArray(file);
  for (const kind of [reportKinds.lab, reportKinds.exam]) {
    let after: ReportKey | null = null;
    do {
      const page = await read((reader) => copyReportIds(reader, kind.name, patientRef, after));
      for (const externalId of page.externalIds) {
        const timeline = kind.name === "lab" ? await read((reader) => mappingTimeline(reader, externalId)) : undefined;
        const history = await reportHistory(source.db, source.tenant, kind, externalId, timeline);
        if (history) await histories.item(history);
      }
      after = page.next;
    } while (after);
  }
  await histories.end();
}

/** A JSON array written an element at a time. */
function jsonArray(file: ZipFileWriter): { item(value: unknown): Promise<void>; end(): Promise<void> } {
  let first = true;
  return {
    item(value) {
      const text = `${first ? "[\n" : ",\n"}${JSON.stringify(value, null, 2)}`;
      first = false;
      return file.write(text);
    },
    end: () => file.write(first ? "[]\n" : "\n]\n"),
  };
}

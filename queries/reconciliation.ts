import { createHash } from "node:crypto";
import { z } from "zod";
import type { TenantReader } from "../db/tenantScope.ts";
import { localDateTimeText } from "./localDateTime.ts";

/** Contract B.5: the `data` of `GET /open/v1/reconcile/{lab|exam}`. */
export const reconciliationSchema = z.object({
  date: z.string().meta({ example: "2026-03-01" }),
  labReportCount: z.int().meta({ description: "Stored lab reports of the day (dismissed included)" }),
  examReportCount: z.int().meta({ description: "Stored exam reports of the day (dismissed included)" }),
  unmatchedCount: z.int().meta({ description: "Lab and exam reports of the day still awaiting claim" }),
  externalIdDigest: z.string().meta({ description: 'sha256: + hex(sha256(externalIds.join("\\n")))', example: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" }),
  externalIds: z.array(z.string()).meta({ description: "The externalIds of the day (lab or exam, as the path says), sorted by code point" }),
});
export type Reconciliation = z.infer<typeof reconciliationSchema>;

/**
 * What we hold for one day (the date part of each report's current reportedAt), for a sender to
 * compare with what it issued. `collate "C"` sorts by code point, as the digest requires.
 */
export async function reconciliationByDay(reader: TenantReader, kind: "lab" | "exam", date: string): Promise<Reconciliation> {
  const table = kind === "lab" ? "read.lab_reports" : "read.exam_reports";
  // One statement, so the ids, the counts and the digest describe the same moment of the read model.
  const { rows: [day] } = await reader.query(
    `select (select coalesce(array_agg(external_id order by external_id collate "C"), '{}') from ${table} where report_day = $1) as ids,
            (select count(*) from read.lab_reports where report_day = $1)::int as lab,
            (select count(*) from read.exam_reports where report_day = $1)::int as exam,
            ((select count(*) from read.lab_reports where report_day = $1 and not matched and dismissed_at is null) +
             (select count(*) from read.exam_reports where report_day = $1 and not matched and dismissed_at is null))::int as unmatched`,
    [date],
  );
  return answer(date, day.ids as string[], day.lab, day.exam, day.unmatched);
}

function answer(date: string, externalIds: string[], lab: number, exam: number, unmatched: number): Reconciliation {
  return {
    date,
    labReportCount: lab,
    examReportCount: exam,
    unmatchedCount: unmatched,
    externalIdDigest: `sha256:${createHash("sha256").update(externalIds.join("\n"), "utf8").digest("hex")}`,
    externalIds,
  };
}

const asOfField = localDateTimeText.meta({ description: "Only with ?asOf= (contract D.3): the moment answered for; a moment not yet come is answered as now" });
export type ReconciliationAsOf = Reconciliation & { asOf: string };
/** The documented answer: B.5's, and `asOf` when it was asked for. */
export const reconciliationAnswerSchema = reconciliationSchema.extend({ asOf: asOfField.optional() });

/**
 * The answer the call would have given at `asOf` (contract D.3): what had been stored by the end
 * of that second counts, each report on the day its reportedAt had then, awaiting a patient or not
 * as it then did. From the lab and exam report days (projections/reportDays.ts), whose times are
 * the events' own.
 */
export async function reconciliationAsOf(reader: TenantReader, kind: "lab" | "exam", date: string, asOf: Date, shownAsOf: string): Promise<ReconciliationAsOf> {
  const { rows } = await reader.query(
    `select kind, external_id, unmatched from (
       select 'lab' as kind, external_id, unmatched from read.lab_report_days
       where report_day = $1 and valid_from < $2 and (valid_to is null or valid_to >= $2)
       union all
       select 'exam', external_id, unmatched from read.exam_report_days
       where report_day = $1 and valid_from < $2 and (valid_to is null or valid_to >= $2)
     ) then_held
     order by external_id collate "C"`,
    [date, new Date(asOf.getTime() + 1000)],
  );
  const externalIds = rows.filter((row) => row.kind === kind).map((row) => row.external_id as string);
  const count = (which: string) => rows.filter((row) => row.kind === which).length;
  return { ...answer(date, externalIds, count("lab"), count("exam"), rows.filter((row) => row.unmatched).length), asOf: shownAsOf };
}

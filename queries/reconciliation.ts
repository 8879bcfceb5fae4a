import { createHash } from "node:crypto";
import { z } from "zod";
import type { TenantReader } from "../db/tenantScope.ts";

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
  const externalIds = day.ids as string[];
  return {
    date,
    labReportCount: day.lab,
    examReportCount: day.exam,
    unmatchedCount: day.unmatched,
    externalIdDigest: `sha256:${createHash("sha256").update(externalIds.join("\n"), "utf8").digest("hex")}`,
    externalIds,
  };
}

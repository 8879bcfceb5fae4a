import { createHash } from "node:crypto";
import type { TenantReader } from "../db/tenantScope.ts";

export interface Reconciliation {
  date: string;
  labReportCount: number;
  examReportCount: number;
  unmatchedCount: number;
  externalIdDigest: string;
  externalIds: string[];
}

/**
 * What we hold for one day (the date part of each report's current reportedAt), for a sender to
 * compare with what it issued. `collate "C"` sorts by code point, as the digest requires.
 */
export async function reconciliationByDay(reader: TenantReader, kind: "lab" | "exam", date: string): Promise<Reconciliation> {
  const table = kind === "lab" ? "read.lab_reports" : "read.exam_reports";
  const ids = await reader.query(`select external_id from ${table} where report_day = $1 order by external_id collate "C"`, [date]);
  const counts = await reader.query(
    `select (select count(*) from read.lab_reports where report_day = $1)::int as lab,
            (select count(*) from read.exam_reports where report_day = $1)::int as exam,
            ((select count(*) from read.lab_reports where report_day = $1 and not matched and dismissed_at is null) +
             (select count(*) from read.exam_reports where report_day = $1 and not matched and dismissed_at is null))::int as unmatched`,
    [date],
  );
  const externalIds = ids.rows.map((row) => row.external_id as string);
  return {
    date,
    labReportCount: counts.rows[0].lab,
    examReportCount: counts.rows[0].exam,
    unmatchedCount: counts.rows[0].unmatched,
    externalIdDigest: `sha256:${createHash("sha256").update(externalIds.join("\n"), "utf8").digest("hex")}`,
    externalIds,
  };
}

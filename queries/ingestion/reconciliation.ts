import { createHash } from "node:crypto";
import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localDateTimeText } from "../../db/localDateTime.ts";

/** Contract B.5: the `data` of `GET /open/v1/reconcile/{lab|exam}`. */
export const reconciliationSchema = z.object({
  date: z.string().meta({ example: "2026-03-01" }),
  labReportCount: z.int().meta({ description: "Stored lab reports of the day (dismissed included)" }),
  examReportCount: z.int().meta({ description: "Stored exam reports of the day (dismissed included)" }),
  unmatchedCount: z.int().meta({ description: "Lab and exam reports of the day still awaiting claim" }),
  externalIdDigest: z.string().meta({ description: 'sha256: + hex(sha256(externalIds.join("\\n")))', example: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" }),
  externalIds: z.array(z.string()).meta({ description: "The externalIds of the day (lab or exam, as the path says), sorted by code point" }),
  sealed: z.boolean().meta({
    description: "Contract D.2: every report of externalIds has its newest event (the version counted, or a later claim or dismissal) in a sealed ledger block; true for a day without reports",
  }),
  ledgerRoot: z.string().nullable().meta({
    description: "Contract D.2: the Merkle root (hex SHA-256) of the newest sealed ledger block holding one of those events, or null when none is sealed yet; keep it as a receipt",
    example: "5b41362bc82b7f3d56edc5a306db22105707d01ff4819e26faef9724a2d406c9",
  }),
});
export type Reconciliation = z.infer<typeof reconciliationSchema>;

/**
 * What we hold for one day (the date part of each report's current reportedAt), for a sender to
 * compare with what it issued. `collate "C"` sorts by code point, as the digest requires.
 */
export async function reconciliationByDay(reader: TenantReader, kind: "lab" | "exam", date: string): Promise<Reconciliation> {
  const table = kind === "lab" ? "read.lab_reports" : "read.exam_reports";
  // One statement, so the ids, the counts, the digest and the receipt describe the same moment of the read model.
  const { rows: [day] } = await reader.query(
    `with held as materialized (select external_id, ledger_tx, ledger_position from ${table} where report_day = $1),
     ${RECEIPT_CTES}
     select (select coalesce(array_agg(external_id order by external_id collate "C"), '{}') from held) as ids,
            receipt.unsealed, receipt.ledger_root,
            (select count(*) from read.lab_reports where report_day = $1)::int as lab,
            (select count(*) from read.exam_reports where report_day = $1)::int as exam,
            ((select count(*) from read.lab_reports where report_day = $1 and not matched and dismissed_at is null) +
             (select count(*) from read.exam_reports where report_day = $1 and not matched and dismissed_at is null))::int as unmatched
     from receipt`,
    [date],
  );
  return answer(date, day.ids as string[], day.lab, day.exam, day.unmatched, day);
}

/*
 * The ledger receipt (contract D.2) of the reports in `held` (external_id, ledger_tx,
 * ledger_position: each report's newest event). Blocks seal events in the order
 * (transaction id, position) up to the end of the newest block, so an event is sealed when it
 * lies at or before that end, and its block is the first whose end is at or after it: one pass
 * over the day's reports, then one index lookup among the blocks.
 */
const RECEIPT_CTES = `
  seal as (select last_tx, last_tx_position from read.ledger_seals order by no desc limit 1),
  receipt_scan as (
    select count(*) filter (where s.last_tx is null or (h.ledger_tx, h.ledger_position) > (s.last_tx, s.last_tx_position))::int as unsealed,
           max(array[h.ledger_tx::text::numeric, h.ledger_position::numeric])
             filter (where (h.ledger_tx, h.ledger_position) <= (s.last_tx, s.last_tx_position)) as newest_sealed
    from held h left join seal s on true
  ),
  receipt as (
    select unsealed,
           (select b.root from read.ledger_seals b
            where (b.last_tx, b.last_tx_position) >= (newest_sealed[1]::text::xid8, newest_sealed[2]::bigint)
            order by b.last_tx, b.last_tx_position limit 1) as ledger_root
    from receipt_scan
  )`;

function answer(date: string, externalIds: string[], lab: number, exam: number, unmatched: number, receipt: { unsealed: number; ledger_root: string | null }): Reconciliation {
  return {
    date,
    labReportCount: lab,
    examReportCount: exam,
    unmatchedCount: unmatched,
    externalIdDigest: `sha256:${createHash("sha256").update(externalIds.join("\n"), "utf8").digest("hex")}`,
    externalIds,
    sealed: receipt.unsealed === 0,
    ledgerRoot: receipt.ledger_root,
  };
}

const asOfField = localDateTimeText.meta({ description: "Only with ?asOf= (contract D.3): the moment answered for; a moment not yet come is answered as now" });
export type ReconciliationAsOf = Reconciliation & { asOf: string };
/** The documented answer: B.5's, and `asOf` when it was asked for. */
export const reconciliationAnswerSchema = reconciliationSchema.extend({ asOf: asOfField.optional() });

/**
 * The answer the call would have given at `asOf` (contract D.3): what had been stored by the end
 * of that second counts, each report on the day its reportedAt had then, awaiting a patient or not
 * as it then did. From the lab and exam report days (projections/ingestion/reportDays.ts), whose times are
 * the events' own.
 */
export async function reconciliationAsOf(reader: TenantReader, kind: "lab" | "exam", date: string, asOf: Date, shownAsOf: string): Promise<ReconciliationAsOf> {
  const { rows } = await reader.query(
    `with then_held as materialized (
       select 'lab' as kind, external_id, unmatched, ledger_tx, ledger_position from read.lab_report_days
       where report_day = $1 and valid_from < $2 and (valid_to is null or valid_to >= $2)
       union all
       select 'exam', external_id, unmatched, ledger_tx, ledger_position from read.exam_report_days
       where report_day = $1 and valid_from < $2 and (valid_to is null or valid_to >= $2)
     ),
     held as (select * from then_held where kind = $3),
     ${RECEIPT_CTES}
     select t.kind, t.external_id, t.unmatched, r.unsealed, r.ledger_root
     from receipt r left join then_held t on true
     order by t.external_id collate "C"`,
    [date, new Date(asOf.getTime() + 1000), kind],
  );
  const held = rows.filter((row) => row.kind !== null);
  const externalIds = held.filter((row) => row.kind === kind).map((row) => row.external_id as string);
  const count = (which: string) => held.filter((row) => row.kind === which).length;
  return { ...answer(date, externalIds, count("lab"), count("exam"), held.filter((row) => row.unmatched).length, rows[0]!), asOf: shownAsOf };
}

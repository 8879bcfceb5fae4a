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
  externalIdDigest: z.string().meta({
    description: 'sha256: + hex(sha256(externalIds.join("\\n")))',
    example: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  }),
  externalIds: z
    .array(z.string())
    .meta({ description: "The externalIds of the day (lab or exam, as the path says), sorted by code point" }),
  sealed: z.boolean().meta({
    description:
      "Contract D.2: every report of externalIds has its newest event (the version counted, or a later claim " +
      "or dismissal) in a sealed ledger block; true for a day without reports",
  }),
  ledgerRoot: z
    .string()
    .nullable()
    .meta({
      description:
        "Contract D.2: the Merkle root (hex SHA-256) of the newest sealed ledger block holding one of those " +
        "events, or null when none is sealed yet; keep it as a receipt",
      example: "5b41362bc82b7f3d56edc5a306db22105707d01ff4819e26faef9724a2d406c9",
    }),
});
export type Reconciliation = z.infer<typeof reconciliationSchema>;

/** Runs `work` in a short read of the caller's tenant (readAsTenant): each page of a day is read on its own. */
export type TenantRead = <T>(work: (reader: TenantReader) => Promise<T>) => Promise<T>;

/** Everything of a day's answer but its date and its ids, known once every id has been read. */
export type ReconciliationTotals = Omit<Reconciliation, "date" | "externalIds">;

/** A day's externalIds a page at a time, then what the answer says of them (reconciliationOf). */
export interface ReconciliationPages {
  /** The next ids in code-point order; null once every id has been read. */
  next(): Promise<string[] | null>;
  /** After the last page: the counts, the digest of exactly the ids read, and the receipt. */
  totals(): Promise<ReconciliationTotals>;
}

/** Ids a page reads: some 150 KB of text, whatever the day holds. */
export const RECONCILIATION_PAGE = 5000;

/**
 * What we hold for one day (the date part of each report's current reportedAt), for a sender to
 * compare with what it issued, read a page at a time in short reads so that neither the process
 * nor a database connection holds a whole day for a slow reader (contract E.6). With `asOf`
 * (contract D.3) the answer the call would have given at that moment (what had been stored by the
 * end of its second counts, each report on the day its reportedAt then had), from the lab and exam
 * report days (projections/ingestion/reportDays.ts), whose times are the events' own.
 *
 * The digest and the path's own count are those of exactly the ids read, so they always agree with
 * the list; a report stored while a day is being read may or may not be in it (the other counts
 * and the receipt are read after the last page). `collate "C"` sorts by code point, as the digest
 * requires, and is what each table's day index (reportTable, createReportDays) is ordered by.
 */
export function reconciliationOf(
  read: TenantRead,
  kind: "lab" | "exam",
  date: string,
  asOf: Date | null = null,
): ReconciliationPages {
  const digest = createHash("sha256");
  const receipt = new ReceiptOfPages();
  let count = 0;
  let after: string | null = null;
  let done = false;
  // What had been stored by the end of the second asked for.
  const before = asOf && new Date(asOf.getTime() + 1000);
  return {
    async next() {
      if (done) return null;
      const rows = await read((reader) =>
        before ? pageAsOf(reader, kind, date, before, after) : pageNow(reader, kind, date, after),
      );
      if (rows.length < RECONCILIATION_PAGE) done = true;
      if (rows.length === 0) return null;
      const ids = rows.map((row) => row.external_id);
      for (const id of ids) digest.update(count++ === 0 ? id : `\n${id}`, "utf8");
      receipt.add(rows);
      after = ids.at(-1)!;
      return ids;
    },
    async totals() {
      const newest = receipt.newestSealed();
      const {
        rows: [day],
      } = await read((reader) =>
        reader.query(
          `with ${before ? heldThen("lab", "$1", "$4") : "lab as (select matched, dismissed_at from read.lab_reports where report_day = $1)"},
                ${before ? heldThen("exam", "$1", "$4") : "exam as (select matched, dismissed_at from read.exam_reports where report_day = $1)"}
           select (select count(*) from lab)::int as lab, (select count(*) from exam)::int as exam,
                  ((select count(*) from lab where not matched and dismissed_at is null)
                    + (select count(*) from exam where not matched and dismissed_at is null))::int as unmatched,
                  (select b.root from read.ledger_seals b
                   where $2::xid8 is not null and (b.last_tx, b.last_tx_position) >= ($2::xid8, $3::bigint)
                   order by b.last_tx, b.last_tx_position limit 1) as ledger_root`,
          [date, newest?.tx ?? null, newest?.position ?? null, ...(before ? [before] : [])],
        ),
      );
      return {
        labReportCount: kind === "lab" ? count : day.lab,
        examReportCount: kind === "exam" ? count : day.exam,
        unmatchedCount: day.unmatched,
        externalIdDigest: `sha256:${digest.digest("hex")}`,
        sealed: receipt.unsealed === 0,
        ledgerRoot: newest ? day.ledger_root : null,
      };
    },
  };
}

/** A report's id and its newest event (the version counted, or a later claim or dismissal), and whether the newest seal covers that event. */
interface HeldRow {
  external_id: string;
  tx: string;
  position: string;
  sealed: boolean;
}

/*
 * Blocks seal events in the order (transaction id, position) up to the end of the newest block
 * (contract D.2), so an event is sealed when it lies at or before that end, and its block is the
 * first whose end is at or after it. Each page is compared with the newest seal when it is read;
 * seals only grow, so a report sealed then is sealed after.
 */
const SEALED_PAGE = (held: string) => `
  with seal as (select last_tx, last_tx_position from read.ledger_seals order by no desc limit 1)
  select h.external_id, h.ledger_tx::text as tx, h.ledger_position::text as position,
         coalesce((h.ledger_tx, h.ledger_position) <= (s.last_tx, s.last_tx_position), false) as sealed
  from (${held}) h left join seal s on true
  order by h.external_id collate "C"`;

async function pageNow(
  reader: TenantReader,
  kind: "lab" | "exam",
  date: string,
  after: string | null,
): Promise<HeldRow[]> {
  const { rows } = await reader.query<HeldRow>(
    SEALED_PAGE(`select external_id, ledger_tx, ledger_position from read.${kind}_reports
                 where report_day = $1 and ($2::text is null or external_id collate "C" > $2)
                 order by external_id collate "C" limit $3`),
    [date, after, RECONCILIATION_PAGE],
  );
  return rows;
}

/** The rows of `kind`'s report days that stood at `before` (exclusive) on `day`: a CTE named `kind`. */
function heldThen(kind: "lab" | "exam", day: string, before: string): string {
  return `${kind} as (select not unmatched as matched, null::timestamptz as dismissed_at, external_id, ledger_tx, ledger_position from read.${kind}_report_days
                     where report_day = ${day} and valid_from < ${before} and (valid_to is null or valid_to >= ${before}))`;
}

async function pageAsOf(
  reader: TenantReader,
  kind: "lab" | "exam",
  date: string,
  before: Date,
  after: string | null,
): Promise<HeldRow[]> {
  const { rows } = await reader.query<HeldRow>(
    SEALED_PAGE(`with ${heldThen(kind, "$1", "$2")}
                 select external_id, ledger_tx, ledger_position from ${kind}
                 where $3::text is null or external_id collate "C" > $3
                 order by external_id collate "C" limit $4`),
    [date, before, after, RECONCILIATION_PAGE],
  );
  return rows;
}

/** The receipt of the pages read so far: how many were unsealed, and the newest sealed event among the others. */
class ReceiptOfPages {
  unsealed = 0;
  private newest: { tx: bigint; position: bigint } | null = null;

  add(rows: HeldRow[]): void {
    for (const row of rows) {
      if (!row.sealed) {
        this.unsealed++;
        continue;
      }
      const at = { tx: BigInt(row.tx), position: BigInt(row.position) };
      if (!this.newest || at.tx > this.newest.tx || (at.tx === this.newest.tx && at.position > this.newest.position))
        this.newest = at;
    }
  }

  newestSealed(): { tx: string; position: string } | null {
    return this.newest && { tx: String(this.newest.tx), position: String(this.newest.position) };
  }
}

const asOfField = localDateTimeText.meta({
  description: "Only with ?asOf= (contract D.3): the moment answered for; a moment not yet come is answered as now",
});
export type ReconciliationAsOf = Reconciliation & { asOf: string };
/** The documented answer: B.5's, and `asOf` when it was asked for. */
export const reconciliationAnswerSchema = reconciliationSchema.extend({ asOf: asOfField.optional() });

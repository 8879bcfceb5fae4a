import { z } from "zod";
import { PENDING_CODES, pendingCodeOf, reportEtag } from "../../commands/ingestion/events.ts";
import type { Db } from "../../db/pool.ts";
import { maskIdCard } from "../../commands/patients/events.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTime, localIsoDateTimeText, storedMomentText } from "../../db/localDateTime.ts";

/** Contract C.4: a report awaiting claim. */
export const unmatchedEntrySchema = z.object({
  kind: z.enum(["lab", "exam"]),
  externalId: z.string(),
  reportNo: z.string().nullable(),
  patient: z.object({
    name: z.string().nullable(),
    idCard: z
      .string()
      .nullable()
      .meta({ description: "Masked: first 6 and last 4 kept", example: "110101********1234" }),
    hisPatientId: z.string().nullable(),
  }),
  pendingReason: z.string(),
  pendingCode: z.enum(PENDING_CODES).nullable().meta({
    description:
      "The reason as a stable code, for pages to translate: no-id-card, invalid-id-card, no-patient, name-differs; null for a reason written by an older version (then `pendingReason` is the text)",
    example: "no-patient",
  }),
  receivedAt: localIsoDateTimeText,
  etag: z.string().meta({
    description:
      "The report as this entry shows it (issue #51): send it as If-Match with a claim or dismissal, which is then refused (409, queue-entry-changed) if the report changed since instead of overriding someone else's decision",
    example: '"report-1"',
  }),
});
export type UnmatchedEntry = z.infer<typeof unmatchedEntrySchema>;

/** Where a row of the queue stands in its order: received at (exactly, as PostgreSQL writes it), externalId, kind. */
export const unmatchedKey = z.tuple([storedMomentText, z.string().max(200), z.enum(["lab", "exam"])]);
export type UnmatchedKey = z.infer<typeof unmatchedKey>;

/**
 * A page of the reports awaiting claim, oldest first, id cards masked: `limit` rows after `after`
 * (the caller asks one more than it answers, to know whether more remain). Each table's queue
 * index (projections/ingestion/labReports.ts, reportTable) gives its rows in this order, and each
 * table's part is limited on its own (a union of the two whole queues is sorted, not merged, by
 * the planner behind row-level security), so a page reads at most twice its rows, however long
 * the queue.
 */
export async function unmatchedQueue(
  reader: TenantReader,
  { limit, after = null }: { limit: number; after?: UnmatchedKey | null },
): Promise<Array<Omit<UnmatchedEntry, "etag"> & { key: UnmatchedKey; position: number }>> {
  // (received_at, external_id) >= the cursor's is what the index seeks; the kind settles a tie between a lab and an exam report.
  const part = (kind: "lab" | "exam") => `(
       select '${kind}' as kind, external_id, report_no, patient_name, id_card, his_patient_id, pending_reason, received_at, received_at::text as received_at_key, ledger_position
         from read.${kind}_reports
        where not matched and dismissed_at is null
          and ($1::timestamptz is null or ((received_at, external_id) >= ($1::timestamptz, $2::text) and (received_at, external_id, '${kind}') > ($1::timestamptz, $2::text, $3::text)))
        order by received_at, external_id
        limit $4::int)`;
  const { rows } = await reader.query(
    `select * from (${part("lab")} union all ${part("exam")}) queue
     order by received_at, external_id, kind
     limit $4::int`,
    [after?.[0] ?? null, after?.[1] ?? null, after?.[2] ?? null, limit],
  );
  return rows.map((row) => ({
    key: [row.received_at_key, row.external_id, row.kind],
    kind: row.kind,
    externalId: row.external_id,
    reportNo: row.report_no,
    patient: {
      name: row.patient_name,
      idCard: row.id_card ? maskIdCard(row.id_card) : null,
      hisPatientId: row.his_patient_id,
    },
    pendingReason: row.pending_reason,
    pendingCode: pendingCodeOf(row.pending_reason),
    receivedAt: localIsoDateTime(row.received_at),
    position: Number(row.ledger_position),
  }));
}

/**
 * Each entry's etag: the version of its report's stream at the event the read model shows it as
 * (its newest event folded, `ledger_position`), not the store's newest: a claim based on the entry
 * is compared with what the person saw, even when a dismissal had reached the store but not yet
 * the read model.
 */
export async function withEtags<Row extends { position: number }>(
  db: Db,
  tenant: string,
  rows: Row[],
): Promise<Array<Omit<Row, "position"> & { etag: string }>> {
  if (rows.length === 0) return [];
  const { rows: versions } = await db.query<{ position: string; stream_version: number }>(
    "select position, stream_version from events where tenant = $1 and position = any($2::bigint[])",
    [tenant, rows.map((row) => row.position)],
  );
  const versionAt = new Map(versions.map((found) => [Number(found.position), found.stream_version]));
  return rows.map(({ position, ...row }) => ({ ...row, etag: reportEtag(versionAt.get(position) ?? 0) }));
}

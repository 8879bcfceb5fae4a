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
  pendingCode: z
    .enum(PENDING_CODES)
    .nullable()
    .meta({
      description:
        "The reason as a stable code, for pages to translate: no-id-card, invalid-id-card, no-patient, " +
        "name-differs; null for a reason written by an older version (then `pendingReason` is the text)",
      example: "no-patient",
    }),
  receivedAt: localIsoDateTimeText,
  etag: z.string().meta({
    description:
      "The report as this entry shows it (issue #51): send it as If-Match with a claim or dismissal, which is " +
      "then refused (409, queue-entry-changed) if the report changed since instead of overriding " +
      "someone else's decision",
    example: '"report-1"',
  }),
});
export type UnmatchedEntry = z.infer<typeof unmatchedEntrySchema>;

/** Where a row of the queue stands in its order: received at (exactly, as PostgreSQL writes it), externalId, kind. */
export const unmatchedKey = z.tuple([storedMomentText, z.string().max(200), z.enum(["lab", "exam"])]);
export type UnmatchedKey = z.infer<typeof unmatchedKey>;

/** Which reports of the queue a page shows, and in which order (issue #54): every one, oldest first, unless asked. */
export interface QueueFilter {
  /** Newest first: where a person starts; oldest first (the default) for a host working through the queue. */
  newestFirst?: boolean;
  kind?: "lab" | "exam" | null;
  /** A text the name (spaces aside), the externalId, the report number or the masked id card contains. */
  text?: string | null;
  /**
   * The keyed hash of a whole id card (src/secrets/idCardSearchKey.ts), compared with the rows'
   * own computed in the database: the number itself never reaches a query or its log.
   */
  idCardDigest?: string | null;
}

/**
 * A page of the reports awaiting claim, id cards masked: `limit` rows after `after` (the caller
 * asks one more than it answers, to know whether more remain), oldest first or newest first, of
 * those the filter keeps. Each table's queue index (projections/ingestion/labReports.ts,
 * reportTable) gives its rows in this order, forwards or backwards, and each table's part is
 * limited on its own (a union of the two whole queues is sorted, not merged, by the planner behind
 * row-level security), so an unfiltered page reads at most twice its rows, however long the
 * queue; a search reads the queue's rows in that order until a page of them matches.
 */
export async function unmatchedQueue(
  reader: TenantReader,
  { limit, after = null }: { limit: number; after?: UnmatchedKey | null },
  filter: QueueFilter = {},
): Promise<Array<Omit<UnmatchedEntry, "etag"> & { key: UnmatchedKey; position: number }>> {
  const [direction, beyond, reached] = filter.newestFirst ? ["desc", "<", "<="] : ["asc", ">", ">="];
  const order = `received_at ${direction}, external_id ${direction}`;
  const text = filter.text?.trim() ?? "";
  // Each condition falls away when its value is null (every query is planned for its values).
  const searched = `
          and ($5::text is null
               or strpos(lower(regexp_replace(coalesce(patient_name, ''), '\\s', '', 'g')), lower($6::text)) > 0
               or strpos(lower(external_id), lower($5)) > 0
               or strpos(lower(coalesce(report_no, '')), lower($5)) > 0
               or strpos(left(id_card, 6) || '********' || right(id_card, 4), $5) > 0)
          and ($7::text is null or public.id_card_search_digest(id_card) = $7)`;
  // (received_at, external_id) >= the cursor's is what the index seeks; the kind settles a tie between a lab and an exam report.
  const part = (kind: "lab" | "exam") => `(
       select '${kind}' as kind, external_id, report_no, patient_name, id_card, his_patient_id, pending_reason,
         received_at, received_at::text as received_at_key, ledger_position
         from read.${kind}_reports
        where not matched and dismissed_at is null
          and ($1::timestamptz is null or ((received_at, external_id) ${reached} ($1::timestamptz, $2::text)
            and (received_at, external_id, '${kind}') ${beyond} ($1::timestamptz, $2::text, $3::text)))
          ${searched}
        order by ${order}
        limit $4::int)`;
  const kinds = filter.kind ? [filter.kind] : (["lab", "exam"] as const);
  const { rows } = await reader.query(
    `select * from (${kinds.map(part).join(" union all ")}) queue
     order by ${order}, kind ${direction}
     limit $4::int`,
    [
      after?.[0] ?? null,
      after?.[1] ?? null,
      after?.[2] ?? null,
      limit,
      text || null,
      text.replace(/\s+/g, "") || null,
      filter.idCardDigest ?? null,
    ],
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

/** The queue as a whole, for a page to see whether it changed without reading (and being shown) its patients. */
export const queueStateSchema = z.object({
  waiting: z.int().meta({ description: "Reports awaiting claim, lab and exam", example: 3 }),
  tag: z.string().meta({
    description:
      "Changes whenever a report joins or leaves the queue, or one in it is sent again: a page reads the queue again when it differs from the one it last saw",
    example: "3.1042",
  }),
});
export type QueueState = z.infer<typeof queueStateSchema>;

/**
 * How many wait, and a tag of the queue's state: the count and the newest event among the waiting
 * reports' (a report that arrives, or is sent again, is the newest; one that leaves changes the
 * count). Two index scans of the queues, no patient read.
 */
export async function unmatchedQueueState(reader: TenantReader): Promise<QueueState> {
  const part = (kind: string) =>
    `select count(*) as waiting, coalesce(max(ledger_position), 0) as newest from read.${kind}_reports where not matched and dismissed_at is null`;
  const { rows } = await reader.query<{ waiting: string; newest: string }>(
    `select sum(waiting)::text as waiting, max(newest)::text as newest from (${part("lab")} union all ${part("exam")}) q`,
  );
  const waiting = Number(rows[0]?.waiting ?? 0);
  return { waiting, tag: `${waiting}.${rows[0]?.newest ?? 0}` };
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

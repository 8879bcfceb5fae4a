import type pg from "pg";
import { z } from "zod";
import { BULK_FAILURE_CODES, BULK_STATUSES, bulkRejectionSchema } from "../../commands/bulk/events.ts";
import type { Db } from "../../db/pool.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localDateTime, localDateTimeText } from "../../db/localDateTime.ts";

const count = (what: string) => z.int().meta({ description: what });

/** Contract D.4: `GET /open/v1/bulk/{jobId}`. */
export const bulkJobAnswerSchema = z.object({
  jobId: z.string(),
  kind: z.enum(["lab", "exam"]),
  status: z.enum(BULK_STATUSES),
  lines: count("Reports in the body (non-blank lines)"),
  processed: count("Lines handled so far, accepted or rejected"),
  accepted: count("Lines stored (created, updated or unchanged)"),
  rejected: count("Lines refused; read them at rejected"),
  created: count("As in a push result"),
  updated: count("As in a push result"),
  unchanged: count("As in a push result"),
  unmatched: count("Accepted reports waiting in the unmatched queue for a patient"),
  createdAt: localDateTimeText,
  startedAt: localDateTimeText.nullable(),
  finishedAt: localDateTimeText.nullable(),
  reason: z.string().optional().meta({ description: "Why a FAILED job stopped" }),
  reasonCode: z.enum(BULK_FAILURE_CODES).optional().meta({
    description:
      "Why a FAILED job stopped, as a stable code for pages to word (client-gone, piece-failed); codes are only ever added",
  }),
});
export type BulkJobAnswer = z.infer<typeof bulkJobAnswerSchema>;

/** Contract D.4: `GET /open/v1/bulk/{jobId}/rejected`. */
export const bulkRejectedAnswerSchema = z.object({
  total: count("Rejected lines of the job so far"),
  items: z.array(bulkRejectionSchema),
  next: z.string().nullable().meta({
    description:
      "The cursor of the following page (send it as cursor, with the same limit and no offset), or null when this page holds the last rejected line so far",
  }),
});
export type BulkRejectedAnswer = z.infer<typeof bulkRejectedAnswerSchema>;

/** A job as the staff pages list it: the open API's answer and the name of the client that sent it. */
export const bulkJobListEntrySchema = bulkJobAnswerSchema.extend({
  client: z.string().meta({ description: "The name of the client (sending system) whose key submitted the job" }),
});
export type BulkJobListEntry = z.infer<typeof bulkJobListEntrySchema>;

const at = (value: Date | null) => (value ? localDateTime(value) : null);

/** A job of this client, or null (another client's job does not exist for it). */
export async function bulkJobOfClient(
  reader: TenantReader,
  jobId: string,
  clientId: string,
): Promise<BulkJobAnswer | null> {
  const { rows } = await reader.query("select * from read.bulk_jobs where job_id = $1 and client_id = $2", [
    jobId,
    clientId,
  ]);
  return rows[0] ? jobAnswer(rows[0]) : null;
}

/** Whether the reader's tenant has this job (row-level security hides the others'). */
export async function bulkJobExists(reader: TenantReader, jobId: string): Promise<boolean> {
  const { rowCount } = await reader.query("select 1 from read.bulk_jobs where job_id = $1", [jobId]);
  return rowCount === 1;
}

/** Where a page of jobs ends: the submission's position in the store of its last (oldest) job. */
export const bulkJobListKey = z.string().regex(/^\d{1,19}$/);
export type BulkJobListKey = z.infer<typeof bulkJobListKey>;

/** A page of the tenant's jobs, newest first, submitted before `after`'s; each with its client's name. */
export async function listBulkJobs(
  reader: TenantReader,
  { limit, after }: { limit: number; after: BulkJobListKey | null },
): Promise<Array<BulkJobListEntry & { key: BulkJobListKey }>> {
  const { rows } = await reader.query(
    `select j.*, coalesce(c.name, j.client_id) as client_name
       from read.bulk_jobs j left join read.clients c on c.client_id = j.client_id
      where $2::bigint is null or j.submitted_position < $2
      order by j.submitted_position desc limit $1`,
    [limit, after],
  );
  return rows.map((row) => {
    const { jobId, kind, ...rest } = jobAnswer(row);
    return { jobId, kind, client: row.client_name, ...rest, key: String(row.submitted_position) };
  });
}

function jobAnswer(row: pg.QueryResultRow): BulkJobAnswer {
  return {
    jobId: row.job_id,
    kind: row.kind,
    status: row.status,
    lines: row.lines,
    processed: row.processed,
    accepted: row.accepted,
    rejected: row.rejected,
    created: row.created,
    updated: row.updated,
    unchanged: row.unchanged,
    unmatched: row.unmatched,
    createdAt: localDateTime(row.created_at),
    startedAt: at(row.started_at),
    finishedAt: at(row.finished_at),
    ...(row.status === "FAILED" && row.reason ? { reason: row.reason } : {}),
    ...(row.status === "FAILED" && row.reason_code ? { reasonCode: row.reason_code } : {}),
  };
}

/** One page of a job's rejected lines, in line order. */
/** A page of a job's rejected lines in line order (offset lines skipped, or after the line `afterLine`), and the last line of the page when more follow it. */
export async function bulkJobRejections(
  reader: TenantReader,
  jobId: string,
  { offset = 0, limit, afterLine = null }: { offset?: number; limit: number; afterLine?: number | null },
): Promise<Omit<BulkRejectedAnswer, "next"> & { moreAfter: number | null }> {
  const { rows } = await reader.query(
    `with page as (select line, external_id, errors from read.bulk_job_rejections where job_id = $1
       and ($4::int is null or line > $4) order by line offset $2 limit $3)
     select (select count(*) from read.bulk_job_rejections where job_id = $1)::int as total,
            coalesce((select jsonb_agg(jsonb_build_object('line', line, 'externalId', external_id, 'errors', errors) order by line) from page), '[]') as items,
            (select max(line) from page) as last_line,
            exists (select 1 from read.bulk_job_rejections where job_id = $1 and line > (select max(line) from page)) as more`,
    [jobId, offset, limit, afterLine],
  );
  const [page] = rows;
  return { total: page.total, items: page.items, moreAfter: page.more ? page.last_line : null };
}

export interface UnfinishedJob {
  tenant: string;
  jobId: string;
  clientId: string;
}

/** Every job not yet done, of every tenant (or of one client), in submission order: what the workers have to do. */
export async function unfinishedBulkJobs(db: Db, of?: { tenant: string; clientId: string }): Promise<UnfinishedJob[]> {
  const { rows } = await db.query(
    `select tenant, job_id, client_id from read.bulk_jobs
     where status in ('QUEUED', 'RUNNING') and ($1::text is null or (tenant = $1 and client_id = $2))
     order by submitted_position`,
    [of?.tenant ?? null, of?.clientId ?? null],
  );
  return rows.map((row) => ({ tenant: row.tenant, jobId: row.job_id, clientId: row.client_id }));
}

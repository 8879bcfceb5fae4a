import { z } from "zod";
import { ACCESS_OUTCOMES } from "../../commands/access/events.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";
import type { TenantReader } from "../../db/tenantScope.ts";

/** Contract E.4: one access record as the access-log routes answer it. */
export const accessRecordSchema = z.object({
  at: localIsoDateTimeText.meta({ description: "When the answer was given" }),
  who: z.string().meta({
    description:
      'The credential\'s name; "admin" for the ADMIN_TOKEN; "anonymous" for a viewing call without a credential',
    example: "Dr. Wang",
  }),
  credential: z.string().meta({
    description:
      'The author id, client id or session subject; "admin" for the ADMIN_TOKEN; "none" without a credential',
  }),
  roles: z.array(z.string()),
  action: z.string().meta({ description: "The route as declared", example: "GET /api/patients/{patientRef}/results" }),
  patientRefs: z.array(z.string()).meta({
    description: "The patients the answer showed (refused or failed: the one it was asked about), at most 1000",
  }),
  patientRefsTruncated: z
    .literal(true)
    .optional()
    .meta({ description: "The answer showed more patients than the record names" }),
  reports: z
    .array(z.string())
    .optional()
    .meta({
      description:
        "Reports the answer showed, <kind>:<externalId> (the unmatched queue, a report's history, a FHIR DiagnosticReport)",
      example: ["lab:L20260301-0001"],
    }),
  requestId: z.string().meta({ description: "The answer's X-Request-Id" }),
  outcome: z.enum(ACCESS_OUTCOMES).meta({
    description:
      "shown: answered in full; cut: the answer was cut off (the caller went away, an export stopped); " +
      "not-found, invalid, refused: answered 404, 400 or 401/403; failed: a fault of the service",
  }),
});
export type AccessRecordAnswer = z.infer<typeof accessRecordSchema>;

/** Records at or after `from` and before `before` (either may be open). */
export interface AccessPeriod {
  from: Date | null;
  before: Date | null;
}

/** Where a record stands in a patient's log: its moment exactly (as PostgreSQL writes it), then the order it was written in. */
export const patientAccessKey = z.tuple([
  z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/),
  z.int().min(0),
]);
export type PatientAccessKey = z.infer<typeof patientAccessKey>;

/** Where a record stands in the tenant's log: the order it was written in. */
export const tenantAccessKey = z.int().min(0);

interface AccessRow {
  seq: number;
  at: Date;
  at_key: string;
  who: string;
  credential: string;
  roles: string[];
  action: string;
  patient_refs: string[];
  patient_refs_truncated: boolean;
  reports: string[] | null;
  request_id: string;
  outcome: AccessRecordAnswer["outcome"];
}

const COLUMNS =
  "seq, at, at::text as at_key, who, credential, roles, action, patient_refs, patient_refs_truncated, reports, request_id, outcome";

function toRecord(row: AccessRow): AccessRecordAnswer {
  return {
    at: localIsoDateTime(row.at),
    who: row.who,
    credential: row.credential,
    roles: row.roles,
    action: row.action,
    patientRefs: row.patient_refs,
    ...(row.patient_refs_truncated ? { patientRefsTruncated: true as const } : {}),
    ...(row.reports ? { reports: row.reports } : {}),
    requestId: row.request_id,
    outcome: row.outcome,
  };
}

/**
 * The records naming a patient, oldest first (by when the answer was given); `limit` of them after
 * `after` when given (the caller asks one more than it answers, to know whether more remain).
 */
export async function patientAccessLog(
  reader: TenantReader,
  patientRef: string,
  period: AccessPeriod,
  { limit = null, after = null }: { limit?: number | null; after?: PatientAccessKey | null } = {},
): Promise<Array<AccessRecordAnswer & { key: PatientAccessKey }>> {
  const { rows } = await reader.query<AccessRow>(
    `select ${COLUMNS} from read.access_log
     where patient_refs @> array[$1::text]
       and ($2::timestamptz is null or at >= $2) and ($3::timestamptz is null or at < $3)
       and ($4::timestamptz is null or (at, seq) > ($4::timestamptz, $5::bigint))
     order by at, seq limit $6::int`,
    [patientRef, period.from, period.before, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return rows.map((row) => ({ ...toRecord(row), key: [row.at_key, row.seq] }));
}

/** What the tenant's log is narrowed to: a period, a caller, a patient named, a route (each null: any). */
export interface TenantAccessFilter extends AccessPeriod {
  who: string | null;
  patientRef?: string | null;
  action?: string | null;
}

/** The order of the tenant's log: as written (the oldest first), or the newest first. */
export type AccessLogOrder = "oldest" | "newest";

/**
 * A page of the tenant's records in the order they were written to the log (a record held back by
 * an outage comes after records of answers given later: its `at` says when it was given), or in
 * the reverse order; `after` is the last record of the page before, in that order.
 */
export async function tenantAccessLog(
  reader: TenantReader,
  filter: TenantAccessFilter,
  { limit, after, order = "oldest" }: { limit: number; after: number | null; order?: AccessLogOrder },
): Promise<Array<AccessRecordAnswer & { key: number }>> {
  const newest = order === "newest";
  const { rows } = await reader.query<AccessRow>(
    `select ${COLUMNS} from read.access_log
     where ($1::text is null or who = $1)
       and ($2::timestamptz is null or at >= $2) and ($3::timestamptz is null or at < $3)
       and ($4::bigint is null or ${newest ? "seq < $4" : "seq > $4"})
       and ($6::text is null or patient_refs @> array[$6::text])
       and ($7::text is null or action = $7)
     order by seq ${newest ? "desc" : "asc"} limit $5::int`,
    [filter.who, filter.from, filter.before, after, limit, filter.patientRef ?? null, filter.action ?? null],
  );
  return rows.map((row) => ({ ...toRecord(row), key: row.seq }));
}

import { z } from "zod";
import { auditSummarySchema, summariseAudit, type Audit } from "../../commands/reports/spec/audit.ts";
import type { Mode } from "../../commands/reports/events.ts";
import { versionLabel } from "../../commands/reports/spec/specVocabulary.ts";
import { textIn, type LocalizedWords, type SpecLang } from "../../commands/reports/spec/localizedText.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";

/** Contract A.2, report list entry. */
export const reportListEntrySchema = z.object({
  id: z.string(),
  title: z.string(),
  datasource: z.string(),
  updatedAt: localIsoDateTimeText.meta({ description: "Last draft save or publish" }),
  publishedVersion: z
    .string()
    .nullable()
    .meta({ description: "The current published version (v3), or null: never published, cannot be embedded" }),
  hasDraft: z.boolean(),
});
export type ReportListEntry = z.infer<typeof reportListEntrySchema>;

/**
 * A page of the tenant's reports by id, after the id `after`; only those of `datasource` when
 * given. A title the spec gives per language is in `lang` (issue #54).
 */
export async function listReports(
  reader: TenantReader,
  {
    limit,
    after,
    datasource = null,
    lang = "en",
  }: { limit: number; after: string | null; datasource?: string | null; lang?: SpecLang },
): Promise<ReportListEntry[]> {
  const { rows } = await reader.query(
    `select report_id, title, titles, datasource, updated_at, published_version, has_draft from read.reports
     where ($1::text is null or report_id > $1) and ($2::text is null or datasource = $2)
     order by report_id limit $3`,
    [after, datasource, limit],
  );
  return rows.map((row) => ({
    id: row.report_id,
    title: row.titles ? textIn(row.titles as LocalizedWords, lang) : row.title,
    datasource: row.datasource,
    updatedAt: localIsoDateTime(row.updated_at),
    publishedVersion: row.published_version === null ? null : versionLabel(row.published_version),
    hasDraft: row.has_draft,
  }));
}

/** Contract A.2, version entry. */
export const versionEntrySchema = z.object({
  no: z.string().meta({ description: "The version, used as-is in paths and in version", example: "v1" }),
  time: localIsoDateTimeText,
  who: z.string().meta({ description: "The name of the credential that published it" }),
  note: z.string(),
  mode: z.enum(["dynamic", "snapshot"]) satisfies z.ZodType<Mode>,
  current: z.boolean(),
  audit: auditSummarySchema,
});
export type VersionEntry = z.infer<typeof versionEntrySchema>;

/**
 * A page of a report's versions, newest first, older than `before` when given; `only` picks one
 * version instead. `current` is the version that is the report's current one.
 */
export async function versionsOf(
  reader: TenantReader,
  reportId: string,
  current: number | null,
  { limit, before = null, only = null }: { limit: number; before?: number | null; only?: number | null },
): Promise<VersionEntry[]> {
  const { rows } = await reader.query(
    `select no, published_at, who, note, mode, audit from read.report_versions
     where report_id = $1 and ($2::int is null or no < $2) and ($3::int is null or no = $3)
     order by no desc limit $4`,
    [reportId, before, only, limit],
  );
  return rows.map((row) => ({
    no: versionLabel(row.no),
    time: localIsoDateTime(row.published_at),
    who: row.who,
    note: row.note,
    mode: row.mode,
    current: row.no === current,
    audit: summariseAudit(row.audit as Audit),
  }));
}

export async function auditOf(reader: TenantReader, reportId: string, no: number): Promise<Audit | null> {
  const { rows } = await reader.query("select audit from read.report_versions where report_id = $1 and no = $2", [
    reportId,
    no,
  ]);
  return rows[0]?.audit ?? null;
}

/** The draft's audit, as its save answered it; null when the report has no draft. */
export async function draftAuditOf(reader: TenantReader, reportId: string): Promise<Audit | null> {
  const { rows } = await reader.query("select audit from read.report_drafts where report_id = $1", [reportId]);
  return rows[0]?.audit ?? null;
}

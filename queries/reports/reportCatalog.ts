import { z } from "zod";
import { auditSummarySchema, summariseAudit, type Audit } from "../../commands/reports/spec/audit.ts";
import type { Mode } from "../../commands/reports/events.ts";
import type { ReportSpec } from "../../commands/reports/spec/specSchema.ts";
import { DRAFT_LABEL, versionLabel } from "../../commands/reports/spec/versionLabels.ts";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTime, localIsoDateTimeText } from "../../db/localDateTime.ts";
import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";

/** Contract A.2, report list entry. */
export const reportListEntrySchema = z.object({
  id: z.string(),
  title: z.string(),
  datasource: z.string(),
  updatedAt: localIsoDateTimeText.meta({ description: "Last draft save or publish" }),
  publishedVersion: z.string().nullable().meta({ description: "The current published version (v3), or null: never published, cannot be embedded" }),
  hasDraft: z.boolean(),
});
export type ReportListEntry = z.infer<typeof reportListEntrySchema>;

export async function listReports(reader: TenantReader): Promise<ReportListEntry[]> {
  const { rows } = await reader.query("select report_id, title, datasource, updated_at, published_version, has_draft from read.reports order by report_id");
  return rows.map((row) => ({
    id: row.report_id,
    title: row.title,
    datasource: row.datasource,
    updatedAt: localIsoDateTime(row.updated_at),
    publishedVersion: row.published_version === null ? null : versionLabel(row.published_version),
    hasDraft: row.has_draft,
  }));
}

export interface ReportHead {
  publishedVersion: number | null;
  hasDraft: boolean;
}

export async function reportHead(reader: TenantReader, reportId: string): Promise<ReportHead | null> {
  const { rows } = await reader.query("select published_version, has_draft from read.reports where report_id = $1", [reportId]);
  return rows[0] ? { publishedVersion: rows[0].published_version, hasDraft: rows[0].has_draft } : null;
}

/** A version as the viewing calls need it: the draft is a dynamic version of its own. */
export interface ViewableVersion {
  version: string;
  title: string;
  datasource: string;
  spec: ReportSpec;
  mode: Mode;
  note: string;
  params: Record<string, unknown>;
  publishedAt: string;
  /** The draft's save time (its ETag, draftEtag); absent for a published version. */
  savedAt?: Date;
  frozen: Record<string, QueryOutcome> | null;
}

export async function draftOf(reader: TenantReader, reportId: string): Promise<ViewableVersion | null> {
  const { rows } = await reader.query("select title, datasource, spec, saved_at from read.report_drafts where report_id = $1", [reportId]);
  const row = rows[0];
  if (!row) return null;
  const spec = row.spec as ReportSpec;
  return {
    version: DRAFT_LABEL,
    title: row.title,
    datasource: row.datasource,
    spec,
    mode: "dynamic",
    note: "",
    params: Object.fromEntries((spec.params ?? []).map((param) => [param.name, param.default ?? null])),
    publishedAt: localIsoDateTime(row.saved_at),
    savedAt: row.saved_at,
    frozen: null,
  };
}

export async function publishedVersion(reader: TenantReader, reportId: string, no: number): Promise<ViewableVersion | null> {
  const { rows } = await reader.query(
    `select v.title, v.datasource, v.spec, v.mode, v.note, v.params, v.published_at, s.data as frozen
     from read.report_versions v
     left join read.report_snapshots s on s.tenant = v.tenant and s.report_id = v.report_id and s.no = v.no
     where v.report_id = $1 and v.no = $2`,
    [reportId, no],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    version: versionLabel(no),
    title: row.title,
    datasource: row.datasource,
    spec: row.spec,
    mode: row.mode,
    note: row.note,
    params: row.params,
    publishedAt: localIsoDateTime(row.published_at),
    frozen: row.mode === "snapshot" ? row.frozen : null,
  };
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

export async function versionsOf(reader: TenantReader, reportId: string, current: number | null): Promise<VersionEntry[]> {
  const { rows } = await reader.query("select no, published_at, who, note, mode, audit from read.report_versions where report_id = $1 order by no desc", [reportId]);
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
  const { rows } = await reader.query("select audit from read.report_versions where report_id = $1 and no = $2", [reportId, no]);
  return rows[0]?.audit ?? null;
}

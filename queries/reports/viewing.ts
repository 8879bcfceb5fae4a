import type { Mode } from "../../commands/reports/events.ts";
import { currentWards, type Wards } from "../../db/wardScope.ts";
import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import type { DrillDef, QueryDef, ReportSpec } from "../../commands/reports/spec/specSchema.ts";
import type { TemplateDef } from "../../commands/reports/spec/sqlTemplate.ts";
import { DRAFT_LABEL, versionLabel, versionNo } from "../../commands/reports/spec/specVocabulary.ts";
import { shownTitle, type SpecLang } from "../../commands/reports/spec/localizedText.ts";
import { localIsoDateTime } from "../../db/localDateTime.ts";
import type { Db } from "../../db/pool.ts";
import { readAsTenant, type TenantReader } from "../../db/tenantScope.ts";

/*
 * The viewing rules (contract A.3), once for every call that shows a report (view, data, drill,
 * diff, source, the exports, the embed page): which version answers a call, and what a snapshot
 * shows. The routes only translate HTTP to these and back; what a call may send (params, drill
 * args) is checked by viewedLayer.ts. Kept light on purpose: resolving a version loads neither the
 * spec schema nor the query engine.
 */

export type RefusalKind = "invalid" | "not-found" | "conflict";

/** A viewing call that cannot be answered, with a sentence saying why; each interface says it with its own status. */
export class ViewingRefusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** Which refusal this is where a page words it apart (src/reports/http/reportRequests.ts gives it its code). */
    readonly reason?: "never-published",
  ) {
    super(message);
    this.name = "ViewingRefusal";
  }
}

/** Whether a report exists, and its current published version. */
export interface ReportHead {
  publishedVersion: number | null;
  hasDraft: boolean;
}

export async function reportHead(reader: TenantReader, reportId: string): Promise<ReportHead | null> {
  const { rows } = await reader.query("select published_version, has_draft from read.reports where report_id = $1", [
    reportId,
  ]);
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
  /** A snapshot's: the publisher's wards it was frozen for (null: every ward), and each ward's own freeze (contract G.1). */
  frozenFor?: readonly string[] | null;
  frozenByWard?: Readonly<Record<string, Record<string, QueryOutcome>>> | null;
}

export async function draftOf(reader: TenantReader, reportId: string): Promise<ViewableVersion | null> {
  const { rows } = await reader.query(
    "select title, datasource, spec, saved_at from read.report_drafts where report_id = $1",
    [reportId],
  );
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

export async function publishedVersion(
  reader: TenantReader,
  reportId: string,
  no: number,
): Promise<ViewableVersion | null> {
  const { rows } = await reader.query(
    `select v.title, v.datasource, v.spec, v.mode, v.note, v.params, v.published_at, s.data as frozen, s.frozen_for, s.by_ward
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
    frozenFor: row.frozen_for ?? null,
    frozenByWard: row.by_ward ?? null,
  };
}

/**
 * Published versions never change: kept per database and tenant, so a viewing call naming its
 * version reads nothing to find it.
 */
const publishedVersions = new WeakMap<Db, Map<string, ViewableVersion>>();
const PUBLISHED_VERSIONS_KEPT = 500;

function keptVersions(db: Db): Map<string, ViewableVersion> {
  let versions = publishedVersions.get(db);
  if (!versions) publishedVersions.set(db, (versions = new Map()));
  return versions;
}

function remember(db: Db, key: string, version: ViewableVersion): ViewableVersion {
  const versions = keptVersions(db);
  if (versions.size >= PUBLISHED_VERSIONS_KEPT) versions.delete(versions.keys().next().value!);
  versions.set(key, version);
  return version;
}

/**
 * The version that answers a viewing call: the one it names (`draft`, `vN`) or, when it names
 * none, the current published version; a report never published has none (conflict).
 */
export async function versionToView(
  db: Db,
  tenant: string,
  reportId: string,
  asked: unknown,
): Promise<ViewableVersion> {
  return frozenForWards(await versionAsStored(db, tenant, reportId, asked), currentWards());
}

/** A snapshot query's place when its frozen rows are not the caller's to see (contract G.1). */
export const FROZEN_FOR_EVERY_WARD =
  "This snapshot was frozen with the rows of wards this caller may not see, and not for their wards alone: ask " +
  "an author for a dynamic version, or for a snapshot published by someone of the same wards.";

/**
 * The ward rule of snapshots (contract G.1): a snapshot of a built-in source was frozen with its
 * publisher's wards. A caller limited to wards sees it when it was frozen within them; else, when
 * they have one ward, that ward's own freeze of the same publishing; else none of its frozen rows
 * (each query fails in its place, saying why). Its drill-throughs run live, in the caller's wards.
 */
function frozenForWards(version: ViewableVersion, wards: Wards): ViewableVersion {
  if (
    wards === null ||
    version.frozen === null ||
    (version.datasource !== "clinical" && version.datasource !== "research")
  )
    return version;
  const frozenFor = version.frozenFor ?? null;
  if (frozenFor !== null && frozenFor.every((ward) => wards.includes(ward))) return version;
  const own = wards.length === 1 ? version.frozenByWard?.[wards[0]!] : undefined;
  if (own) return { ...version, frozen: own };
  return {
    ...version,
    frozen: Object.fromEntries(
      Object.keys(version.frozen).map((name) => [
        name,
        { error: FROZEN_FOR_EVERY_WARD, code: "snapshot-other-wards" as const },
      ]),
    ),
  };
}

async function versionAsStored(db: Db, tenant: string, reportId: string, asked: unknown): Promise<ViewableVersion> {
  if (asked !== undefined && asked !== null && typeof asked !== "string")
    throw new ViewingRefusal("invalid", 'version must be a string such as "v3" or "draft".');
  const keyOf = (label: string) => `${tenant}\u0000${reportId}\u0000${label}`;
  const known = typeof asked === "string" ? keptVersions(db).get(keyOf(asked)) : undefined;
  if (known) return known;
  return readAsTenant(db, tenant, async (reader) => {
    const head = await reportHead(reader, reportId);
    if (!head)
      throw new ViewingRefusal("not-found", `There is no report ${reportId}; list the reports with GET /api/reports.`);
    const wanted = asked ?? (head.publishedVersion === null ? null : versionLabel(head.publishedVersion));
    if (wanted === null)
      throw new ViewingRefusal(
        "conflict",
        "This report has never been published; ask for version=draft, or publish it first.",
        "never-published",
      );
    const no = versionNo(wanted);
    if (wanted === DRAFT_LABEL) {
      const draft = await draftOf(reader, reportId);
      if (draft) return draft;
    } else if (no !== null) {
      const found = await publishedVersion(reader, reportId, no);
      if (found) return remember(db, keyOf(wanted), found);
    }
    throw new ViewingRefusal(
      "not-found",
      `Report ${reportId} has no version ${wanted}; see GET /api/reports/${reportId}/versions.`,
    );
  });
}

/** A drill-through call's target, with its args checked (viewedLayer.ts drillLayer). */
export interface DrillLayer {
  key: string;
  drill: DrillDef;
  title: string;
  defs: TemplateDef[];
  values: Record<string, unknown>;
}

/** What a call shows: the report's own layer, or a drill target's. */
export interface ShownLayer {
  title: string;
  drill: DrillLayer | null;
  queries: Record<string, QueryDef>;
  defs: readonly TemplateDef[];
  /** The filter values as the layer shows them: for a snapshot, the ones it was frozen with. */
  params: Record<string, unknown>;
  /** What the queries' placeholders are bound to: the params, and a drill's args over them. */
  values: Record<string, unknown>;
  /** A snapshot's own layer: its results as frozen at publishing. Null: the queries run now. */
  frozen: Record<string, QueryOutcome> | null;
}

/**
 * The snapshot rule: a snapshot's own layer shows what was frozen at publishing, with the values
 * it was frozen with, whatever the data source holds now; a drill-through always runs live.
 */
export function shownLayer(
  version: ViewableVersion,
  params: Record<string, unknown>,
  drill: DrillLayer | null,
  lang: SpecLang,
): ShownLayer {
  if (drill)
    return {
      title: drill.title,
      drill,
      queries: drill.drill.queries,
      defs: drill.defs,
      params,
      values: drill.values,
      frozen: null,
    };
  const frozen = version.frozen;
  const shown = frozen ? version.params : params;
  return {
    title: shownTitle(version.title, version.spec, lang),
    drill: null,
    queries: version.spec.queries,
    defs: version.spec.params ?? [],
    params: shown,
    values: shown,
    frozen,
  };
}

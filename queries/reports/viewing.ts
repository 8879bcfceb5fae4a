import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import type { DrillDef, QueryDef } from "../../commands/reports/spec/specSchema.ts";
import { drillTitle } from "../../commands/reports/spec/specVocabulary.ts";
import { drillTemplateDefs, validateDrillArgs, validateParamValues, type TemplateDef } from "../../commands/reports/spec/sqlTemplate.ts";
import { DRAFT_LABEL, versionLabel, versionNo } from "../../commands/reports/spec/versionLabels.ts";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { draftOf, publishedVersion, reportHead, type ViewableVersion } from "./reportCatalog.ts";
import { runSpecQueries, type ReportRuntime } from "./runSpecQueries.ts";

/*
 * The viewing rules (contract A.3), once for every call that shows a report (view, data, drill,
 * diff, source, the exports, the embed page): which version answers a call, which params and drill
 * args it may send, and what a snapshot shows. The routes only translate HTTP to these and back.
 */

export type RefusalKind = "invalid" | "not-found" | "conflict";

/** A viewing call that cannot be answered, with a sentence saying why; each interface says it with its own status. */
export class ViewingRefusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
  ) {
    super(message);
    this.name = "ViewingRefusal";
  }
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
export async function versionToView(db: Db, tenant: string, reportId: string, asked: unknown): Promise<ViewableVersion> {
  if (asked !== undefined && asked !== null && typeof asked !== "string") throw new ViewingRefusal("invalid", 'version must be a string such as "v3" or "draft".');
  const keyOf = (label: string) => `${tenant}\u0000${reportId}\u0000${label}`;
  const known = typeof asked === "string" ? keptVersions(db).get(keyOf(asked)) : undefined;
  if (known) return known;
  return readAsTenant(db, tenant, async (reader) => {
    const head = await reportHead(reader, reportId);
    if (!head) throw new ViewingRefusal("not-found", `There is no report ${reportId}; list the reports with GET /api/reports.`);
    const wanted = asked ?? (head.publishedVersion === null ? null : versionLabel(head.publishedVersion));
    if (wanted === null) throw new ViewingRefusal("conflict", "This report has never been published; ask for version=draft, or publish it first.");
    const no = versionNo(wanted);
    if (wanted === DRAFT_LABEL) {
      const draft = await draftOf(reader, reportId);
      if (draft) return draft;
    } else if (no !== null) {
      const found = await publishedVersion(reader, reportId, no);
      if (found) return remember(db, keyOf(wanted), found);
    }
    throw new ViewingRefusal("not-found", `Report ${reportId} has no version ${wanted}; see GET /api/reports/${reportId}/versions.`);
  });
}

/** The filter values a call runs with: what it sends, over the version's published values. */
export function paramValues(version: ViewableVersion, sent: unknown): Record<string, unknown> {
  const checked = validateParamValues(version.spec.params ?? [], version.params, sent);
  if ("problem" in checked) throw new ViewingRefusal("invalid", checked.problem);
  return checked.values;
}

export interface DrillLayer {
  key: string;
  drill: DrillDef;
  title: string;
  defs: TemplateDef[];
  values: Record<string, unknown>;
}

/** A drill-through call's target, its checked args merged over the params, and its title. */
export function drillLayer(version: ViewableVersion, drillKey: unknown, sentArgs: unknown, params: Record<string, unknown>): DrillLayer {
  const drills = version.spec.drills ?? {};
  // Own keys only: `in` would take "__proto__" or "constructor" for a drill target.
  if (typeof drillKey !== "string" || !Object.hasOwn(drills, drillKey)) {
    const declared = Object.keys(drills);
    throw new ViewingRefusal("invalid", declared.length ? `drill must be one of ${declared.join(", ")}.` : "This report declares no drill-through targets.");
  }
  const drill = drills[drillKey]!;
  const args = validateDrillArgs(drill, sentArgs);
  if ("problem" in args) throw new ViewingRefusal("invalid", args.problem);
  return {
    key: drillKey,
    drill,
    title: drillTitle(drill.title, args.values),
    defs: drillTemplateDefs(version.spec.params ?? [], drill),
    values: { ...params, ...args.values },
  };
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
export function shownLayer(version: ViewableVersion, params: Record<string, unknown>, drill: DrillLayer | null): ShownLayer {
  if (drill) return { title: drill.title, drill, queries: drill.drill.queries, defs: drill.defs, params, values: drill.values, frozen: null };
  const frozen = version.frozen;
  const shown = frozen ? version.params : params;
  return { title: version.title, drill: null, queries: version.spec.queries, defs: version.spec.params ?? [], params: shown, values: shown, frozen };
}

/** The layer's results: the frozen ones, or its queries run now on the version's data source. */
export async function layerResults(runtime: ReportRuntime, tenant: string, version: ViewableVersion, layer: ShownLayer): Promise<Record<string, QueryOutcome>> {
  return layer.frozen ?? (await runSpecQueries(runtime, version.datasource, tenant, layer.queries, layer.defs, layer.values));
}

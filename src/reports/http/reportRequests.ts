import type { Context } from "koa";
import { z } from "zod";
import type { DrillDef } from "../../../commands/reports/spec/specSchema.ts";
import type { TemplateDef } from "../../../commands/reports/spec/sqlTemplate.ts";
import { drillTemplateDefs, validateDrillArgs, validateParamValues } from "../../../commands/reports/spec/sqlTemplate.ts";
import type { Db } from "../../../db/pool.ts";
import { readAsTenant, type TenantReader } from "../../../db/tenantScope.ts";
import { draftOf, publishedVersion, reportHead, type ViewableVersion } from "../../../queries/reports/reportCatalog.ts";
import { REPORT_ID_PATTERN } from "../../../commands/reports/spec/specVocabulary.ts";
import { HttpError } from "../../http/httpError.ts";

/** What the viewing calls (view, data, drill, exports) share: resolving a version, checking params and drills. */

// The bodies of the viewing calls (contract A.3). Which params and drill args a body may name
// depends on the version's spec, so they are checked at run time (checkedParams, drillLayer);
// these schemas describe the shape for the OpenAPI document.
export const versionField = z.string().nullish().meta({ description: 'v<n> (e.g. "v3") or "draft"; omitted: the current published version (409 when there is none)' });
export const paramValuesField = z.record(z.string(), z.unknown()).nullish().meta({
  description: "Filter values by declared param name: a missing key takes the version's published value, null means no restriction, a range is [from, to], a multi-select an array. An undeclared name or a value of the wrong JSON type is answered 400.",
  example: { period: ["2026-01-01", "2026-03-31"], wards: null },
});
const drillArgsField = z.record(z.string(), z.unknown()).nullish().meta({ description: "Values of the drill target's declared args, by name (the clicked row's columns)", example: { month: "2026-02-01" } });
export const dataRequest = z.object({ version: versionField, params: paramValuesField });
export const drillRequest = dataRequest.extend({ drill: z.string().meta({ description: "A key of the spec's drills" }), args: drillArgsField });
export const exportRequest = dataRequest.extend({ drill: z.string().nullish().meta({ description: "A key of the spec's drills: export that drill-through layer instead of the report" }), args: drillArgsField });

export function readFor<T>(db: Db, ctx: Context, work: (reader: TenantReader) => Promise<T>): Promise<T> {
  return readAsTenant<T>(db, ctx.state.tenant, work);
}

/**
 * Published versions never change: kept per database and tenant, so a viewing call naming its
 * version reads nothing to find it.
 */
const publishedVersions = new WeakMap<Db, Map<string, ViewableVersion>>();
const PUBLISHED_VERSIONS_KEPT = 500;

function versionsOf(db: Db): Map<string, ViewableVersion> {
  let versions = publishedVersions.get(db);
  if (!versions) publishedVersions.set(db, (versions = new Map()));
  return versions;
}

function remember(db: Db, key: string, version: ViewableVersion): ViewableVersion {
  const versions = versionsOf(db);
  if (versions.size >= PUBLISHED_VERSIONS_KEPT) versions.delete(versions.keys().next().value!);
  versions.set(key, version);
  return version;
}

/** The `:id` of a report route; an id that cannot be a report's names none. */
export function reportIdOf(ctx: Context): string {
  const id = ctx.params.id!;
  if (!REPORT_ID_PATTERN.test(id)) throw new HttpError(404, `There is no report ${id}; report ids are lower-case letters, digits and '-'.`);
  return id;
}

/**
 * The version a viewing call asks for (contract A.3): `draft`, `vN`, or, when omitted, the
 * current published version (409 when there is none). Unknown report or version: 404.
 */
export async function resolveVersion(db: Db, ctx: Context, reportId: string, version: unknown): Promise<ViewableVersion> {
  if (version !== undefined && version !== null && typeof version !== "string") throw new HttpError(400, 'version must be a string such as "v3" or "draft".');
  const known = typeof version === "string" ? versionsOf(db).get(`${ctx.state.tenant}\u0000${reportId}\u0000${version}`) : undefined;
  if (known) return known;
  return readFor(db, ctx, async (reader) => {
    const head = await reportHead(reader, reportId);
    if (!head) throw new HttpError(404, `There is no report ${reportId}; list the reports with GET /api/reports.`);
    const wanted = version ?? (head.publishedVersion === null ? null : `v${head.publishedVersion}`);
    if (wanted === null) throw new HttpError(409, "This report has never been published; ask for version=draft, or publish it first.");
    if (wanted === "draft") {
      const draft = await draftOf(reader, reportId);
      if (draft) return draft;
    } else if (/^v[1-9][0-9]{0,8}$/.test(wanted)) {
      const found = await publishedVersion(reader, reportId, Number(wanted.slice(1)));
      if (found) return remember(db, `${ctx.state.tenant}\u0000${reportId}\u0000${wanted}`, found);
    }
    throw new HttpError(404, `Report ${reportId} has no version ${wanted}; see GET /api/reports/${reportId}/versions.`);
  });
}

export function reportBody(ctx: Context): Record<string, unknown> {
  const body = ctx.request.body ?? {};
  if (typeof body !== "object" || Array.isArray(body) || body === null) throw new HttpError(400, "Send a JSON object as the request body.");
  return body as Record<string, unknown>;
}

export function checkedParams(version: ViewableVersion, sent: unknown): Record<string, unknown> {
  const checked = validateParamValues(version.spec.params ?? [], version.params, sent);
  if ("problem" in checked) throw new HttpError(400, checked.problem);
  return checked.values;
}

export interface DrillLayer {
  key: string;
  drill: DrillDef;
  title: string;
  defs: TemplateDef[];
  values: Record<string, unknown>;
}

/** A drill-through request's target, its checked args merged over the params, and its title. */
export function drillLayer(version: ViewableVersion, drillKey: unknown, sentArgs: unknown, params: Record<string, unknown>): DrillLayer {
  const drills = version.spec.drills ?? {};
  // Own keys only: `in` would take "__proto__" or "constructor" for a drill target.
  if (typeof drillKey !== "string" || !Object.hasOwn(drills, drillKey)) {
    const declared = Object.keys(drills);
    throw new HttpError(400, declared.length ? `drill must be one of ${declared.join(", ")}.` : "This report declares no drill-through targets.");
  }
  const drill = drills[drillKey]!;
  const args = validateDrillArgs(drill, sentArgs);
  if ("problem" in args) throw new HttpError(400, args.problem);
  return {
    key: drillKey,
    drill,
    title: drill.title.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => (args.values[name] == null ? "" : String(args.values[name]))),
    defs: drillTemplateDefs(version.spec.params ?? [], drill),
    values: { ...params, ...args.values },
  };
}

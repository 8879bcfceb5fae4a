/**
 * What the editor holds while a report is edited, and where it starts from: the source of the
 * draft or of a version, with the ETag the next save is conditioned on.
 */
import type { PageContext } from "../page.ts";
import { segment } from "../staffApi.ts";
import type { Audit, QueryProblem, ReportListEntry } from "../types.ts";
import type { PathProblem } from "./specPaths.ts";

export type Json = Record<string, unknown>;

export interface Source {
  title: string;
  datasource: string;
  spec: Json;
}

/** A source as the editor starts from it, with the ETag of the draft the next save is based on. */
export interface LoadedSource {
  source: Source;
  etag: string | null;
}

export interface EditorState {
  id: string;
  datasource: string;
  /** One object for the whole editing: the form, the JSON view and the saves all read and write it. */
  spec: Json;
  /** The draft this editing started from (its ETag), or null for none: a save must not overwrite another's. */
  basedOn: string | null;
  exists: boolean;
  hasDraft: boolean;
  dirty: boolean;
  jsonBroken: boolean;
  problems: PathProblem[];
  /** The queries that failed when this editing last saved the draft: marked at their SQL until edited. */
  queryProblems: QueryProblem[];
  /** The draft's audit as its last save answered it (null: no draft); publishing asks first when a query of it fails. */
  draftAudit: Audit | null;
  /** The columns of each report query's result in the last preview (issue #54): the form offers them. */
  resultColumns: Map<string, string[]>;
  /** Columns arrived while the author was in the form: it is drawn with them at its next drawing. */
  columnsPending: boolean;
}

/** A new report: an empty spec on the clinical data source, and no draft to be based on. */
export const blankSource = (): LoadedSource => ({
  source: { title: "", datasource: "clinical", spec: { version: 1, title: "", params: [], queries: {}, nodes: [] } },
  etag: null,
});

export function editorState(
  entry: ReportListEntry | null,
  loaded: LoadedSource,
  draftAudit: Audit | null,
): EditorState {
  return {
    id: entry?.id ?? "",
    datasource: loaded.source.datasource,
    spec: loaded.source.spec,
    basedOn: loaded.etag,
    exists: entry !== null,
    hasDraft: entry?.hasDraft ?? false,
    dirty: false,
    jsonBroken: false,
    problems: [],
    queryProblems: [],
    draftAudit,
    resultColumns: new Map(),
    columnsPending: false,
  };
}

/** The draft's audit as its last save answered it; null when there is no draft. */
export async function draftAuditOf(ctx: PageContext, reportId: string): Promise<Audit | null> {
  try {
    return await ctx.api.get<Audit>(`/api/reports/${segment(reportId)}/versions/draft/audit`);
  } catch (error) {
    if ((error as { status?: number }).status === 404) return null;
    throw error;
  }
}

/**
 * A version's or the draft's source, and the ETag of the draft the next save is based on: the
 * draft's own, or null when the editor starts from a published version (no draft expected).
 */
export async function sourceOf(ctx: PageContext, reportId: string, version: string): Promise<LoadedSource> {
  const { body, headers } = await ctx.api.exchange<Source>(
    "GET",
    `/api/reports/${segment(reportId)}/versions/${segment(version)}/source`,
  );
  return { source: body, etag: version === "draft" ? headers.get("etag") : null };
}

/** Puts `next`'s members into the editor's one spec object: the form's binding keeps pointing at it. */
export function refillSpec(spec: Json, next: Json): void {
  for (const key of Object.keys(spec)) delete spec[key];
  Object.assign(spec, next);
}

import { z } from "zod";
import { relationsOf } from "../../db/clinicalViews.ts";
import { readStream } from "../../db/eventStore.ts";
import { currentWards, withWardScope } from "../../db/wardScope.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand } from "../kit/handleCommand.ts";
import { reportStreams, type Draft, type Mode, type PublishedVersion, type ReportEvent } from "./events.ts";
import { draftHash, noSuchVersion, reportDecider, unmetPrecondition, type DraftPrecondition } from "./reportDecider.ts";
import { auditSpec, type Audit } from "./spec/audit.ts";
import type { QueryOutcome } from "./spec/queryOutcome.ts";
import { failedTrials, type QueryProblem, type QueryToTry, type QueryTrial } from "./spec/queryTrial.ts";
import { specProblems, type ReportSpec } from "./spec/specSchema.ts";
import { savedTitle } from "./spec/localizedText.ts";
import { readOnlyProblem } from "./spec/sqlSafety.ts";
import { drillTemplateDefs, validateParamValues, type TemplateDef } from "./spec/sqlTemplate.ts";
import { VERSION_LABEL, versionNo } from "./spec/specVocabulary.ts";

export const saveDraftInput = z.object({
  title: z.string().trim().min(1, "title must not be empty").max(200, "title has at most 200 characters").optional(),
  datasource: z.string().trim().min(1).max(64).default("clinical"),
  spec: z.unknown(),
});

export const publishInput = z.object({
  mode: z.enum(["dynamic", "snapshot"], {
    error: "mode must be 'dynamic' (data fetched on each open) or 'snapshot' (data frozen now)",
  }),
  note: z.string().max(2000, "note has at most 2000 characters").default(""),
  params: z.unknown().optional(),
});

export const restoreInput = z.object({
  version: z
    .string({ error: 'version is required: the version to restore, e.g. "v2"' })
    .regex(VERSION_LABEL, "version must look like v1, v2, …"),
  note: z.string().max(2000).optional(),
});

/** What the report commands need of the service besides the store; the wiring (src/reports/http) gives it. */
export interface ReportsDeps {
  /** The names of the data sources configured on this server: a draft must name one of them. */
  dataSources(): string[];
  /** Runs a layer's queries now, each succeeding or failing on its own: a snapshot freezes what they return. */
  runQueries: RunQueries;
  /**
   * Tries a draft's queries as the save takes them (the database plans each with these values,
   * under the tenant's report limits, contract E.5), and says how each went.
   */
  tryQueries: TryQueries;
  /** The wards of the tenant's patients (contract G.1: a snapshot published for every ward is frozen for each too). */
  wardsOf?: (tenant: string) => Promise<string[]>;
}

export type TryQueries = (datasource: string, tenant: string, queries: readonly QueryToTry[]) => Promise<QueryTrial[]>;

export type RunQueries = (
  datasource: string,
  tenant: string,
  queries: Record<string, { sql?: string }>,
  defs: readonly TemplateDef[],
  values: Record<string, unknown>,
) => Promise<Record<string, QueryOutcome>>;

async function settled(ctx: CommandContext, appended: { last: { transactionId: string; position: number } } | null) {
  // The author's next call (view, list, publish) must see this change.
  if (appended) await ctx.caughtUp("reports", appended.last);
}

/** A saved draft's audit, and the queries of it that failed when tried. */
export interface SavedDraft {
  audit: Audit;
  queryProblems: QueryProblem[];
}

/**
 * Every query of a draft with the values a viewer first sees: the filters' defaults, and for a
 * drill's queries no clicked row yet (its args null, so their optional clauses drop out).
 */
export function queriesToTry(spec: ReportSpec): QueryToTry[] {
  const params = spec.params ?? [];
  // Normalised as a data call on the draft takes them (an empty multi-select is null, …).
  const checked = validateParamValues(params, {}, undefined);
  const defaults =
    "values" in checked
      ? checked.values
      : Object.fromEntries(params.map((param) => [param.name, param.default ?? null]));
  return [
    ...Object.entries(spec.queries).map(([name, query]) => ({
      query: `queries.${name}`,
      sql: query.sql,
      defs: params,
      values: defaults,
    })),
    ...Object.entries(spec.drills ?? {}).flatMap(([key, drill]) => {
      const values = { ...defaults, ...Object.fromEntries(drill.args.map((arg) => [arg.name, null])) };
      return Object.entries(drill.queries).map(([name, query]) => ({
        query: `drills.${key}.queries.${name}`,
        sql: query.sql,
        defs: drillTemplateDefs(params, drill),
        values,
      }));
    }),
  ];
}

/** A query's SQL refused when saved (not one read-only statement of the source's relations), at its path. */
const sqlRefused = (path: string, problem: string) =>
  new CommandError("invalid", `spec.${path}: ${problem}`, "spec-invalid", [
    { path, code: "spec-sql-refused", message: problem },
  ]);

/**
 * Validates a draft completely (shape, data source, every query read-only), tries its queries
 * (a query that fails is recorded and audited, never refused: the save still answers 200) and
 * audits it.
 */
export async function saveDraft(
  ctx: CommandContext,
  deps: ReportsDeps,
  tenant: string,
  reportId: string,
  input: z.output<typeof saveDraftInput>,
  precondition?: DraftPrecondition,
): Promise<SavedDraft> {
  const problems = specProblems(input.spec);
  if (problems.length > 0) {
    const first = problems.slice(0, 5);
    const listed = first.map((p) => (p.path ? `spec.${p.path}: ${p.message}` : p.message));
    throw new CommandError("invalid", listed.join(" "), "spec-invalid", first);
  }
  const spec = input.spec as ReportSpec;
  const configured = deps.dataSources();
  if (!configured.includes(input.datasource)) {
    throw new CommandError(
      "invalid",
      `datasource ${input.datasource} is not configured; use one of ${configured.join(", ")}.`,
    );
  }
  // A built-in data source's reach (clinical, research) is known here; another data source's relations are its own.
  const relations = relationsOf(input.datasource);
  for (const [name, query] of Object.entries(spec.queries)) {
    const problem = await readOnlyProblem(query.sql, spec.params ?? [], relations);
    if (problem) throw sqlRefused(`queries.${name}.sql`, problem);
  }
  for (const [key, drill] of Object.entries(spec.drills ?? {})) {
    for (const [name, query] of Object.entries(drill.queries)) {
      const problem = await readOnlyProblem(query.sql, drillTemplateDefs(spec.params ?? [], drill), relations);
      if (problem) throw sqlRefused(`drills.${key}.queries.${name}.sql`, problem);
    }
  }
  // Tried before the event is decided, and recorded in it: a replay never tries a query again.
  const trials = await deps.tryQueries(input.datasource, tenant, queriesToTry(spec));
  const audit = await auditSpec(spec, trials);
  const queryProblems = failedTrials(trials);
  const draft: Draft = {
    title: input.title ?? savedTitle(spec.title),
    datasource: input.datasource,
    spec,
    audit,
    queryProblems,
  };
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: reportStreams.id(reportId) },
    reportDecider,
    { type: "saveDraft", draft, who: ctx.metadata.actor, precondition },
    ctx.metadata,
  );
  await settled(ctx, appended);
  return { audit, queryProblems };
}

export async function discardDraft(
  ctx: CommandContext,
  tenant: string,
  reportId: string,
  precondition?: DraftPrecondition,
): Promise<void> {
  const command = { type: "discardDraft" as const, who: ctx.metadata.actor, precondition };
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: reportStreams.id(reportId) },
    reportDecider,
    command,
    ctx.metadata,
  );
  await settled(ctx, appended);
}

/** Publishes the draft as the next version; a snapshot runs every query now and freezes the results. */
export async function publishDraft(
  ctx: CommandContext,
  deps: ReportsDeps,
  tenant: string,
  reportId: string,
  input: z.output<typeof publishInput>,
  precondition?: DraftPrecondition,
) {
  const stream = await readStream<ReportEvent>(ctx.store.db, tenant, reportStreams.id(reportId));
  if (stream.version === 0) throw new CommandError("not-found", `There is no report ${reportId}.`);
  const state = stream.events.reduce(reportDecider.evolve, reportDecider.initialState());
  // Before a snapshot's queries run: the decider checks again when it appends.
  const unmet = unmetPrecondition(precondition, state);
  if (unmet) throw unmet;
  if (!state.draft)
    throw new CommandError(
      "conflict",
      "There is no draft to publish; save one with PUT /api/reports/{id}/draft first.",
    );
  const spec = state.draft.spec;
  const defaults = Object.fromEntries((spec.params ?? []).map((param) => [param.name, param.default ?? null]));
  const checked = validateParamValues(spec.params ?? [], defaults, input.params);
  if ("problem" in checked) throw new CommandError("invalid", checked.problem);
  const mode: Mode = input.mode;
  const datasource = state.draft.datasource;
  const freeze = () => deps.runQueries(datasource, tenant, spec.queries, spec.params ?? [], checked.values);
  const frozen = mode === "snapshot" ? await freeze() : null;
  const wardFreezes = mode === "snapshot" ? await freezeForWards(deps, tenant, freeze) : undefined;
  const { appended, events } = await handleCommand(
    ctx.store,
    { tenant, streamId: reportStreams.id(reportId) },
    reportDecider,
    {
      type: "publish",
      draftHash: draftHash(state.draft),
      mode,
      note: input.note,
      params: checked.values,
      frozen,
      wardFreezes,
      who: ctx.metadata.actor,
      precondition,
    },
    ctx.metadata,
  );
  await settled(ctx, appended);
  return publishedNo(events);
}

export async function restoreVersion(
  ctx: CommandContext,
  tenant: string,
  reportId: string,
  input: z.output<typeof restoreInput>,
) {
  const from = versionNo(input.version);
  if (from === null) throw noSuchVersion(input.version);
  const { appended, events } = await handleCommand(
    ctx.store,
    { tenant, streamId: reportStreams.id(reportId) },
    reportDecider,
    { type: "restore", from, note: input.note, who: ctx.metadata.actor },
    ctx.metadata,
  );
  await settled(ctx, appended);
  return publishedNo(events);
}

/** The number of the version a publish or restore made. */
function publishedNo(events: ReportEvent[]): number {
  const published = events.find((event) => event.type === "ReportVersionPublished");
  if (!published) throw new Error("a publish or restore decided no ReportVersionPublished");
  return published.data.no;
}

/**
 * A snapshot's ward scope (contract G.1). Its queries ran with the publisher's wards (db/wardScope.ts):
 * a publisher of some wards froze only theirs, and the snapshot says so; a publisher of every ward
 * also freezes the layer once per ward of the tenant, so that a caller of one ward sees that
 * ward's frozen rows, never the others'.
 */
async function freezeForWards(
  deps: ReportsDeps,
  tenant: string,
  freeze: () => Promise<Record<string, QueryOutcome>>,
): Promise<Pick<PublishedVersion, "frozenFor" | "frozenByWard">> {
  const publisherWards = currentWards();
  if (publisherWards !== null) return { frozenFor: [...publisherWards] };
  const frozenByWard: Record<string, Record<string, QueryOutcome>> = {};
  for (const ward of (await deps.wardsOf?.(tenant)) ?? []) frozenByWard[ward] = await withWardScope([ward], freeze);
  return { frozenFor: null, frozenByWard };
}

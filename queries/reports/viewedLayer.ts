import { drillTitle } from "../../commands/reports/spec/specVocabulary.ts";
import { textIn, type SpecLang } from "../../commands/reports/spec/localizedText.ts";
import { drillTemplateDefs, validateDrillArgs, validateParamValues } from "../../commands/reports/spec/sqlTemplate.ts";
import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import { runSpecQueries, type ReportRuntime } from "./runSpecQueries.ts";
import { ViewingRefusal, type DrillLayer, type ShownLayer, type ViewableVersion } from "./viewing.ts";

/** The layer a viewing call shows (viewing.ts shownLayer): the params and drill args it sends, checked, and the layer's results. */

/** The filter values a call runs with: what it sends, over the version's published values. */
export function paramValues(version: ViewableVersion, sent: unknown): Record<string, unknown> {
  const checked = validateParamValues(version.spec.params ?? [], version.params, sent);
  if ("problem" in checked) throw new ViewingRefusal("invalid", checked.problem);
  return checked.values;
}

/** A drill-through call's target, its checked args merged over the params, and its title in the reader's language. */
export function drillLayer(
  version: ViewableVersion,
  drillKey: unknown,
  sentArgs: unknown,
  params: Record<string, unknown>,
  lang: SpecLang,
): DrillLayer {
  const drills = version.spec.drills ?? {};
  // Own keys only: `in` would take "__proto__" or "constructor" for a drill target.
  if (typeof drillKey !== "string" || !Object.hasOwn(drills, drillKey)) {
    const declared = Object.keys(drills);
    throw new ViewingRefusal(
      "invalid",
      declared.length
        ? `drill must be one of ${declared.join(", ")}.`
        : "This report declares no drill-through targets.",
    );
  }
  const drill = drills[drillKey]!;
  const args = validateDrillArgs(drill, sentArgs);
  if ("problem" in args) throw new ViewingRefusal("invalid", args.problem);
  return {
    key: drillKey,
    drill,
    title: drillTitle(textIn(drill.title, lang), args.values, lang),
    defs: drillTemplateDefs(version.spec.params ?? [], drill),
    values: { ...params, ...args.values },
  };
}

/** The layer's results: the frozen ones, or its queries run now on the version's data source. */
export async function layerResults(
  runtime: ReportRuntime,
  tenant: string,
  version: ViewableVersion,
  layer: ShownLayer,
  signal?: AbortSignal,
): Promise<Record<string, QueryOutcome>> {
  return (
    layer.frozen ??
    (await runSpecQueries(runtime, version.datasource, tenant, layer.queries, layer.defs, layer.values, { signal }))
  );
}

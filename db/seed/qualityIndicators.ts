import { z } from "zod";

/*
 * The month's quality indicators (contract G.2) as the dictionary writes them: each an entry with a
 * version, like a formula (F.2), so that a band or a rule changes only with a dictionary release and
 * a closed month names the version it was counted by. What each kind counts:
 * - `target`: of the patients under care whose first item (else, in order, a later one) was
 *   measured in the month, those whose last value lies inside `band` (edges included);
 * - `tested`: of the patients under care, those with every item measured within `windowMonths`
 *   months up to and including the month;
 * - `timeliness`: critical values acknowledged within `band.high` minutes (contract G.3).
 */

/** Upper-case token, as item codes are: `[A-Z][A-Z0-9_]*`. */
const indicatorCodeSchema = z.string().regex(/^[A-Z][A-Z0-9_]*$/, "must match [A-Z][A-Z0-9_]*");

export const indicatorKinds = ["target", "tested", "timeliness"] as const;
export type IndicatorKind = (typeof indicatorKinds)[number];

export const indicatorBandSchema = z
  .strictObject({ low: z.number().nullable(), high: z.number().nullable() })
  .refine((band) => band.low !== null || band.high !== null, "give low, high or both")
  .refine((band) => band.low === null || band.high === null || band.low < band.high, "low must be below high");

export const qualityIndicatorSchema = z
  .strictObject({
    code: indicatorCodeSchema,
    name: z.string().min(1),
    nameEn: z.string().min(1),
    /** Changes only with a release of the dictionary that changes the indicator's meaning. */
    version: z.int().positive(),
    kind: z.enum(indicatorKinds),
    /**
     * The standard items it reads. `target`: the item first, then the items that stand in for it
     * where it was not measured (calcium where corrected calcium could not be derived);
     * `tested`: every item that must have been measured; `timeliness`: none.
     */
    items: z.array(indicatorCodeSchema),
    /** `target` and `timeliness`: the band a value must lie in, edges included (an open side is null). */
    band: indicatorBandSchema.nullable(),
    /** The months up to and including the month in which an item counts as measured. */
    windowMonths: z.int().min(1).max(12),
    /** Where the indicator and its band come from, cited so a unit director can check it. */
    source: z.string().min(1),
    /** The same citation in Chinese, for the pages' and the exports' Chinese readers (issue #54). */
    sourceZh: z.string().min(1).optional(),
  })
  .superRefine((indicator, ctx) => {
    const needsItems = indicator.kind !== "timeliness";
    if (needsItems !== indicator.items.length > 0)
      ctx.addIssue({
        code: "custom",
        path: ["items"],
        message: needsItems
          ? `a ${indicator.kind} indicator reads at least one item`
          : "a timeliness indicator reads no item",
      });
    if ((indicator.kind === "tested") !== (indicator.band === null))
      ctx.addIssue({
        code: "custom",
        path: ["band"],
        message:
          indicator.kind === "tested" ? "a tested indicator has no band" : `a ${indicator.kind} indicator has a band`,
      });
    if (indicator.kind === "target" && indicator.windowMonths !== 1)
      ctx.addIssue({ code: "custom", path: ["windowMonths"], message: "a target indicator reads its month alone" });
  });

export type QualityIndicator = z.infer<typeof qualityIndicatorSchema>;

/** The unit a timeliness indicator's band is written in. */
export const TIMELINESS_UNIT = "min";

/**
 * What is wrong with the dictionary's indicators, as issues for its schema: a code twice, an item
 * the dictionary does not have, or a target read from an item that is not numeric.
 */
export function indicatorIssues(
  indicators: readonly QualityIndicator[],
  items: ReadonlyArray<{ code: string; valueType: string }>,
): Array<{ path: Array<string | number>; message: string }> {
  const issues: Array<{ path: Array<string | number>; message: string }> = [];
  const byCode = new Map(items.map((item) => [item.code, item]));
  const seen = new Set<string>();
  indicators.forEach((indicator, i) => {
    if (seen.has(indicator.code))
      issues.push({ path: ["indicators", i, "code"], message: `duplicate indicator code ${indicator.code}` });
    seen.add(indicator.code);
    indicator.items.forEach((code, j) => {
      const item = byCode.get(code);
      if (!item)
        issues.push({ path: ["indicators", i, "items", j], message: `${code} is not an item of the dictionary` });
      else if (indicator.kind === "target" && item.valueType !== "numeric")
        issues.push({
          path: ["indicators", i, "items", j],
          message: `a target is read from numeric items; ${code} is not one`,
        });
    });
  });
  return issues;
}

/** The item an indicator is named by in answers (contract G.2 `item`): a target's first item, a tested indicator's only one, else null. */
export function indicatorItem(indicator: Pick<QualityIndicator, "kind" | "items">): string | null {
  if (indicator.kind === "target") return indicator.items[0] ?? null;
  return indicator.items.length === 1 ? indicator.items[0]! : null;
}

import { z } from "zod";
import type { TenantReader } from "../../db/tenantScope.ts";
import { localIsoDateTimeText } from "../../db/localDateTime.ts";
import { indicatorsInForce, type IndicatorInForce } from "./indicators.ts";
import { readMonthFacts, type AppliedThrough, type MonthScope } from "./monthFacts.ts";
import { countIndicators, indicatorFiguresSchema, type IndicatorFigures, type MonthFacts } from "./monthFigures.ts";

/** Contract G.2: `GET /api/quality/months/{yyyy-MM}`. */
export const monthAnswerSchema = z.object({
  month: z.string().meta({ description: "yyyy-MM", example: "2026-10" }),
  ward: z.string().nullable().meta({ description: "The ward counted; null: the whole tenant", example: "A" }),
  state: z.enum(["open", "closed"]).meta({
    description: "open: counted from what is known now; closed: the figures frozen when the month was closed",
  }),
  closedAt: localIsoDateTimeText.optional().meta({ description: "When it was closed (local yyyy-MM-ddTHH:mm:ss)" }),
  closedBy: z.string().optional().meta({ description: "Who closed it" }),
  indicators: z.array(indicatorFiguresSchema),
});
export type MonthAnswer = z.infer<typeof monthAnswerSchema>;

/** A month counted now: its figures, the facts they were counted from and the indicator versions. */
export interface LiveMonth {
  figures: IndicatorFigures[];
  facts: MonthFacts;
  indicators: IndicatorInForce[];
  applied: AppliedThrough | null;
}

/**
 * A month's figures from what is known now, by the indicators in force: the facts of the month
 * and of the months a tested indicator looks back over (monthFacts.ts), counted by G.2's rules
 * (monthFigures.ts).
 */
export async function liveMonth(reader: TenantReader, scope: MonthScope): Promise<LiveMonth> {
  const indicators = await indicatorsInForce(reader);
  const codes = [...new Set(indicators.flatMap((indicator) => indicator.items))];
  const windowMonths = Math.max(1, ...indicators.map((indicator) => indicator.windowMonths));
  const facts = await readMonthFacts(reader, scope, codes, windowMonths);
  return { figures: countIndicators(indicators, facts), facts, indicators, applied: facts.applied };
}

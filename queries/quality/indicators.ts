import { z } from "zod";
import { indicatorItem, indicatorKinds, type QualityIndicator } from "../../db/seed/qualityIndicators.ts";
import type { TenantReader } from "../../db/tenantScope.ts";

/** Contract G.2: a quality indicator in the version the dictionary releases put in force. */
export const indicatorAnswerSchema = z.object({
  code: z.string().meta({ example: "HGB_TARGET" }),
  name: z.string().meta({ example: "血红蛋白达标率" }),
  nameEn: z.string().meta({ example: "Haemoglobin at target" }),
  version: z.int().meta({ description: "Changed only by a dictionary release", example: 1 }),
  item: z.string().nullable().meta({
    description:
      "The standard item it is read from: a target's item, a tested indicator's only item; null when it reads several (INFECTION_TESTED) or none (CRITICAL_ACK_30MIN)",
    example: "HGB",
  }),
  band: z
    .object({
      low: z.number().optional(),
      high: z.number().optional(),
    })
    .meta({
      description:
        "Target and timeliness indicators: the band a value must lie in, edges included, in `unit`; an open side is left out. Empty for a tested indicator",
      example: { low: 110, high: 130 },
    }),
  unit: z.string().meta({ description: 'The band\'s unit: the item\'s standard unit, "min", or "" when unit-less' }),
  kind: z.enum(indicatorKinds),
  source: z.string().meta({ description: "The guidelines and indicator set it comes from" }),
  sourceZh: z.string().optional().meta({ description: "The same citation in Chinese, where the dictionary gives it" }),
  items: z.array(z.string()).meta({
    description:
      "Every item it reads: a target's item, then those standing in for it where it was not measured (CA for CA_CORR); every item a tested indicator needs",
    example: ["CA_CORR", "CA"],
  }),
  windowMonths: z.int().meta({
    description:
      "The months up to and including the month in which an item counts as measured (IPTH_TESTED 3, INFECTION_TESTED 6)",
    example: 1,
  }),
});
export type IndicatorAnswer = z.infer<typeof indicatorAnswerSchema>;

/** An indicator version as the month's figures need it: its definition, and when its release was recorded. */
export interface IndicatorInForce extends QualityIndicator {
  unit: string;
  released: { transactionId: string; position: number; at: Date };
}

interface IndicatorRow {
  code: string;
  version: number;
  name: string;
  name_en: string;
  kind: QualityIndicator["kind"];
  items: string[];
  band: { low: number | null; high: number | null } | null;
  window_months: number;
  unit: string;
  source: string;
  source_zh: string | null;
  released_at: Date;
  released_tx: string;
  released_position: string;
}

/** The indicators in force, in the dictionary's order. */
export async function indicatorsInForce(reader: TenantReader): Promise<IndicatorInForce[]> {
  const { rows } = await reader.query<IndicatorRow>(
    `select code, version, name, name_en, kind, items, band, window_months, unit, source, source_zh, released_at, released_tx::text, released_position
     from read.quality_indicators where superseded_at is null
     order by ordinal, code`,
  );
  return rows.map(indicatorOf);
}

function indicatorOf(row: IndicatorRow): IndicatorInForce {
  return {
    code: row.code,
    name: row.name,
    nameEn: row.name_en,
    version: row.version,
    kind: row.kind,
    items: row.items,
    band: row.band,
    windowMonths: row.window_months,
    source: row.source,
    ...(row.source_zh === null ? {} : { sourceZh: row.source_zh }),
    unit: row.unit,
    released: { transactionId: row.released_tx, position: Number(row.released_position), at: row.released_at },
  };
}

/** An indicator as `GET /api/quality/indicators` answers it. */
export function indicatorAnswer(indicator: IndicatorInForce): IndicatorAnswer {
  const band: IndicatorAnswer["band"] = {};
  if (indicator.band?.low != null) band.low = indicator.band.low;
  if (indicator.band?.high != null) band.high = indicator.band.high;
  return {
    code: indicator.code,
    name: indicator.name,
    nameEn: indicator.nameEn,
    version: indicator.version,
    item: indicatorItem(indicator),
    band,
    unit: indicator.unit,
    kind: indicator.kind,
    source: indicator.source,
    ...(indicator.sourceZh === undefined ? {} : { sourceZh: indicator.sourceZh }),
    items: [...indicator.items],
    windowMonths: indicator.windowMonths,
  };
}

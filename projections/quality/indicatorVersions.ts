import type { DictionaryEvent } from "../../commands/dictionary/events.ts";
import { TIMELINESS_UNIT } from "../../db/seed/qualityIndicators.ts";
import type { Projection } from "../runtime/projection.ts";

/**
 * The quality indicators' versions (contract G.2), released as the formulas' are (F.2,
 * projections/dictionary/formulaVersions.ts): each indicator in a version not seen before is in
 * force from the release's moment; the version it replaces, and an indicator the release no longer
 * holds, are kept with the moment they ended. A release that names a version seen before leaves it
 * as it was (versions only go forward), and one recorded before indicators were kept (no
 * `indicators`) says nothing about them. The one exception is a citation's Chinese words: a later
 * release of the same version may give them where an earlier one gave none (they translate the
 * source, they do not change what the version counts).
 */
export const qualityIndicatorsProjection: Projection<DictionaryEvent> = {
  name: "quality_indicators",
  version: 2,
  handles: ["DictionaryReleased"],
  tables: ["quality_indicators"],
  sharedTables: ["quality_indicators"],
  ddl: "projections/quality/indicatorVersions.sql",
  async apply(tx, event) {
    const { indicators, items } = event.data;
    if (indicators === undefined) return;
    const units = new Map(items.map((item) => [item.code, item.unit]));
    const released = indicators.map((indicator) => ({
      ...indicator,
      unit: indicator.kind === "timeliness" ? TIMELINESS_UNIT : (units.get(indicator.items[0] ?? "") ?? ""),
    }));
    await tx.query(
      `update quality_indicators q set superseded_at = $3
       where q.superseded_at is null and (q.code, q.version) not in (select * from unnest($1::text[], $2::integer[]))`,
      [released.map((indicator) => indicator.code), released.map((indicator) => indicator.version), event.recordedAt],
    );
    await tx.query(
      `insert into quality_indicators
       select code, version, name, "nameEn", kind, array(select jsonb_array_elements_text(items)), band, "windowMonths", unit, source,
              "sourceZh", ordinal, $2, $3::xid8, $4, null
       from rows from (jsonb_to_recordset($1::jsonb)
         as (code text, version integer, name text, "nameEn" text, kind text, items jsonb, band jsonb, "windowMonths" integer, unit text, source text, "sourceZh" text)
       ) with ordinality as x(code, version, name, "nameEn", kind, items, band, "windowMonths", unit, source, "sourceZh", ordinal)
       on conflict (code, version) do update set source_zh = excluded.source_zh
       where quality_indicators.source_zh is null and excluded.source_zh is not null`,
      [JSON.stringify(released), event.recordedAt, event.transactionId, event.position],
    );
  },
};

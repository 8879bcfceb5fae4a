import type { DictionaryEvent } from "../../commands/dictionary/events.ts";
import type { Projection } from "../runtime/projection.ts";
import { keepFormulaVersions } from "./formulaVersions.ts";

/**
 * The standard dialysis items in force, for report SQL (`std_items` of the clinical data source).
 * Version 2: the English name and the short clinical label (issue #34, item 5), so that a report
 * (and its xlsx and docx) can name items as staff know them; releases recorded before labels
 * existed leave both null. Version 3: the formulas' versions with when each was in force
 * (formula_versions, contract F.2).
 */
export const standardItemsProjection: Projection<DictionaryEvent> = {
  name: "standard_items",
  version: 3,
  handles: ["DictionaryReleased"],
  tables: ["std_items", "formula_versions"],
  sharedTables: ["std_items", "formula_versions"],
  ddl: "projections/dictionary/standardItems.sql",
  async apply(tx, event) {
    // Releases recorded before conversions were kept hold the served items only (no English name);
    // those recorded before labels, no label: null in both cases.
    const { version, items } = event.data;
    await tx.query("delete from std_items");
    await tx.query(
      `insert into std_items
       select code, name, category, unit, core, timing, "valueType", loinc, $2, "nameEn", label from json_to_recordset($1::json)
         as x(code text, name text, category text, unit text, core boolean, timing boolean, "valueType" text, loinc text, "nameEn" text, label text)`,
      [JSON.stringify(items), version],
    );
    await keepFormulaVersions(tx, event);
  },
};

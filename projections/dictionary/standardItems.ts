import type { DictionaryEvent } from "../../commands/dictionary/events.ts";
import type { Projection } from "../runtime/projection.ts";

/** The standard dialysis items in force, for report SQL (`std_items` of the clinical data source). */
export const standardItemsProjection: Projection<DictionaryEvent> = {
  name: "standard_items",
  version: 1,
  handles: ["DictionaryReleased"],
  tables: ["std_items"],
  sharedTables: ["std_items"],
  ddl: "projections/dictionary/standardItems.sql",
  async apply(tx, event) {
    // Releases recorded before conversions were kept hold the served items only: the same columns.
    const { version, items } = event.data;
    await tx.query("delete from std_items");
    await tx.query(
      `insert into std_items
       select code, name, category, unit, core, timing, "valueType", loinc, $2 from json_to_recordset($1::json)
         as x(code text, name text, category text, unit text, core boolean, timing boolean, "valueType" text, loinc text)`,
      [JSON.stringify(items), version],
    );
  },
};

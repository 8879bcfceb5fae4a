import { ITEM_MAPPING_EVENT_TYPES, type ItemMappingEvent } from "../../commands/dictionary/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";

/**
 * The tenants' item mappings (contract F.1): the list staff see, and the ones in force that pushes
 * map with. Version 2: the standard unit and how each sent unit converts to it, which the list shows
 * (issue #54: the applied conversion, urea mg/dL × 0.357, was never shown).
 */
export const itemMappingsProjection: Projection<ItemMappingEvent> = {
  name: "item_mappings",
  version: 2,
  handles: ITEM_MAPPING_EVENT_TYPES,
  tables: ["item_mappings", "item_mapping_steps"],
  ddl: "projections/dictionary/itemMappings.sql",
  async apply(tx: Tx, event: StoredEvent<ItemMappingEvent>) {
    if (event.type === "ItemMappingAdded") {
      const m = event.data;
      await tx.query(
        `insert into item_mappings (tenant, mapping_id, stream_id, client, item_code, item_name, unit, std_code,
           factor, reason, position, transaction_id, added_at, added_by, std_unit, units, other_units)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
        [
          event.tenant,
          m.mappingId,
          event.streamId,
          m.client,
          m.itemCode,
          m.itemName,
          m.unit,
          m.stdCode,
          m.factor,
          m.reason,
          event.position,
          event.transactionId,
          event.recordedAt,
          event.metadata.actor,
          m.stdUnit,
          JSON.stringify(m.units),
          JSON.stringify(m.otherUnits),
        ],
      );
    } else if (event.type === "ItemMappingApplied") {
      const step = event.data;
      await tx.query("insert into item_mapping_steps values ($1, $2, $3, $4, $5, $6, $7)", [
        event.tenant,
        step.mappingId,
        step.after,
        step.through,
        event.transactionId,
        event.position,
        event.recordedAt,
      ]);
    } else {
      await tx.query(
        "update item_mappings set removed_at = $2, removed_by = $3, removed_reason = $4, removed_tx = $5, removed_position = $6 where mapping_id = $1",
        [
          event.data.mappingId,
          event.recordedAt,
          event.metadata.actor,
          event.data.reason,
          event.transactionId,
          event.position,
        ],
      );
    }
  },
};

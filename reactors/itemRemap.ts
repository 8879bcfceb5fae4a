import type { ItemMappingAdded, ItemMappingAddedData, ItemMappingApplied, ItemMappingEvent } from "../commands/dictionary/events.ts";
import { recordRemapStep } from "../commands/dictionary/itemMappings.ts";
import { readStream, type StoredEvent } from "../db/eventStore.ts";
import { countMappingResults } from "../queries/dictionary/itemMappings.ts";
import type { Tx } from "../db/pool.ts";
import type { Projection } from "../projections/runtime/projection.ts";

/*
 * Contract F.1: the results stored before a mapping was made are re-mapped in the background, in
 * steps, the bulk jobs' way: each step is an ItemMappingApplied event naming a range of reports
 * (by externalId in code-point order) that the lab_results projection maps then
 * (projections/ingestion/itemRemapping.ts). A step commits with this reactor's checkpoint and is
 * taken once (the mapping's decider), so a killed worker resumes where the last step ended; each
 * step wakes the reactor for the next, until one reaches the end (through null). A mapping undone
 * meanwhile takes no more steps: undoing covers every result it mapped.
 *
 * The reactor reads the item rows only to cut the steps (some remapSteps.results unmapped results
 * each) and to count the mapping's results once for the progress shown; what a step maps is
 * decided by the projection when it applies the step, after every report received before the
 * mapping.
 */

/** Results a step re-maps, about: a step is one transaction of the lab_results projection. REMAP_STEP_RESULTS sets it; tests make steps smaller to see several. */
export const remapSteps = { results: 20_000 };

type ReactsTo = ItemMappingAdded | ItemMappingApplied;

export const itemRemapReactor: Projection<ReactsTo> = {
  name: "item_remap",
  version: 1,
  handles: ["ItemMappingAdded", "ItemMappingApplied"],
  emits: ["ItemMappingApplied"],
  tables: [],
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  async applyBatch(tx, events, { loading } = { loading: false }) {
    // A rebuilding generation acts on nothing: the live one takes the steps meanwhile.
    if (loading) return;
    const mappings = new Map<string, ItemMappingAddedData>();
    for (const event of events) {
      if (event.type === "ItemMappingAdded") {
        mappings.set(event.data.mappingId, event.data);
        await nextStep(tx, event, event.data, null, null);
      } else if (event.data.through !== null) {
        const mapping = mappings.get(event.data.mappingId) ?? (await mappingOf(tx, event));
        if (mapping) await nextStep(tx, event, mapping, event.data.through, event.data.total);
      }
    }
  },
};

/** The mapping a step belongs to, from its key stream's ItemMappingAdded of that id. */
async function mappingOf(tx: Tx, step: StoredEvent<ItemMappingApplied>): Promise<ItemMappingAddedData | null> {
  const { events } = await readStream<ItemMappingEvent>(tx, step.tenant, step.streamId);
  const added = events.findLast((event) => event.type === "ItemMappingAdded" && event.data.mappingId === step.data.mappingId);
  return added?.type === "ItemMappingAdded" ? added.data : null;
}

/**
 * Records the step after `after`: up to the report of the remapSteps.results-th unmapped result
 * on (of any item: lab_results_unmapped alone answers, without reading a row), or to the end.
 * The mapping's own results are counted once, when the re-mapping begins, for its progress.
 */
async function nextStep(tx: Tx, cause: StoredEvent<ReactsTo>, mapping: ItemMappingAddedData, after: string | null, total: number | null): Promise<void> {
  const counted = total ?? (await countMappingResults(tx, cause.tenant, mapping));
  const range = `i.tenant = $1 and i.std_code is null and ($2::text is null or i.external_id collate "C" > $2)`;
  const { rows } = await tx.query(`select i.external_id collate "C" as through from read.lab_results i where ${range} order by i.external_id collate "C" offset $3 limit 1`, [
    cause.tenant,
    after,
    remapSteps.results - 1,
  ]);
  const through: string | null = rows[0]?.through ?? null;
  const results =
    through === null ? Number((await tx.query(`select count(*) as n from (select 1 from read.lab_results i where ${range} limit $3) s`, [cause.tenant, after, remapSteps.results])).rows[0].n) : remapSteps.results;
  await recordRemapStep(tx, cause.tenant, cause.streamId, { mappingId: mapping.mappingId, after, through, results, total: counted }, { actor: "item-remap", causationId: String(cause.position) });
}

import type {
  ItemMappingAdded,
  ItemMappingAddedData,
  ItemMappingApplied,
  ItemMappingEvent,
} from "../commands/dictionary/events.ts";
import { recordRemapStep } from "../commands/dictionary/itemMappings.ts";
import { readStream, type StoredEvent } from "../db/eventStore.ts";
import { countMappingResults, remapCuts } from "../queries/dictionary/itemMappings.ts";
import type { Tx } from "../db/pool.ts";
import type { Projection } from "../projections/runtime/projection.ts";

/*
 * Contract F.1: the results stored before a mapping was made are re-mapped in the background, in
 * steps, the bulk jobs' way: each step is an ItemMappingApplied event naming a range of reports
 * (by externalId in code-point order) that the lab_results projection maps then, each step in a
 * transaction of its own (projections/ingestion/itemRemapping.ts). The reactor plans every step
 * when the mapping is made, in one transaction with its checkpoint: the projection then takes
 * them one after another, with no wait for the reactor between two (a step per wake-up of the
 * reactor took a second or more each while pushes kept the store's readers waiting). The
 * mapping's decider takes each step once; a mapping undone meanwhile maps nothing more in its
 * steps (lab_results applies mappings in force only), and undoing covers every result it mapped.
 *
 * The reactor cuts the steps (some remapSteps.results unmapped results each) from
 * lab_results_unmapped, and counts the mapping's results for the progress shown where the mapping
 * did not record them (mappings made before it did); what a step maps is decided by the
 * projection when it applies the step, after every report received before the mapping.
 */

/**
 * Results a step re-maps, about: a step is one transaction of the lab_results projection.
 * REMAP_STEP_RESULTS sets it; tests make steps smaller to see several.
 */
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
    for (const event of events) {
      if (event.type === "ItemMappingAdded") await planSteps(tx, event, event.data, null, event.data.matched ?? null);
      else if (event.data.through !== null) await planRestUnlessPlanned(tx, event);
    }
  },
};

/**
 * Reports whose item rows lab_results may still write before it reaches the mapping, at most, for
 * the plan to hold the step to the end: their unmapped results go to that step. A sender pushing
 * back to back keeps it a thousand or two behind; some are unmapped of each, rarely more than one.
 */
const LAGGING_REPORTS = 5000;

/** Whether lab_results has written the item rows of all but a few (LAGGING_REPORTS) of the reports received before `event`. */
async function itemRowsNearly(tx: Tx, event: StoredEvent): Promise<boolean> {
  const { rows } = await tx.query(
    `select count(*)::int as lagging from (
       select 1 from events e, projection_generations g
       where g.name = 'lab_results' and g.state = 'live' and e.type = 'LabReportReceived'
         and (e.transaction_id, e.position) > (g.last_tx, g.last_position) and (e.transaction_id, e.position) < ($1::xid8, $2::bigint)
       limit $3
     ) s`,
    [event.transactionId, event.position, LAGGING_REPORTS],
  );
  return rows[0].lagging < LAGGING_REPORTS;
}

/**
 * The last step of a plan (or one recorded by an earlier version of this reactor, a step at a
 * time) has no successor in its stream: the rest of the steps are planned from it, over the rows
 * stored by now. Others have theirs already.
 */
async function planRestUnlessPlanned(tx: Tx, step: StoredEvent<ItemMappingApplied>): Promise<void> {
  const { events } = await readStream<ItemMappingEvent>(tx, step.tenant, step.streamId);
  const mine = (event: ItemMappingEvent) => event.data.mappingId === step.data.mappingId;
  if (
    events.some((event) => event.type === "ItemMappingApplied" && mine(event) && event.data.after === step.data.through)
  )
    return;
  const added = events.findLast((event) => event.type === "ItemMappingAdded" && mine(event));
  if (added?.type === "ItemMappingAdded") await planSteps(tx, step, added.data, step.data.through, step.data.total);
}

/**
 * Records the steps after `after`: each up to the report of about the remapSteps.results-th
 * unmapped result on (of any item) among the rows stored now, and the step to the end. When the
 * item rows lag far behind the mapping (a bulk import's reports not written yet), the step to
 * the end waits: planned from the last cut once that step is recorded, it finds the rows written
 * meanwhile and cuts them too, instead of leaving them all to one last step. `total` is the
 * mapping's own results, for its progress: as the mapping recorded them, or counted here.
 */
async function planSteps(
  tx: Tx,
  cause: StoredEvent<ReactsTo>,
  mapping: ItemMappingAddedData,
  after: string | null,
  total: number | null,
): Promise<void> {
  // Counted where the mapping did not record it: a pass over the rows, where the cuts read the index alone.
  const counted = total ?? (await countMappingResults(tx, cause.tenant, mapping));
  const plan = await remapCuts(tx, cause.tenant, after, remapSteps.results);
  const metadata = { actor: "item-remap", causationId: String(cause.position) };
  let from = after;
  let upTo = 0;
  const toTheEnd = { through: null, upTo: plan.unmapped };
  const steps = plan.cuts.length === 0 || (await itemRowsNearly(tx, cause)) ? [...plan.cuts, toTheEnd] : plan.cuts;
  for (const cut of steps) {
    const step = {
      mappingId: mapping.mappingId,
      after: from,
      through: cut.through,
      results: cut.upTo - upTo,
      total: counted,
    };
    // Undone since (or taken already): the decider records nothing, and nothing more is to come.
    if (!(await recordRemapStep(tx, cause.tenant, cause.streamId, step, metadata))) return;
    from = cut.through;
    upTo = cut.upTo;
  }
}

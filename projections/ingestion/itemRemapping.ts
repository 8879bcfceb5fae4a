import type { ItemMappingAdded, ItemMappingApplied, ItemMappingRemoved } from "../../commands/dictionary/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import { boundedSql, factorInBoundsSql } from "../../db/numberBounds.ts";
import { latestOfferCte, monthShiftCtes, type RowScope } from "./resultSummaries.ts";

/*
 * The item rows' side of contract F.1: the tenants' item mappings, as the lab_results projection
 * keeps them (item_mapping_rules, labResults.sql), applied to the rows the dictionary left
 * unmapped. Stored events never change: a row is re-mapped from its mapping's event, by
 *   - each step of the item_remap reactor (ItemMappingApplied), for the rows stored before it;
 *   - the rows of every report received while it is in force, as they are written (a push maps
 *     with it too, but one that read the mappings a moment before it was made would not);
 *   - a rebuild's load, for every row at once.
 * Undoing it (ItemMappingRemoved) unmaps every row it mapped, pushed before or after it, and lets
 * another mapping in force take them. Of two mappings that match a row, the one naming more (the
 * sender, then the unit, then both code and name) wins, then the earlier: as a push chooses.
 */

/** Whether mapping rule `r` matches item row `i`: each key it names equal to the row's, trimmed. */
const MATCHES = `r.tenant = i.tenant and r.in_force
  and (r.client is null or i.client_name = r.client) and (r.item_code is null or btrim(i.item_code) = r.item_code)
  and (r.item_name is null or btrim(i.item_name) = r.item_name) and (r.unit is null or coalesce(btrim(i.unit), '') = r.unit)`;

/** Six significant digits, as the item mapper rounds a converted value (itemMapping.ts). */
const sixDigits = (x: string) =>
  `case when ${x} = 0 then 0::float8 else round((${x})::numeric, 5 - floor(log(abs((${x})::numeric)))::int)::float8 end`;

/** The rows (tenant, external_id, item_index) a statement changed, as a scope for the summaries. */
export interface ChangedRows {
  count: number;
  scope: RowScope;
}

function changedRows(rows: Array<{ tenant: string; external_id: string; item_index: number }>): ChangedRows {
  return {
    count: rows.length,
    scope: {
      where: (a) =>
        `(${a}.tenant, ${a}.external_id, ${a}.item_index) in (select * from unnest($1::text[], $2::text[], $3::integer[]))`,
      params: [rows.map((row) => row.tenant), rows.map((row) => row.external_id), rows.map((row) => row.item_index)],
    },
  };
}

/**
 * Maps the unmapped rows in `scope` that a mapping in force matches, each by the best of those
 * that match it (and only where that is `onlyMapping`, when given: a re-mapping step maps the rows
 * its own mapping is best for). Returns the rows it mapped.
 */
export async function applyMappingRules(
  tx: Tx,
  scope: RowScope,
  onlyMapping: string | null = null,
): Promise<ChangedRows> {
  const params = onlyMapping === null ? scope.params : [...scope.params, onlyMapping];
  const { rows } = await tx.query(
    `with ${mappingCtes(scope, onlyMapping)} select tenant, external_id, item_index from mapped`,
    params,
  );
  return changedRows(rows);
}

/**
 * A re-mapping step of its mapping, and, in the same statement, the rows it mapped into the month
 * summaries and the latest results: read from the update's own rows, not again from the table,
 * and the summaries' probe for a patient's other rows of a month sees the table as it was before
 * the step, when none of its rows had the item. Returns how many rows it mapped.
 */
export async function applyStepWithSummaries(tx: Tx, event: StoredEvent<ItemMappingApplied>): Promise<number> {
  const scope = stepScope(event);
  const everyRow = { from: "mapped", where: () => "true" };
  const alone = await aloneInForce(tx, event.tenant, event.data.mappingId);
  const { rows } = await tx.query(
    `with ${alone ? soleMappingCtes(scope) : mappingCtes(scope, event.data.mappingId)},
       ${monthShiftCtes(1, { ...everyRow, outside: () => "true" })}, ${latestOfferCte(everyRow)}
     select count(*)::int as n from mapped`,
    [...scope.params, event.data.mappingId],
  );
  return rows[0].n as number;
}

/** Whether the mapping is in force and no other mapping of its tenant is: none competes for the rows it matches. */
async function aloneInForce(tx: Tx, tenant: string, mappingId: string): Promise<boolean> {
  const { rows } = await tx.query(
    `select exists (select 1 from item_mapping_rules where mapping_id = $2 and in_force)
        and not exists (select 1 from item_mapping_rules where tenant = $1 and in_force and mapping_id <> $2) as alone`,
    [tenant, mappingId],
  );
  return rows[0].alone as boolean;
}

/**
 * mappingCtes for a step of the one mapping in force of its tenant (the statement's parameter
 * after the scope's): the unmapped rows it matches, updated as they are found. With no other
 * mapping to choose from, the best-of sort and the second visit of each row by its key go (a
 * third of a step's time); the rows and their values are the same.
 */
function soleMappingCtes(scope: RowScope): string {
  const only = `$${scope.params.length + 1}::uuid`;
  const numeric = `i.value_num is not null and coalesce(i.result_type, '') not in ('QUALITATIVE', 'TEXT')`;
  return `r as (select * from item_mapping_rules where mapping_id = ${only} and in_force),
     unit_conversions as (
       select 0 as rank, u->>'unit' as unit, u->>'unitStatus' as unit_status, (u->>'factor')::float8 as factor, coalesce((u->>'offset')::float8, 0) as "offset"
       from r, jsonb_array_elements(r.units) u
       union all
       select 1, null, r.other_units->>'unitStatus', (r.other_units->>'factor')::float8, coalesce((r.other_units->>'offset')::float8, 0) from r
     ),
     mapped as (
       update lab_results i set
         std_code = r.std_code, std_name = r.std_name, category = r.category, std_unit = r.std_unit, mapping_id = r.mapping_id,
         (unit_status, std_value) = (
           select case when ${numeric} then c.unit_status else 'not-applicable' end,
                  case when not (${numeric}) or c.factor is null or not ${factorInBoundsSql("c.factor")} then null
                       when c.factor = 1 and c."offset" = 0 then i.value_num
                       else ${boundedSql(sixDigits('i.value_num * c.factor + c."offset"'))} end
           from unit_conversions c where c.rank = 1 or c.unit = coalesce(btrim(i.unit), '') order by c.rank limit 1
         )
       from r
       where ${MATCHES} and i.std_code is null and ${scope.where("i")}
       returning i.*
     )`;
}

/**
 * The common table expressions that map the unmapped rows in `scope` a mapping in force matches,
 * each by the best of those that match it (only where that is `onlyMapping`, when given, the
 * the statement's parameter after the scope's), the last of them (`mapped`) the update, returning
 * the rows as mapped.
 */
function mappingCtes(scope: RowScope, onlyMapping: string | null): string {
  const only = `$${scope.params.length + 1}::uuid`;
  return `best as (
       select distinct on (i.tenant, i.external_id, i.item_index) i.tenant, i.external_id, i.item_index, r.mapping_id,
              i.value_num is not null and coalesce(i.result_type, '') not in ('QUALITATIVE', 'TEXT') as numeric_value,
              coalesce((select u from jsonb_array_elements(r.units) u where u->>'unit' = coalesce(btrim(i.unit), '')), r.other_units) as conversion
       from lab_results i join item_mapping_rules r on ${MATCHES}
       where i.std_code is null and ${scope.where("i")} and exists (select 1 from item_mapping_rules where in_force)
       order by i.tenant, i.external_id, i.item_index, r.specificity desc, r.position
     ),
     chosen as (
       select b.tenant, b.external_id, b.item_index, r.mapping_id, r.std_code, r.std_name, r.category, r.std_unit, b.numeric_value,
              b.conversion->>'unitStatus' as unit_status, (b.conversion->>'factor')::float8 as factor,
                coalesce((b.conversion->>'offset')::float8, 0) as "offset"
       from best b join item_mapping_rules r on r.mapping_id = b.mapping_id
       where ${onlyMapping === null ? "true" : `b.mapping_id = ${only}`}
     ),
     mapped as (
       update lab_results i set
         std_code = c.std_code, std_name = c.std_name, category = c.category, std_unit = c.std_unit, mapping_id = c.mapping_id,
         unit_status = case when c.numeric_value then c.unit_status else 'not-applicable' end,
         std_value = case when not c.numeric_value or c.factor is null or not ${factorInBoundsSql("c.factor")} then null
                          when c.factor = 1 and c."offset" = 0 then i.value_num
                          else ${boundedSql(sixDigits('i.value_num * c.factor + c."offset"'))} end
       from chosen c
       where i.tenant = c.tenant and i.external_id = c.external_id and i.item_index = c.item_index
       returning i.*
     )`;
}

/**
 * A mapping rule from an ItemMappingAdded event's data (`d`, jsonb), its position and tenant: the
 * columns of item_mapping_rules, in force.
 */
const RULE_FROM_EVENT = `select tenant, (d->>'mappingId')::uuid, d->>'client', d->>'itemCode', d->>'itemName', d->>'unit',
         d->>'stdCode', d->>'stdName', d->>'category', d->>'stdUnit', d->'units', d->'otherUnits',
         (case when d->>'client' is not null then 4 else 0 end) + (case when d->>'unit' is not null then 2 else 0 end)
           + (case when d->>'itemCode' is not null and d->>'itemName' is not null then 1 else 0 end),
         position, true`;

/** A mapping made: kept, in force, for the rows written from now on and the re-mapping steps to come. */
export async function keepMappingRule(tx: Tx, event: StoredEvent<ItemMappingAdded>): Promise<void> {
  await tx.query(
    `insert into item_mapping_rules ${RULE_FROM_EVENT} from (select $1::text as tenant, $2::jsonb as d, $3::bigint as position) e
     on conflict (mapping_id) do nothing`,
    [event.tenant, JSON.stringify(event.data), event.position],
  );
}

/**
 * A rebuild's load (after the item rows, as their events recorded them): the mappings in force at
 * `through` (each key stream's last ItemMappingAdded with no ItemMappingRemoved after it) kept,
 * the rows of mappings undone since unmapped, and every unmapped row mapped by the best in force.
 * `events` is the subquery of each mapping stream's last such event (lastOfEachStream).
 */
export async function loadMappingRules(tx: Tx, events: string, params: unknown[]): Promise<void> {
  await tx.query(
    `insert into item_mapping_rules ${RULE_FROM_EVENT} from (select tenant, data as d, position from ${events} last where type = 'ItemMappingAdded') e`,
    params,
  );
  await forgetMapping(tx, {
    where: (a) => `${a}.mapping_id is not null and ${a}.mapping_id not in (select mapping_id from item_mapping_rules)`,
    params: [],
  });
  await applyMappingRules(tx, { where: () => "true", params: [] });
  // Loaded at once, each mapping in force has mapped all it will: its progress is its rows, done
  // (the steps still to come find nothing left and add nothing).
  await tx.query(
    `insert into remap_progress
     select r.tenant, r.mapping_id, n, n, true from item_mapping_rules r
       cross join lateral (select count(*) as n from lab_results i where i.mapping_id = r.mapping_id) counted`,
  );
}

/** The rows of reports whose externalIds lie in a re-mapping step's range (code-point order, as the reactor chose it). */
export function stepScope(event: StoredEvent<ItemMappingApplied>): RowScope {
  return {
    where: (a) =>
      `${a}.tenant = $1 and ($2::text is null or ${a}.external_id collate "C" > $2) and ($3::text is null or ${a}.external_id collate "C" <= $3)`,
    params: [event.tenant, event.data.after, event.data.through],
  };
}

/** A step applied: its results counted into the mapping's progress, which ends with the last step. */
export async function recordStep(tx: Tx, event: StoredEvent<ItemMappingApplied>, results: number): Promise<void> {
  await tx.query(
    `insert into remap_progress values ($1, $2, $3, $4, $5)
     on conflict (mapping_id) do update set results = remap_progress.results + excluded.results, total = excluded.total, done = excluded.done`,
    [event.tenant, event.data.mappingId, results, event.data.total, event.data.through === null],
  );
}

/**
 * Whether the step's mapping was undone after the step was planned. The item_remap reactor plans
 * every step when the mapping is made, so an undo lands in the store after all of them, and in
 * order the projection would apply every step before it: a re-mapping undone while it ran would
 * still run to its end, and end DONE. The mapping's own stream says whether an undo followed
 * (one look-up by its key): its remaining steps then map nothing. A rebuild reaches the same rows
 * (loadMappingRules maps by the mappings in force, and an undone one maps nothing), and the
 * undoing hands the rows the stopped steps did not reach to the mappings in force (unmappedRowsOf).
 */
export async function undoneSince(tx: Tx, event: StoredEvent<ItemMappingApplied>): Promise<boolean> {
  const { rows } = await tx.query(
    `select exists (
       select 1 from events where tenant = $1 and stream_id = $2 and stream_version > $3
         and type = 'ItemMappingRemoved' and data->>'mappingId' = $4
     ) as undone`,
    [event.tenant, event.streamId, event.streamVersion, event.data.mappingId],
  );
  return rows[0].undone as boolean;
}

/** A step not taken (its mapping undone since): the mapping's total kept for its progress, which does not end. */
export async function recordStoppedStep(tx: Tx, event: StoredEvent<ItemMappingApplied>): Promise<void> {
  await tx.query(
    `insert into remap_progress values ($1, $2, 0, $3, false)
     on conflict (mapping_id) do update set total = excluded.total`,
    [event.tenant, event.data.mappingId, event.data.total],
  );
}

/** Whether the mapping's re-mapping has applied its last step. */
export async function remapEnded(tx: Tx, mappingId: string): Promise<boolean> {
  const { rows } = await tx.query("select done from remap_progress where mapping_id = $1", [mappingId]);
  return rows[0]?.done === true;
}

/** The unmapped rows an (undone) mapping's keys match, as its rule holds them. */
export function unmappedRowsOf(tenant: string, mappingId: string): RowScope {
  return {
    where: (a) => `${a}.tenant = $1 and ${a}.std_code is null and exists (
      select 1 from item_mapping_rules m where m.mapping_id = $2::uuid
        and (m.client is null or ${a}.client_name = m.client) and (m.item_code is null or btrim(${a}.item_code) = m.item_code)
        and (m.item_name is null or btrim(${a}.item_name) = m.item_name) and (m.unit is null or coalesce(btrim(${a}.unit), '') = m.unit))`,
    params: [tenant, mappingId],
  };
}

/** A mapping undone: no longer in force; every row it mapped is unmapped. Returns those rows (before another mapping takes them). */
export async function unmapRows(tx: Tx, event: StoredEvent<ItemMappingRemoved>): Promise<ChangedRows> {
  await tx.query("update item_mapping_rules set in_force = false where mapping_id = $1", [event.data.mappingId]);
  const { rows } = await tx.query(`select tenant, external_id, item_index from lab_results where mapping_id = $1`, [
    event.data.mappingId,
  ]);
  return changedRows(rows);
}

/** Unmaps the rows in `scope` (mapped by a mapping now undone): as the dictionary left them. */
export async function forgetMapping(tx: Tx, scope: RowScope): Promise<void> {
  await tx.query(
    `update lab_results i set std_code = null, std_name = null, category = null, std_unit = null, std_value = null,
       unit_status = 'not-applicable', mapping_id = null
     where ${scope.where("i")}`,
    scope.params,
  );
}

import type { ItemMappingAdded, ItemMappingRemoved } from "../../commands/dictionary/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import { boundedSql, factorInBoundsSql } from "../../db/numberBounds.ts";
import { RECEIVED } from "../ingestion/labReports.ts";

/*
 * The quality_months projection's own copy of what it reads of the laboratory reports: each
 * report's patient and month (quality_reports) and the result items the indicators are made of
 * (quality_items), with the tenants' item mappings (contract F.1) applied to the items the
 * dictionary left unmapped, as the lab_results projection applies them (itemRemapping.ts): of the
 * mappings in force that match an item, the one naming more (the sender, then the unit, then code
 * and name both) and then the earlier wins. A mapping applies to every stored item at once when it
 * is made, not step by step as the item_remap reactor's steps reach them: a month's figures need
 * the mapped value, not the progress of the re-mapping.
 */

/** A patient's month: what one recomputation of the month's last values covers. */
export interface MonthKey {
  tenant: string;
  patientRef: string;
  /** The month's first day, yyyy-MM-dd. */
  month: string;
}

/** The first day of the month of a report's time (collected, else reported) as a date: local time, as sent. */
export const MONTH_OF = (at: string) => `date_trunc('month', ${at})::date`;

/** A report's patient and month: the patient's month it counts in. */
export interface ReportMonth extends MonthKey {
  externalId: string;
}

/** The patients' months these reports lie in (reports without a patient lie in none). */
export async function monthsOfReports(tx: Tx, tenants: string[], externalIds: string[]): Promise<ReportMonth[]> {
  if (externalIds.length === 0) return [];
  const { rows } = await tx.query<ReportMonth>(
    `select r.tenant, r.external_id as "externalId", r.patient_ref as "patientRef", r.month::text as month
     from quality_reports r join unnest($1::text[], $2::text[]) as k(tenant, external_id) using (tenant, external_id)
     where r.patient_ref is not null`,
    [tenants, externalIds],
  );
  return rows;
}

/** Forgets the stored versions of these reports: a later version replaces a report wholly. */
export async function forgetReports(tx: Tx, tenants: string[], externalIds: string[]): Promise<void> {
  const scope = "(tenant, external_id) in (select * from unnest($1::text[], $2::text[]))";
  await tx.query(`delete from quality_items where ${scope}`, [tenants, externalIds]);
  await tx.query(`delete from quality_reports where ${scope}`, [tenants, externalIds]);
}

/**
 * Writes the reports received at `positions` (RECEIVED reads their payloads in the database) and
 * the items the projection keeps of them: those of `codes`, and those an item mapping gave or may
 * give a code. A cancelled report holds no result.
 */
export async function writeReports(tx: Tx, positions: number[], codes: readonly string[]): Promise<void> {
  const received = `select * from (${RECEIVED}) received where coalesce(report->>'status', '') <> 'CANCELLED'`;
  await tx.query(
    `insert into quality_reports
     select tenant, external_id, patient_ref, ${MONTH_OF("coalesce(collected_at, reported_at)")}, coalesce(collected_at, reported_at)
     from (${received}) r`,
    [positions],
  );
  await tx.query(
    `insert into quality_items
     select tenant, external_id, (ord - 1)::integer, m->>'stdCode', ${boundedSql("(m->>'stdValue')::double precision")},
            ${boundedSql("(m->>'valueNum')::double precision")}, m->>'valueText', s->>'resultType',
            client_name, s->>'itemCode', s->>'itemName', s->>'unit', case when m->>'mappedBy' = 'mapping' then (m->>'mappingId')::uuid end,
            coalesce(collected_at, reported_at), reported_at, coalesce(collected_at, reported_at)::date
     from (
       select r.*, jsonb_array_elements(mapped) as m, jsonb_array_elements(sent) as s, generate_series(1, jsonb_array_length(mapped)) as ord
       from (${received}) r
     ) item
     where m->>'stdCode' is null or m->>'stdCode' = any($2::text[]) or m->>'mappedBy' = 'mapping'`,
    [positions, codes],
  );
}

/** The reports' patient once claimed (a claim only ever gives an unmatched report its patient). */
export async function claimReport(tx: Tx, tenant: string, externalId: string, patientRef: string): Promise<void> {
  await tx.query("update quality_reports set patient_ref = $3 where tenant = $1 and external_id = $2", [
    tenant,
    externalId,
    patientRef,
  ]);
}

/** Which items a mapping statement considers, as a condition on quality_items aliased `i` and its parameters. */
interface ItemScope {
  where: (alias: string) => string;
  params: unknown[];
}

export const reportItems = (tenants: string[], externalIds: string[]): ItemScope => ({
  where: (i) => `(${i}.tenant, ${i}.external_id) in (select * from unnest($1::text[], $2::text[]))`,
  params: [tenants, externalIds],
});

const tenantItems = (tenant: string): ItemScope => ({ where: (i) => `${i}.tenant = $1`, params: [tenant] });

/** Whether mapping rule `r` matches item `i`: each key it names equal to the item's, trimmed (itemRemapping.ts). */
const MATCHES = `r.tenant = i.tenant and r.in_force
  and (r.client is null or i.client_name = r.client) and (r.item_code is null or btrim(i.item_code) = r.item_code)
  and (r.item_name is null or btrim(i.item_name) = r.item_name) and (r.unit is null or coalesce(btrim(i.unit), '') = r.unit)`;

/** Six significant digits, as the item mapper rounds a converted value (itemMapping.ts, itemRemapping.ts). */
const sixDigits = (x: string) =>
  `case when ${x} = 0 then 0::float8 else round((${x})::numeric, 5 - floor(log(abs((${x})::numeric)))::int)::float8 end`;

/**
 * Maps the unmapped items in `scope` by the best mapping in force that matches each, converting a
 * numeric value by the unit the mapping recorded for it. Returns the reports whose items it mapped.
 */
export async function applyMappings(tx: Tx, scope: ItemScope): Promise<{ tenants: string[]; externalIds: string[] }> {
  const { rows } = await tx.query<{ tenant: string; external_id: string }>(
    `with best as (
       select distinct on (i.tenant, i.external_id, i.item_index) i.tenant, i.external_id, i.item_index, r.mapping_id, r.std_code,
              i.value_num is not null and coalesce(i.result_type, '') not in ('QUALITATIVE', 'TEXT') as numeric_value,
              coalesce((select u from jsonb_array_elements(r.units) u where u->>'unit' = coalesce(btrim(i.unit), '')), r.other_units) as conversion
       from quality_items i join quality_mapping_rules r on ${MATCHES}
       where i.std_code is null and ${scope.where("i")}
       order by i.tenant, i.external_id, i.item_index, r.specificity desc, r.position
     ),
     chosen as (
       select *, (conversion->>'factor')::float8 as factor, coalesce((conversion->>'offset')::float8, 0) as "offset" from best
     )
     update quality_items i set std_code = c.std_code, mapping_id = c.mapping_id,
       std_value = case when not c.numeric_value or c.factor is null or not ${factorInBoundsSql("c.factor")} then null
                        when c.factor = 1 and c."offset" = 0 then i.value_num
                        else ${boundedSql(sixDigits('i.value_num * c.factor + c."offset"'))} end
     from chosen c
     where i.tenant = c.tenant and i.external_id = c.external_id and i.item_index = c.item_index
     returning i.tenant, i.external_id`,
    scope.params,
  );
  return { tenants: rows.map((row) => row.tenant), externalIds: rows.map((row) => row.external_id) };
}

/** A mapping made: kept, in force, and applied to every unmapped item of its tenant it matches. Returns the reports it mapped items of. */
export async function addMapping(
  tx: Tx,
  event: StoredEvent<ItemMappingAdded>,
): Promise<{ tenants: string[]; externalIds: string[] }> {
  const d = event.data;
  const specificity =
    (d.client !== null ? 4 : 0) + (d.unit !== null ? 2 : 0) + (d.itemCode !== null && d.itemName !== null ? 1 : 0);
  await tx.query(
    `insert into quality_mapping_rules values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, true) on conflict (mapping_id) do nothing`,
    [
      event.tenant,
      d.mappingId,
      d.client,
      d.itemCode,
      d.itemName,
      d.unit,
      d.stdCode,
      JSON.stringify(d.units),
      JSON.stringify(d.otherUnits),
      specificity,
      event.position,
    ],
  );
  return applyMappings(tx, tenantItems(event.tenant));
}

/**
 * A mapping undone: no longer in force; every item it mapped, pushed before or after it, unmapped,
 * then mapped by the best other mapping in force, if any. Returns the reports whose items it touched.
 */
export async function removeMapping(
  tx: Tx,
  event: StoredEvent<ItemMappingRemoved>,
): Promise<{ tenants: string[]; externalIds: string[] }> {
  await tx.query("update quality_mapping_rules set in_force = false where mapping_id = $1", [event.data.mappingId]);
  const { rows } = await tx.query<{ tenant: string; external_id: string }>(
    `update quality_items set std_code = null, std_value = null, mapping_id = null where mapping_id = $1
     returning tenant, external_id`,
    [event.data.mappingId],
  );
  const tenants = rows.map((row) => row.tenant);
  const externalIds = rows.map((row) => row.external_id);
  if (rows.length > 0) await applyMappings(tx, reportItems(tenants, externalIds));
  return { tenants, externalIds };
}

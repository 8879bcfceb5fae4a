import type { QueryResultRow } from "pg";
import { z } from "zod";
import type { ItemMappingRule, MappedUnit } from "../../commands/dictionary/events.ts";
import { localDateTime, localDateTimeText } from "../../db/localDateTime.ts";
import type { TenantReader } from "../../db/tenantScope.ts";

/** A mapping as `GET /api/dictionary/mappings` lists it. */
export const itemMappingSchema = z.object({
  mappingId: z.uuid(),
  client: z.string().nullable().meta({ description: "The sender it is for; null for every sender" }),
  itemCode: z.string().nullable(),
  itemName: z.string().nullable(),
  unit: z.string().nullable().meta({ description: "The sent unit it is for; null for any" }),
  stdCode: z.string(),
  stdUnit: z.string().meta({ description: 'The standard item\'s unit the values are converted to; "" for none' }),
  factor: z.number().nullable(),
  conversions: z
    .array(
      z.object({
        unit: z
          .string()
          .nullable()
          .meta({ description: 'A unit the item was sent in ("" for none); null: any other unit' }),
        unitStatus: z.enum(["standard", "converted", "assumed", "unknown", "not-applicable"]).meta({
          description:
            "standard: already the standard unit; converted: by factor and offset; assumed: sent without a unit, taken as the standard one; unknown: not convertible (no standard value); not-applicable: the item is not numeric",
        }),
        factor: z.number().nullable(),
        offset: z.number(),
      }),
    )
    .meta({
      description:
        "How the mapped values convert to stdUnit (standard value = sent value × factor + offset): each unit the item was sent in when the mapping was made, then any other unit",
    }),
  reason: z.string().nullable(),
  addedAt: localDateTimeText,
  addedBy: z.string(),
  removedAt: localDateTimeText.nullable().meta({ description: "When it was undone; null while in force" }),
  removedBy: z.string().nullable(),
  remap: z
    .object({
      status: z.enum(["RUNNING", "DONE", "STOPPED"]).meta({
        description: "STOPPED: the mapping was undone before its re-mapping ended (undoing covers what it re-mapped)",
      }),
      results: z
        .int()
        .meta({ description: "Stored results re-mapped so far (as the item rows report SQL reads have them)" }),
      total: z
        .int()
        .nullable()
        .meta({ description: "Stored results it matched when it was made; null until the re-mapping has begun" }),
    })
    .meta({ description: "The re-mapping of the results stored before the mapping was made" }),
});
export type ItemMapping = z.infer<typeof itemMappingSchema>;

const COLUMNS =
  "mapping_id, stream_id, client, item_code, item_name, unit, std_code, std_unit, units, other_units, factor, reason, position, added_at, added_by, removed_at, removed_by";
/** A mapping with how far the item rows have applied its re-mapping (lab_results' remap_progress). */
const WITH_PROGRESS = `select m.*, coalesce(p.results, 0) as remap_results, p.total as remap_total, coalesce(p.done, false) as remap_done
  from read.item_mappings m left join read.remap_progress p on p.mapping_id = m.mapping_id`;

/** A mapping's conversions as the list shows them: the units seen when it was made, then any other. */
function conversionsOf(row: QueryResultRow): ItemMapping["conversions"] {
  const units = (row.units ?? []) as MappedUnit[];
  const other = row.other_units as Omit<MappedUnit, "unit"> | null;
  const shown = (unit: string | null, conversion: Omit<MappedUnit, "unit">) => ({
    unit,
    unitStatus: conversion.unitStatus,
    factor: conversion.factor,
    offset: conversion.offset ?? 0,
  });
  return [...units.map((conversion) => shown(conversion.unit, conversion)), ...(other ? [shown(null, other)] : [])];
}

function toMapping(row: QueryResultRow): ItemMapping {
  const { position: _position, ...rule } = ruleOf(row);
  return {
    ...rule,
    stdUnit: row.std_unit ?? "",
    conversions: conversionsOf(row),
    reason: row.reason,
    addedAt: localDateTime(row.added_at),
    addedBy: row.added_by,
    removedAt: row.removed_at ? localDateTime(row.removed_at) : null,
    removedBy: row.removed_by,
    remap: {
      status: row.remap_done ? "DONE" : row.removed_at ? "STOPPED" : "RUNNING",
      results: row.remap_results,
      total: row.remap_total,
    },
  };
}

/** A page of the tenant's mappings, the newest first, older than `after`: those in force, and those undone. */
export async function listItemMappings(
  reader: TenantReader,
  { limit, after }: { limit: number; after: ItemMappingKey | null },
): Promise<Array<ItemMapping & { key: ItemMappingKey }>> {
  const { rows } = await reader.query(
    `select ${COLUMNS}, remap_results, remap_total, remap_done from (${WITH_PROGRESS}) m
     where $1::bigint is null or position < $1 order by position desc limit $2`,
    [after, limit],
  );
  return rows.map((row) => ({ ...toMapping(row), key: String(row.position) }));
}

/** Where a page of mappings ends: the position in the store of its last (oldest) mapping. */
export const itemMappingKey = z.string().regex(/^\d{1,19}$/);
export type ItemMappingKey = z.infer<typeof itemMappingKey>;

/** One mapping and the stream it lives in; null when the tenant has none of this id. */
export async function itemMappingById(
  reader: TenantReader,
  mappingId: string,
): Promise<(ItemMapping & { streamId: string }) | null> {
  if (!z.uuid().safeParse(mappingId).success) return null;
  const { rows } = await reader.query(
    `select ${COLUMNS}, remap_results, remap_total, remap_done from (${WITH_PROGRESS}) m where mapping_id = $1`,
    [mappingId],
  );
  return rows[0] ? { ...toMapping(rows[0]), streamId: rows[0].stream_id } : null;
}

/** A row of read.item_mappings as the rule pushes and histories match sent items with. */
function ruleOf(row: QueryResultRow): ItemMappingRule {
  return {
    mappingId: row.mapping_id,
    client: row.client,
    itemCode: row.item_code,
    itemName: row.item_name,
    unit: row.unit,
    stdCode: row.std_code,
    factor: row.factor,
    position: Number(row.position),
  };
}

/** The mappings in force, as pushes match sent items with them. */
export async function mappingsInForce(reader: TenantReader): Promise<ItemMappingRule[]> {
  const { rows } = await reader.query(`select ${COLUMNS} from read.item_mappings where removed_at is null`);
  return rows.map(ruleOf);
}

/**
 * Whether the tenant has a sending client of this name, revoked or not: a revoked sender's stored
 * results are still to be mapped (activeClientsNamed, for the open API's checks, knows active ones only).
 */
export async function clientNamed(reader: TenantReader, name: string): Promise<boolean> {
  const { rowCount } = await reader.query("select 1 from read.clients where name = $1 limit 1", [name]);
  return (rowCount ?? 0) > 0;
}

type MappingKeys = Pick<ItemMappingRule, "client" | "itemCode" | "itemName" | "unit">;

/**
 * The tenant's stored unmapped item rows a mapping of these keys matches, as a condition on
 * read.lab_results `i` with $1…$5 (keyParams). The tenant is named, not left to the reader's
 * scope: the item_remap reactor counts them on its own transaction, which has none.
 */
const MATCHED_UNMAPPED = `i.tenant = $1 and i.std_code is null
  and ($2::text is null or i.client_name = $2) and ($3::text is null or btrim(i.item_code) = $3)
  and ($4::text is null or btrim(i.item_name) = $4) and ($5::text is null or coalesce(btrim(i.unit), '') = $5)`;
const keyParams = (tenant: string, keys: MappingKeys) => [tenant, keys.client, keys.itemCode, keys.itemName, keys.unit];

/** How many stored results a mapping of these keys would re-map now (the re-mapping's total, for a mapping that did not record it). */
export async function countMappingResults(reader: TenantReader, tenant: string, keys: MappingKeys): Promise<number> {
  const { rows } = await reader.query(
    `select count(*)::int as n from read.lab_results i where ${MATCHED_UNMAPPED}`,
    keyParams(tenant, keys),
  );
  return rows[0].n as number;
}

/** How a re-mapping's steps cut the stored unmapped results (remapCuts). */
export interface RemapCuts {
  /** Where each step but the last ends (an externalId, in code-point order), with the unmapped results up to it. */
  cuts: Array<{ through: string; upTo: number }>;
  /** The unmapped results in all, of any item. */
  unmapped: number;
}

/**
 * The tenant's unmapped results after `after` (every one when null), of any item, cut into steps
 * of about `stepResults` each at a report's boundary: one pass over lab_results_unmapped in
 * externalId order, which holds all it reads (an index-only scan where the table is vacuumed).
 */
export async function remapCuts(
  reader: TenantReader,
  tenant: string,
  after: string | null,
  stepResults: number,
): Promise<RemapCuts> {
  const { rows } = await reader.query(
    `with unmapped as materialized (
       select i.external_id collate "C" as id, row_number() over (order by i.external_id collate "C") as n
       from read.lab_results i where i.tenant = $1 and i.std_code is null and ($2::text is null or i.external_id collate "C" > $2)
     )
     select (select count(*) from unmapped)::int as unmapped,
            coalesce((select json_agg(json_build_object('through', id, 'upTo', n) order by n) from unmapped where n % $3 = 0), '[]') as cuts`,
    [tenant, after, stepResults],
  );
  const plan = rows[0] as RemapCuts;
  // A report's results are one step's: a cut inside the report moves to its end (the next cut at the same report is dropped).
  plan.cuts = plan.cuts.filter((cut, k) => k === 0 || cut.through !== plan.cuts[k - 1]!.through);
  return plan;
}

/** `POST /api/dictionary/mappings/preview`: what a mapping of these keys would re-map now. */
export const mappingPreviewSchema = z.object({
  results: z.int().meta({
    description:
      "Stored results, every ward's, no dictionary entry matched that the mapping matches: those it would re-map now",
  }),
  reports: z.int().meta({ description: "The reports they belong to" }),
  units: z
    .array(z.string())
    .meta({ description: 'The units they were sent in ("" for none), the most frequent first' }),
});
export type MappingPreview = z.infer<typeof mappingPreviewSchema>;

/**
 * The results a mapping of these keys would re-map now, their reports and the units they were sent
 * in (a new mapping records how each converts): one pass over them.
 */
export async function mappingPreview(reader: TenantReader, tenant: string, keys: MappingKeys): Promise<MappingPreview> {
  const { rows } = await reader.query(
    `with matched as materialized (select i.external_id, coalesce(btrim(i.unit), '') as unit from read.lab_results i where ${MATCHED_UNMAPPED}),
     per_unit as (select unit, count(*)::int as results from matched group by unit)
     select (select count(*) from matched)::int as results, (select count(distinct external_id) from matched)::int as reports,
            coalesce((select array_agg(unit order by results desc, unit) from per_unit), '{}') as units`,
    keyParams(tenant, keys),
  );
  return rows[0] as MappingPreview;
}

/**
 * How many stored results a mapping of these keys would re-map now, and the units they were sent
 * in: mappingPreview without its reports, which a sort of every result costs.
 */
export async function unitsSent(
  reader: TenantReader,
  tenant: string,
  keys: MappingKeys,
): Promise<{ results: number; units: string[] }> {
  const { rows } = await reader.query(
    `select coalesce(sum(results), 0)::int as results, coalesce(array_agg(unit order by results desc, unit), '{}') as units
     from (select coalesce(btrim(i.unit), '') as unit, count(*)::int as results from read.lab_results i where ${MATCHED_UNMAPPED} group by 1) per_unit`,
    keyParams(tenant, keys),
  );
  return rows[0] as { results: number; units: string[] };
}

/** Where an event stands in the feed's order: its transaction, then its position. */
export interface FeedPlace {
  tx: bigint;
  position: number;
}

/** A mapping's life, for a report's history: when it came into force and when it was undone. */
export interface MappingLife {
  rule: ItemMappingRule;
  /** How the values of each unit seen when it was made convert, and of any other (its event's units, otherUnits). */
  units: MappedUnit[];
  otherUnits: Omit<MappedUnit, "unit"> | null;
  added: FeedPlace & { by: string };
  removed: (FeedPlace & { at: Date; by: string }) | null;
}

/** The mappings of a tenant, and the re-mapping steps that covered one report: what its history needs (reportHistory.ts). */
export interface MappingTimeline {
  mappings: MappingLife[];
  steps: Array<FeedPlace & { mappingId: string; at: Date }>;
}

/** Every mapping of the tenant (few), and the steps whose range of externalIds holds `externalId`. */
export async function mappingTimeline(reader: TenantReader, externalId: string): Promise<MappingTimeline> {
  const { rows: mappings } = await reader.query(
    `select ${COLUMNS}, transaction_id::text as tx, removed_tx::text, removed_position from read.item_mappings order by position`,
  );
  const { rows: steps } = await reader.query(
    `select mapping_id, transaction_id::text as tx, position, recorded_at from read.item_mapping_steps
     where (after_id is null or $1 collate "C" > after_id collate "C") and (through_id is null or $1 collate "C" <= through_id collate "C")`,
    [externalId],
  );
  return {
    mappings: mappings.map((row) => ({
      rule: ruleOf(row),
      units: (row.units ?? []) as MappedUnit[],
      otherUnits: (row.other_units ?? null) as Omit<MappedUnit, "unit"> | null,
      added: { tx: BigInt(row.tx), position: Number(row.position), by: row.added_by },
      removed: row.removed_tx
        ? { tx: BigInt(row.removed_tx), position: Number(row.removed_position), at: row.removed_at, by: row.removed_by }
        : null,
    })),
    steps: steps.map((row) => ({
      mappingId: row.mapping_id,
      tx: BigInt(row.tx),
      position: Number(row.position),
      at: row.recorded_at,
    })),
  };
}

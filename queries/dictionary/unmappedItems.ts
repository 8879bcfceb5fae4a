import { z } from "zod";
import { localDateTime, localDateTimeText } from "../../db/localDateTime.ts";
import type { TenantReader } from "../../db/tenantScope.ts";

/** One sent item no dictionary entry matched, as `GET /api/dictionary/unmapped` lists it (contract F.1). */
export const unmappedItemSchema = z.object({
  client: z.string().meta({
    description: "The sending client's name, as POST /api/dictionary/mappings takes it",
    example: "Central lab LIS",
  }),
  itemCode: z.string().nullable().meta({ description: "The item's code as sent", example: "X-LOCAL-42" }),
  itemName: z.string().nullable().meta({ description: "The item's name as sent", example: "某本地项目" }),
  unit: z.string().nullable().meta({ description: "The unit as sent", example: "mg/dL" }),
  results: z.int().meta({ description: "How many results of it were received in the days asked for" }),
  firstSeen: localDateTimeText.meta({ description: "When the first of them was received (local yyyy-MM-dd HH:mm:ss)" }),
  lastSeen: localDateTimeText.meta({ description: "When the last of them was received" }),
  examples: z.array(z.union([z.number(), z.string()])).meta({
    description: "Up to 5 different values as sent: texts first, then numbers from the smallest",
    example: ["阴性", 0.9, 1.2],
  }),
});
export type UnmappedItem = z.infer<typeof unmappedItemSchema>;

const EXAMPLES = 5;

/** Where a page of the list ends: its last item's results, client, code, name and unit. */
export const unmappedItemKey = z.tuple([
  z.int().min(0),
  z.string().max(1000),
  z.string().max(1000).nullable(),
  z.string().max(1000).nullable(),
  z.string().max(1000).nullable(),
]);
export type UnmappedItemKey = z.infer<typeof unmappedItemKey>;

/** The list's order after the count (client, then code, name and unit with nulls last) as one row value, comparable with a key's. */
const ORDER_KEY = (alias: string) =>
  `(${alias}.client, ${alias}.item_code is null, coalesce(${alias}.item_code, ''), ${alias}.item_name is null, ` +
  `coalesce(${alias}.item_name, ''), ${alias}.unit is null, coalesce(${alias}.unit, ''))`;

/**
 * The sent laboratory items that no dictionary entry matched, among the reports received from
 * `from` up to (not including) `until`, per sender, code, name and unit, the most frequent first.
 * Reports are counted as last received (a correction replaces its earlier version); the caller's
 * wards apply as to every item row (an item of a report still awaiting its patient is listed only
 * to callers without wards). lab_results_unmapped holds only these rows, so the list costs what
 * is unmapped, not what is stored.
 */
export async function unmappedItems(
  reader: TenantReader,
  from: Date,
  until: Date,
  { limit, after }: { limit: number; after: UnmappedItemKey | null },
): Promise<Array<UnmappedItem & { key: UnmappedItemKey }>> {
  const { rows } = await reader.query(
    `select * from (
       select r.client_name as client, i.item_code, i.item_name, i.unit, count(*)::int as results,
              min(r.received_at) as first_seen, max(r.received_at) as last_seen,
              (array_agg(distinct coalesce(to_jsonb(i.value_text), to_jsonb(i.value_num)))
                filter (where i.value_text is not null or i.value_num is not null))[1:${EXAMPLES}] as examples
       from read.lab_results i
       join read.lab_reports r on r.tenant = i.tenant and r.external_id = i.external_id
       where i.std_code is null and r.received_at >= $1 and r.received_at < $2
       group by r.client_name, i.item_code, i.item_name, i.unit
     ) g
     where $3::int is null or g.results < $3
        or (g.results = $3 and ${ORDER_KEY("g")} > ($4::text, $5::text is null, coalesce($5::text, ''),
          $6::text is null, coalesce($6::text, ''), $7::text is null, coalesce($7::text, '')))
     order by g.results desc, ${ORDER_KEY("g").slice(1, -1)}
     limit $8::int`,
    [
      from,
      until,
      after?.[0] ?? null,
      after?.[1] ?? null,
      after?.[2] ?? null,
      after?.[3] ?? null,
      after?.[4] ?? null,
      limit,
    ],
  );
  return rows.map((row) => ({
    client: row.client,
    itemCode: row.item_code,
    itemName: row.item_name,
    unit: row.unit,
    results: row.results,
    firstSeen: localDateTime(row.first_seen),
    lastSeen: localDateTime(row.last_seen),
    examples: row.examples ?? [],
    key: [row.results, row.client, row.item_code, row.item_name, row.unit],
  }));
}

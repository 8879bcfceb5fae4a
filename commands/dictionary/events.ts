import type { DictionaryItem, ExamType } from "../../db/seed/defaultDictionary.ts";
import type { QualityIndicator } from "../../db/seed/qualityIndicators.ts";
import { streamCodec, type Event } from "../kit/events.ts";
import type { MappingHit, SenderMappings, SentItem } from "../ingestion/itemMapping.ts";

/*
 * The dictionary context's published language: one stream of the shared tenant, `dictionary`,
 * saying which dictionary was in force from when.
 */

/** Reference data shared by every tenant lives under this tenant id, which no real tenant can have. */
export const SHARED_TENANT = "*";

/** The one stream of dictionary releases (of SHARED_TENANT): a stream of its kind alone, so its id has no key. */
export const DICTIONARY_STREAM = "dictionary";

/**
 * What every release's items hold. Releases are recorded whole (English names and unit
 * conversions included); those recorded before conversions were kept hold these fields only.
 */
export type ReleasedItem = Pick<
  DictionaryItem,
  "code" | "name" | "category" | "valueType" | "unit" | "loinc" | "aliases" | "core" | "timing"
> &
  Partial<DictionaryItem>;

export type DictionaryReleased = Event<
  "DictionaryReleased",
  {
    version: string;
    items: ReleasedItem[];
    examTypes: Array<Pick<ExamType, "code" | "name"> & Partial<ExamType>>;
    /** Contract G.2: the month's quality indicators; absent from releases recorded before they were kept. */
    indicators?: QualityIndicator[];
  }
>;

/** The events of the dictionary stream. */
export type DictionaryEvent = DictionaryReleased;

/**
 * A tenant's mapping of a sender's item that no dictionary entry matched to a standard item
 * (contract F.1), in a stream of its own per key (`item-mapping:<key digest>`), so that one key has
 * at most one mapping in force. The keys are compared trimmed and exactly as sent; a null key
 * matches anything. `unit` is the sent unit the mapping is for, and `factor` converts a value of a
 * unit neither the dictionary nor UCUM converts. `units` records how a numeric value of each unit
 * seen among the stored results converts (by the dictionary in force when the mapping was made),
 * and `otherUnits` how one of any other unit does, so that re-mapping stored results replays alike.
 */
export interface ItemMappingAddedData {
  mappingId: string;
  /** The sender's (client's) name; null for every sender of the tenant. */
  client: string | null;
  itemCode: string | null;
  itemName: string | null;
  unit: string | null;
  stdCode: string;
  /** The standard item as the dictionary in force names it, for the re-mapped item rows. */
  stdName: string;
  category: string;
  stdUnit: string;
  factor: number | null;
  reason: string | null;
  units: MappedUnit[];
  otherUnits: Omit<MappedUnit, "unit">;
  /**
   * The stored unmapped results it matched when it was made: the re-mapping's total. Absent from
   * mappings made before it was recorded (the item_remap reactor counts them then).
   */
  matched?: number;
}

/** How a numeric value sent in `unit` becomes the standard item's: stdValue = value × factor + offset (null factor: it has none). */
export interface MappedUnit {
  unit: string;
  unitStatus: "standard" | "converted" | "assumed" | "unknown" | "not-applicable";
  factor: number | null;
  offset: number;
}

export type ItemMappingAdded = Event<"ItemMappingAdded", ItemMappingAddedData>;
/** The mapping undone: every result it mapped, pushed before or after it, is unmapped again. */
export type ItemMappingRemoved = Event<"ItemMappingRemoved", { mappingId: string; reason: string | null }>;
/**
 * A step of re-mapping the results stored before the mapping (the item_remap reactor): the
 * unmapped results it matches of the reports whose externalIds (in code-point order) lie after
 * `after` and up to `through` (null: to the end, the last step). `results` is how many unmapped
 * results (of any item) the reactor counted in the step's range, `total` how many results of the
 * mapping it counted when it began.
 */
export type ItemMappingApplied = Event<
  "ItemMappingApplied",
  { mappingId: string; after: string | null; through: string | null; results: number; total: number }
>;
export type ItemMappingEvent = ItemMappingAdded | ItemMappingApplied | ItemMappingRemoved;
export const ITEM_MAPPING_EVENT_TYPES = [
  "ItemMappingAdded",
  "ItemMappingApplied",
  "ItemMappingRemoved",
] as const satisfies ReadonlyArray<ItemMappingEvent["type"]>;

/** `item-mapping:<digest of the mapping's keys>`. */
export const itemMappingStreams = streamCodec("item-mapping:");

/** A mapping as it is in force: what pushes and the re-map match a sent item with. */
export type ItemMappingRule = Pick<
  ItemMappingAddedData,
  "mappingId" | "client" | "itemCode" | "itemName" | "unit" | "stdCode" | "factor"
> & {
  /** Where its event stands in the store: of two mappings as specific, the earlier one wins. */
  position: number;
};

/*
 * How a mapping applies to a sent item, the same for a push, the history and (in SQL) the item
 * rows (projections/ingestion/itemRemapping.ts).
 */

const trimmed = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** Whether `rule` matches a sent item: each of its keys it names equal to the item's, trimmed. */
function matches(rule: ItemMappingRule, item: SentItem): boolean {
  return (
    (rule.itemCode === null || rule.itemCode === trimmed(item.itemCode)) &&
    (rule.itemName === null || rule.itemName === trimmed(item.itemName)) &&
    (rule.unit === null || rule.unit === trimmed(item.unit))
  );
}

/** The more a mapping names, the more it is meant for an item: the sender, then the unit, then both code and name. */
export function specificity(rule: Pick<ItemMappingRule, "client" | "itemCode" | "itemName" | "unit">): number {
  return (
    (rule.client !== null ? 4 : 0) +
    (rule.unit !== null ? 2 : 0) +
    (rule.itemCode !== null && rule.itemName !== null ? 1 : 0)
  );
}

/** The mappings in force for one sender, the most specific first (then the earliest). */
export function senderMappings(rules: readonly ItemMappingRule[], clientName: string): SenderMappings {
  const mine = rules
    .filter((rule) => rule.client === null || rule.client === clientName)
    .sort((a, b) => specificity(b) - specificity(a) || a.position - b.position);
  if (mine.length === 0) return NO_MAPPINGS;
  return {
    find(item: SentItem): MappingHit | null {
      const rule = mine.find((candidate) => matches(candidate, item));
      return rule ? { mappingId: rule.mappingId, stdCode: rule.stdCode, factor: rule.factor } : null;
    },
  };
}

export const NO_MAPPINGS: SenderMappings = { find: () => null };

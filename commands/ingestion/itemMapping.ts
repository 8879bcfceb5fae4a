/**
 * Maps the items of a pushed laboratory (or examination) report to the standard dictionary and
 * converts numeric values to the item's standard unit (contract B.2, "Item mapping"): by the
 * dictionary's conversions first, then by UCUM where the dictionary lists none for the sent unit.
 *
 * Mapping, first hit wins:
 *   1. the client's own code map: sender `itemCode` (trimmed, exact) → a standard code;
 *   2. a standard `code` equal to `itemCode` (case-insensitive, trimmed);
 *   3. the standard `name` or an alias equal to `itemName`, then to `itemCode`, compared with
 *      `normaliseItemKey` (case-insensitive, full-width folded, whitespace removed);
 *   4. the tenant's item mappings (contract F.1, itemMappings.ts): what staff mapped of the items
 *      the dictionary left unmapped. They never displace the dictionary: an item it maps is not
 *      listed as unmapped, so no mapping was made for it.
 *
 * Ingestion maps tens of thousands of items per second, so every lookup goes through `Map`s
 * built once per dictionary by `createItemMapper`; nothing scans the item list per item.
 */
import { normaliseItemKey } from "../../db/seed/defaultDictionary.ts";
import type { Dictionary, DictionaryItem } from "../../db/seed/defaultDictionary.ts";
import { normaliseUnitKey, ucumConversion } from "./units.ts";
import type { Conversion } from "./units.ts";
import { isReadableNumber } from "../../db/numberBounds.ts";

export interface SentItem {
  itemCode?: string;
  itemName?: string;
  value: number | string;
  unit?: string;
  resultType?: "NUMERIC" | "QUALITATIVE" | "TEXT";
}

export type MappedBy = "clientCodeMap" | "code" | "alias" | "mapping";
export type UnitStatus = "standard" | "converted" | "assumed" | "unknown" | "not-applicable";

export interface MappedItem {
  /** Standard item code; null when unmapped. */
  stdCode: string | null;
  stdName: string | null;
  category: string | null;
  mappedBy: MappedBy | null;
  /** The sent value as a number when it is one (a number, or a plain decimal string). */
  valueNum: number | null;
  /** The original string when the value was sent as a string; null when sent as a number. */
  valueText: string | null;
  /** `valueNum` in the standard unit; null when not numeric, unmapped or not convertible. */
  stdValue: number | null;
  /** The standard unit (`""` for unit-less items) when mapped; null when unmapped. */
  stdUnit: string | null;
  unitStatus: UnitStatus;
  /** With mappedBy "mapping": which of the tenant's item mappings (contract F.1). */
  mappingId?: string;
}

/** A tenant's item mapping that matched a sent item: to which standard item, and the factor for a unit the dictionary cannot convert. */
export interface MappingHit {
  mappingId: string;
  stdCode: string;
  factor: number | null;
}

/** The tenant's item mappings in force for one sender (itemMappings.ts). */
export interface SenderMappings {
  find(item: SentItem): MappingHit | null;
}

/** How a numeric value of a unit becomes a standard item's value: stdValue = value × factor + offset; factor null when it does not. */
export interface UnitConversion {
  unitStatus: UnitStatus;
  factor: number | null;
  offset: number;
}

export interface ItemMapper {
  map(item: SentItem, clientCodeMap?: ReadonlyMap<string, string>, mappings?: SenderMappings): MappedItem;
  /** The conversion of a numeric value sent in `unit` to the standard item `stdCode`'s unit; null for a code the dictionary does not have. */
  unitConversion(stdCode: string, unit: string, mappingFactor: number | null): UnitConversion | null;
  readonly dictionary: Dictionary;
}

/** Significant digits kept after a non-identity unit conversion (removes float noise). */
const CONVERSION_PRECISION = 6;

interface IndexedItem {
  item: DictionaryItem;
  /** True when values of this item are converted: numeric with a non-empty standard unit. */
  hasUnit: boolean;
  stdUnitKey: string;
  /** Unit key → conversion; `null` marks a key claimed by two conversions that disagree. */
  conversions: Map<string, Conversion | null>;
}

// ---------------------------------------------------------------------------------------------
// Values

/** Plain decimal notation only: optional minus, digits, optional fraction. No exponent, no "+". */
const PLAIN_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/u;
const NON_ASCII = /[^\x00-\x7f]/u;

/**
 * The sent value as a finite number when it is one: a finite number, or a string holding a plain
 * decimal ("12.5", " 12.50 ", "-3", full-width "１２.５"); otherwise null ("<0.5", "阴性", "1:8",
 * "1e3", "+5", "1,200", "").
 */
export function parseNumericValue(value: unknown): number | null {
  // A number past the bounds is unreadable, as text that is no number is (numberBounds.ts).
  if (typeof value === "number") return isReadableNumber(value) ? value : null;
  if (typeof value !== "string") return null;
  let s = value.trim();
  if (NON_ASCII.test(s)) s = s.normalize("NFKC").trim();
  if (!PLAIN_NUMBER.test(s)) return null;
  const n = Number(s);
  return isReadableNumber(n) ? n : null;
}

function roundSignificant(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(CONVERSION_PRECISION));
}

// ---------------------------------------------------------------------------------------------
// Mapper

function indexItem(item: DictionaryItem): IndexedItem {
  const hasUnit = item.valueType === "numeric" && item.unit.trim() !== "";
  const stdUnitKey = normaliseUnitKey(item.unit);
  const conversions = new Map<string, Conversion | null>();
  for (const conv of item.conversions) {
    const key = normaliseUnitKey(conv.unit);
    // A spelling of the standard unit itself (e.g. "umol/L" beside "µmol/L") stays "standard".
    if (key === stdUnitKey) continue;
    const next: Conversion = { factor: conv.toStandard.factor, offset: conv.toStandard.offset ?? 0 };
    if (!conversions.has(key)) {
      conversions.set(key, next);
    } else {
      const prev = conversions.get(key);
      if (prev && (prev.factor !== next.factor || prev.offset !== next.offset)) conversions.set(key, null);
    }
  }
  return { item, hasUnit, stdUnitKey, conversions };
}

/** Builds the lookup indexes for `dictionary` once; the returned mapper is cheap per item. */
export function createItemMapper(dictionary: Dictionary): ItemMapper {
  /** Lower-cased standard code → item. */
  const byCode = new Map<string, IndexedItem>();
  /** `normaliseItemKey` of name / alias → item. */
  const byAlias = new Map<string, IndexedItem>();

  const indexed = dictionary.items.map(indexItem);
  for (const entry of indexed) {
    const key = entry.item.code.trim().toLowerCase();
    if (!byCode.has(key)) byCode.set(key, entry);
  }
  // Aliases first (the dictionary guarantees them unique), then each item's own name and code in
  // case a custom dictionary left them out of its aliases; an earlier owner is never displaced.
  for (const entry of indexed) {
    for (const alias of entry.item.aliases) {
      const key = normaliseItemKey(alias);
      if (key !== "" && !byAlias.has(key)) byAlias.set(key, entry);
    }
  }
  for (const entry of indexed) {
    for (const own of [entry.item.name, entry.item.code]) {
      const key = normaliseItemKey(own);
      if (key !== "" && !byAlias.has(key)) byAlias.set(key, entry);
    }
  }

  function lookup(
    sent: SentItem,
    clientCodeMap: ReadonlyMap<string, string> | undefined,
  ): { entry: IndexedItem; by: MappedBy } | null {
    const code = typeof sent.itemCode === "string" ? sent.itemCode.trim() : "";
    if (code !== "") {
      if (clientCodeMap) {
        const target = clientCodeMap.get(code);
        if (target !== undefined) {
          // A map entry pointing at a code the dictionary does not have is ignored.
          const entry = byCode.get(target.trim().toLowerCase());
          if (entry) return { entry, by: "clientCodeMap" };
        }
      }
      const entry = byCode.get(code.toLowerCase());
      if (entry) return { entry, by: "code" };
    }
    if (typeof sent.itemName === "string") {
      const key = normaliseItemKey(sent.itemName);
      const entry = key === "" ? undefined : byAlias.get(key);
      if (entry) return { entry, by: "alias" };
    }
    if (code !== "") {
      const entry = byAlias.get(normaliseItemKey(code));
      if (entry) return { entry, by: "alias" };
    }
    return null;
  }

  /** The tenant's mapping of an item the dictionary does not know, when one matches and names an item of this dictionary. */
  function mapped(
    sent: SentItem,
    mappings: SenderMappings | undefined,
  ): { entry: IndexedItem; by: MappedBy; mapping: MappingHit } | null {
    const mapping = mappings?.find(sent);
    const entry = mapping ? byCode.get(mapping.stdCode.toLowerCase()) : undefined;
    return entry ? { entry, by: "mapping", mapping: mapping! } : null;
  }

  function map(sent: SentItem, clientCodeMap?: ReadonlyMap<string, string>, mappings?: SenderMappings): MappedItem {
    const valueNum = parseNumericValue(sent.value);
    // A number it does not read as one is kept as the text it was sent as.
    const valueText =
      typeof sent.value === "string"
        ? sent.value
        : typeof sent.value === "number" && valueNum === null
          ? String(sent.value)
          : null;
    const hit: { entry: IndexedItem; by: MappedBy; mapping?: MappingHit } | null =
      lookup(sent, clientCodeMap) ?? mapped(sent, mappings);
    if (!hit) {
      return {
        stdCode: null,
        stdName: null,
        category: null,
        mappedBy: null,
        valueNum,
        valueText,
        stdValue: null,
        stdUnit: null,
        unitStatus: "not-applicable",
      };
    }

    const { entry, by } = hit;
    const { item } = entry;
    const result: MappedItem = {
      stdCode: item.code,
      stdName: item.name,
      category: item.category,
      mappedBy: by,
      valueNum,
      valueText,
      stdValue: null,
      stdUnit: item.unit,
      unitStatus: "not-applicable",
      ...(hit.mapping ? { mappingId: hit.mapping.mappingId } : {}),
    };

    // The sender explicitly calling the result qualitative or text wins over a numeric look.
    const numeric =
      valueNum !== null &&
      item.valueType === "numeric" &&
      sent.resultType !== "QUALITATIVE" &&
      sent.resultType !== "TEXT";
    if (!numeric) return result;

    const conversion = convert(entry, typeof sent.unit === "string" ? sent.unit : "", hit.mapping?.factor ?? null);
    if (conversion.factor === null) {
      result.unitStatus = conversion.unitStatus;
      return result;
    }
    const raw = valueNum * conversion.factor + conversion.offset;
    // Identity conversions (e.g. mEq/L → mmol/L) keep the value exactly as sent.
    const value = conversion.factor === 1 && conversion.offset === 0 ? raw : roundSignificant(raw);
    if (!isReadableNumber(value)) {
      result.unitStatus = "unknown";
      return result;
    }
    result.stdValue = value;
    result.unitStatus = conversion.unitStatus;
    return result;
  }

  /**
   * How a numeric value sent in `unit` becomes the item's standard value: the unit's status and
   * stdValue = value × factor + offset (factor null: it does not). `mappingFactor` is the factor
   * staff gave with an item mapping, for a unit neither the dictionary nor UCUM converts.
   */
  function convert(entry: IndexedItem, unit: string, mappingFactor: number | null): UnitConversion {
    // Unit-less numeric items (Kt/V, INR): the value is already standard.
    if (!entry.hasUnit) return { unitStatus: "not-applicable", factor: 1, offset: 0 };
    // Most Chinese laboratory systems send SI units, which the dictionary uses as standard.
    if (unit.trim() === "") return { unitStatus: "assumed", factor: 1, offset: 0 };
    const key = normaliseUnitKey(unit);
    if (key === entry.stdUnitKey) return { unitStatus: "standard", factor: 1, offset: 0 };
    // The dictionary's own conversions come first, and a spelling it lists as ambiguous (null)
    // is not handed to UCUM either.
    const conv = entry.conversions.has(key) ? entry.conversions.get(key) : ucumConversion(unit.trim(), entry.item.unit);
    if (conv) return { unitStatus: "converted", factor: conv.factor, offset: conv.offset };
    if (mappingFactor !== null) return { unitStatus: "converted", factor: mappingFactor, offset: 0 };
    // Unknown unit for this item: never guess on a patient's value.
    return { unitStatus: "unknown", factor: null, offset: 0 };
  }

  function unitConversion(stdCode: string, unit: string, mappingFactor: number | null): UnitConversion | null {
    const entry = byCode.get(stdCode.toLowerCase());
    return entry ? convert(entry, unit, mappingFactor) : null;
  }

  return { map, unitConversion, dictionary };
}

/**
 * A client's configured code map (sender code → standard code) as a `Map` keyed by the trimmed
 * sender code. Entries with an empty key or target are dropped; when two keys trim to the same
 * code, an already-trimmed key wins over a padded one, otherwise the first one wins.
 */
export function parseClientCodeMap(entries: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const exact = new Set<string>();
  for (const [rawKey, rawTarget] of Object.entries(entries)) {
    if (typeof rawTarget !== "string") continue;
    const key = rawKey.trim();
    const target = rawTarget.trim();
    if (key === "" || target === "") continue;
    const isExact = key === rawKey;
    if (out.has(key) && (exact.has(key) || !isExact)) continue;
    out.set(key, target);
    if (isExact) exact.add(key);
  }
  return out;
}

/** Counts for a report's push result entry (`itemsMapped`, `itemsUnmapped`). */
export function summarise(mapped: readonly MappedItem[]): { itemsMapped: number; itemsUnmapped: number } {
  let itemsMapped = 0;
  for (const m of mapped) if (m.stdCode !== null) itemsMapped++;
  return { itemsMapped, itemsUnmapped: mapped.length - itemsMapped };
}

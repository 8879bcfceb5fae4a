/**
 * Maps the items of a pushed laboratory (or examination) report to the standard dictionary and
 * converts numeric values to the item's standard unit (contract B.2, "Item mapping"): by the
 * dictionary's conversions first, then by UCUM where the dictionary lists none for the sent unit.
 *
 * Mapping, first hit wins:
 *   1. the client's own code map: sender `itemCode` (trimmed, exact) → a standard code;
 *   2. a standard `code` equal to `itemCode` (case-insensitive, trimmed);
 *   3. the standard `name` or an alias equal to `itemName`, then to `itemCode`, compared with
 *      `normaliseItemKey` (case-insensitive, full-width folded, whitespace removed).
 *
 * Ingestion maps tens of thousands of items per second, so every lookup goes through `Map`s
 * built once per dictionary by `createItemMapper`; nothing scans the item list per item.
 */
import { normaliseItemKey } from "../../db/seed/defaultDictionary.ts";
import type { Dictionary, DictionaryItem } from "../../db/seed/defaultDictionary.ts";
import { normaliseUnitKey, ucumConversion } from "./units.ts";
import type { Conversion } from "./units.ts";

export interface SentItem {
  itemCode?: string;
  itemName?: string;
  value: number | string;
  unit?: string;
  resultType?: "NUMERIC" | "QUALITATIVE" | "TEXT";
}

export type MappedBy = "clientCodeMap" | "code" | "alias";
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
}

export interface ItemMapper {
  map(item: SentItem, clientCodeMap?: ReadonlyMap<string, string>): MappedItem;
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
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  let s = value.trim();
  if (NON_ASCII.test(s)) s = s.normalize("NFKC").trim();
  if (!PLAIN_NUMBER.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
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

  function map(sent: SentItem, clientCodeMap?: ReadonlyMap<string, string>): MappedItem {
    const valueNum = parseNumericValue(sent.value);
    const valueText = typeof sent.value === "string" ? sent.value : null;
    const hit = lookup(sent, clientCodeMap);
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
    };

    // The sender explicitly calling the result qualitative or text wins over a numeric look.
    const numeric =
      valueNum !== null &&
      item.valueType === "numeric" &&
      sent.resultType !== "QUALITATIVE" &&
      sent.resultType !== "TEXT";
    if (!numeric) return result;

    if (!entry.hasUnit) {
      // Unit-less numeric items (Kt/V, INR): the value is already standard.
      result.stdValue = valueNum;
      return result;
    }

    const unit = typeof sent.unit === "string" ? sent.unit : "";
    if (unit.trim() === "") {
      // Most Chinese laboratory systems send SI units, which the dictionary uses as standard.
      result.stdValue = valueNum;
      result.unitStatus = "assumed";
      return result;
    }

    const key = normaliseUnitKey(unit);
    if (key === entry.stdUnitKey) {
      result.stdValue = valueNum;
      result.unitStatus = "standard";
      return result;
    }

    // The dictionary's own conversions come first, and a spelling it lists as ambiguous (null)
    // is not handed to UCUM either.
    const conv = entry.conversions.has(key) ? entry.conversions.get(key) : ucumConversion(unit.trim(), item.unit);
    if (conv) {
      const raw = valueNum * conv.factor + conv.offset;
      // Identity conversions (e.g. mEq/L → mmol/L) keep the value exactly as sent.
      const value = conv.factor === 1 && conv.offset === 0 ? raw : roundSignificant(raw);
      if (Number.isFinite(value)) {
        result.stdValue = value;
        result.unitStatus = "converted";
        return result;
      }
    }

    // Unknown unit for this item: never guess on a patient's value.
    result.unitStatus = "unknown";
    return result;
  }

  return { map, dictionary };
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

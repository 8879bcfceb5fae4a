/**
 * Units as laboratories write them: a comparison key for the dictionary's own conversions, and
 * UCUM (through `@lhncbc/ucum-lhc`) for the codes FHIR carries and for conversions the dictionary
 * does not list.
 *
 * Every answer is cached: ingestion asks for tens of thousands of items a second, and a
 * laboratory sends few distinct spellings. The caches are bounded because the spellings come from
 * outside.
 */
import ucum from "@lhncbc/ucum-lhc";

const SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹";
const SUPERSCRIPT_RUN = /[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+/gu;
/** Leading power of ten in any common spelling: 10^9, 10*9, 10**9, 10E9, ×10^9, x10^9, *10^9. */
const POWER_OF_TEN = /^[×x*]?10(?:\^|\*\*|\*|e)(-?\d+)/iu;
const CACHE_LIMIT = 4096;

function cached<T>(compute: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    if (cache.has(key)) return cache.get(key)!;
    const value = compute(key);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, value);
    return value;
  };
}

/**
 * A unit with its spelling variants folded, case kept: superscripts as `^n`, full-width folded,
 * whitespace removed, the micro prefixes "µ" and "μ" as "u", a leading power of ten as `10^n`.
 */
function foldSpelling(unit: string): string {
  const s = unit
    // "10⁹/L" → "10^9/L" before NFKC would flatten the superscript into "109/L".
    .replace(SUPERSCRIPT_RUN, (run) => {
      let digits = "^";
      for (const c of run) digits += c === "⁻" ? "-" : String(SUPERSCRIPT_DIGITS.indexOf(c));
      return digits;
    })
    // NFKC folds full-width to half-width, the micro sign U+00B5 to Greek mu, "㎍" to "μg".
    .normalize("NFKC")
    .replace(/\s+/gu, "")
    .replace(/[µμ]/gu, "u")
    // "10^⁹" became "10^^9" above.
    .replace(/\^+/gu, "^");
  return s.replace(POWER_OF_TEN, "10^$1");
}

/**
 * Comparison key for units: whitespace removed, case-insensitive, full-width folded, the micro
 * prefixes "µ", "μ" and "u" unified, and a leading power of ten written as `10^n` whatever the
 * sender's spelling (`10^9/L`, `10*9/L`, `10E9/L`, `×10^9/L`, `x10^9/L`, `10⁹/L`).
 */
export const normaliseUnitKey = cached((unit) => foldSpelling(unit).toLowerCase().replace(/μ/gu, "u"));

// ---------------------------------------------------------------------------------------------
// UCUM

const ucumUtils = ucum.UcumLhcUtils.getInstance();
export const UCUM_SYSTEM = "http://unitsofmeasure.org";

/**
 * The UCUM code of a unit as laboratories and our dictionary write it ("10^9/L" → "10*9/L",
 * "µmol/L" → "umol/L", "mIU/mL" → "m[IU]/mL"), or null when it is no UCUM unit. UCUM is case
 * sensitive, so case is kept: "Mg/L" is megagrams per litre.
 */
export const ucumCodeOf = cached((unit: string): string | null => {
  const spelled = foldSpelling(unit)
    .replace(/^10\^(-?\d+)/u, "10*$1")
    // "m^2" → "m2": UCUM writes exponents as plain digits after the unit.
    .replace(/\^/gu, "")
    .replace(/(?<!\[)IU(?!\])/gu, "[IU]");
  if (spelled === "" || OBJECT_MEMBER.test(spelled)) return null;
  const answer = guarded(() => ucumUtils.validateUnitString(spelled));
  return answer?.status === "valid" ? answer.ucumCode : null;
});

/**
 * ucum-lhc looks units up in plain objects, so a name of Object.prototype's members
 * ("constructor", "toString") is found there as a "valid" unit whose conversion throws, and
 * within a longer unit it writes to the console. Such a name is no unit.
 */
const OBJECT_MEMBER = new RegExp(
  `(?<![A-Za-z0-9_])(?:${Object.getOwnPropertyNames(Object.prototype).join("|")})(?![A-Za-z0-9_])`,
  "u",
);

/** A call of ucum-lhc, which throws on some inputs: a unit it cannot read is no unit, never a failed push. */
function guarded<T>(call: () => T): T | null {
  try {
    return call();
  } catch {
    return null;
  }
}

export interface Conversion {
  factor: number;
  offset: number;
}

function convert(from: string, value: number, to: string): number | null {
  const answer = guarded(() => ucumUtils.convertUnitTo(from, value, to));
  return answer?.status === "succeeded" && typeof answer.toVal === "number" && Number.isFinite(answer.toVal)
    ? answer.toVal
    : null;
}

/** `from` → `to` as factor and offset, when UCUM converts one into the other along a straight line. */
function linearConversion(from: string, to: string): Conversion | null {
  const atZero = convert(from, 0, to);
  const atOne = convert(from, 1, to);
  const atThousand = convert(from, 1000, to);
  if (atZero === null || atOne === null || atThousand === null) return null;
  // Float noise such as 1000.0000000000001 would otherwise ride along into every value.
  const factor = Number((atOne - atZero).toPrecision(12));
  const offset = Number(atZero.toPrecision(12));
  if (factor === 0) return null;
  const expected = factor * 1000 + offset;
  return Math.abs(expected - atThousand) <= 1e-9 * Math.max(1, Math.abs(atThousand)) ? { factor, offset } : null;
}

const isDimensionless = cached((code: string) => convert(code, 1, "1") !== null);

const ucumConversionOfPair = cached((pair: string): Conversion | null => {
  const [sent = "", standard = ""] = pair.split("\u0000");
  const from = ucumCodeOf(sent);
  const to = ucumCodeOf(standard);
  // Between ratios UCUM knows no kinds: "mmol/mol" → "%" would give 4.8 % for an HbA1c of
  // 48 mmol/mol, where the clinical answer is 6.5 %. Such conversions belong in the dictionary.
  if (from === null || to === null || isDimensionless(to)) return null;
  const conversion = linearConversion(from, to);
  if (conversion === null) return null;
  // A sender writing "Mg/L" or "pg/ML" means milligrams, millilitres; UCUM reads mega. When the
  // lower-case reading converts too, to another value, the unit is ambiguous: never guess.
  const lowerCase = ucumCodeOf(sent.toLowerCase());
  if (lowerCase !== null && lowerCase !== from) {
    const other = linearConversion(lowerCase, to);
    if (other !== null && (other.factor !== conversion.factor || other.offset !== conversion.offset)) return null;
  }
  return conversion;
});

/**
 * How UCUM converts a value sent in `sentUnit` into `standardUnit`, or null when it cannot or
 * should not: either is no UCUM unit, they measure different things (mass and amount of substance
 * need a molecular weight), the standard unit is a ratio, or the sent unit reads differently in
 * lower case.
 */
export function ucumConversion(sentUnit: string, standardUnit: string): Conversion | null {
  return ucumConversionOfPair(`${sentUnit}\u0000${standardUnit}`);
}

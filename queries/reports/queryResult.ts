import pg from "pg";
import type { ColumnType } from "../../commands/reports/spec/queryOutcome.ts";

/** How PostgreSQL's values become a report query's result, in the shape commands/reports/spec/queryOutcome.ts names. */

export const PAGE_ROW_LIMIT = 5000;

const OID = {
  bool: 16,
  int8: 20,
  int2: 21,
  int4: 23,
  oid: 26,
  json: 114,
  float4: 700,
  float8: 701,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  jsonb: 3802,
} as const;

const COLUMN_TYPES = new Map<number, ColumnType>([
  [OID.bool, "boolean"],
  [OID.int2, "integer"],
  [OID.int4, "integer"],
  [OID.int8, "integer"],
  [OID.oid, "integer"],
  [OID.float4, "number"],
  [OID.float8, "number"],
  [OID.numeric, "number"],
  [OID.date, "date"],
  [OID.timestamp, "datetime"],
  [OID.timestamptz, "datetime"],
  [OID.json, "json"],
  [OID.jsonb, "json"],
]);

// Arrays come back as JSON arrays: numbers for int2/int4/float arrays, true/false for boolean
// arrays, strings for every other element type (as pg's parsers give them).
const NUMBER_ARRAYS = new Set([1005, 1007, 1021, 1022]);
const ARRAY_OIDS = new Set([...NUMBER_ARRAYS, 1000, 1016, 1231, 1009, 1015, 1014, 1182, 1115, 1185, 199, 3807, 2951]);
const parseTextArray = pg.types.getTypeParser(1009 as never) as (text: string) => string[];

export function columnTypeOf(oid: number): ColumnType {
  return COLUMN_TYPES.get(oid) ?? (ARRAY_OIDS.has(oid) ? "json" : "string");
}

function arrayValue(oid: number, text: string): unknown {
  if (NUMBER_ARRAYS.has(oid) || oid === 1000)
    return (pg.types.getTypeParser(oid as never) as (t: string) => unknown)(text);
  return parseTextArray(text);
}

/**
 * Values arrive as PostgreSQL's text and are shaped here: dates `yyyy-MM-dd`, date-times
 * `yyyy-MM-dd HH:mm:ss` (in the session's time zone, which is the service's), numbers as JSON
 * numbers unless a double cannot hold them exactly (then the digits as a string).
 */
export function valueOf(oid: number, text: string | null): unknown {
  if (text === null) return null;
  switch (oid) {
    case OID.bool:
      return text === "t";
    case OID.int2:
    case OID.int4:
    case OID.oid:
    case OID.float4:
    case OID.float8: {
      const value = Number(text);
      return Number.isFinite(value) ? value : text;
    }
    case OID.int8:
    case OID.numeric:
      return exactNumber(text);
    case OID.date:
      return text;
    case OID.timestamp:
    case OID.timestamptz:
      return text.slice(0, 19);
    case OID.json:
    case OID.jsonb:
      return JSON.parse(text);
    default:
      return ARRAY_OIDS.has(oid) ? arrayValue(oid, text) : text;
  }
}

function exactNumber(text: string): number | string {
  // Any decimal of at most 15 significant digits survives a double exactly, and 15 characters
  // hold at most 15 digits. Only longer ones need the careful check.
  if (text.length <= 15) {
    const value = Number(text);
    return Number.isFinite(value) ? value : text;
  }
  const value = Number(text);
  if (!Number.isFinite(value)) return text; // NaN, Infinity: keep PostgreSQL's word
  return sameDigits(value, text) ? value : text;
}

/** True when the double prints back as the same decimal number PostgreSQL sent. */
function sameDigits(value: number, text: string): boolean {
  const canonical = (s: string) => {
    let [int = "", frac = ""] = s.replace(/^[-+]/, "").split(".");
    int = int.replace(/^0+/, "");
    frac = frac.replace(/0+$/, "");
    return `${s.startsWith("-") && (int || frac) ? "-" : ""}${int || "0"}${frac ? `.${frac}` : ""}`;
  };
  const printed =
    Math.abs(value) >= 1e21 || (value !== 0 && Math.abs(value) < 1e-6) ? value.toFixed(20) : String(value);
  return canonical(printed) === canonical(text);
}

import fc from "fast-check";

/**
 * Generators of hostile input. JSON is produced as text, not through JSON.stringify, so it can hold
 * what a JavaScript value cannot: 1e400, -0, integers beyond 2^53, unpaired surrogates, duplicate
 * keys, `__proto__`.
 */

/** Strings known to have broken services: injection, traversal, encodings, sizes. */
export const NASTY_STRINGS: readonly string[] = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "\uffff",
  "\ufeff",
  "\u202e",
  "𝕏",
  "👩‍👩‍👧",
  "'",
  "''",
  '"',
  "\\",
  "' or '1'='1",
  "'; drop table events; --",
  "1; select pg_sleep(5)",
  "$1",
  "{{period}}",
  "[[ and 1=1 ]]",
  "../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "%2e%2e%2f",
  "%00",
  "<script>alert(1)</script>",
  "${7*7}",
  "__proto__",
  "constructor",
  "null",
  "undefined",
  "NaN",
  "-0",
  "1e400",
  "2026-02-30",
  "2026-02-29 24:00:00",
  "9999-12-31 23:59:59",
  "0000-01-01 00:00:00",
  "2026-03-01T07:30:00Z",
  "１１０１０５１９４９１２３１００２Ｘ",
  "11010519491231002x",
  "11010519491231002X",
  "440524188001010014",
  "HGB",
  "FINAL",
  "ECHO",
  "v1",
  "v0",
  "v99999999999",
  "draft",
  "x".repeat(129),
  "x".repeat(2001),
  "界".repeat(5000),
  "a".repeat(70_000),
];

/** Single UTF-16 code units: lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

/** Characters PostgreSQL cannot store in text or jsonb, or that break UTF-8 / UTF-16 handling. */
const POISON = ["\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\ufffe", "\u001b", "\u2028", "\u0085"];

/** An ordinary string with a poisonous character somewhere in it. */
const poisoned: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...POISON), fc.string({ maxLength: 12 }))
  .map(([before, poison, after]) => `${before}${poison}${after}`);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: codeUnit, maxLength: 8 }) },
  { weight: 2, arbitrary: poisoned },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
);

const NUMBER_TOKENS = [
  "1e400",
  "-1e400",
  "-0",
  "1e-400",
  "123456789012345678901234567890",
  "9007199254740993",
  "1E+2",
  "-9.9e307",
  "0.1",
  "4.9e-324",
  "1.7976931348623157e308",
];

export const numberToken: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom(...NUMBER_TOKENS),
);

/** JSON text of a string; JSON.stringify writes an unpaired surrogate as its \\u escape. */
export const stringToken: fc.Arbitrary<string> = hostileString.map((s) => JSON.stringify(s));

const KEYS = [
  "reports",
  "externalId",
  "patient",
  "idCard",
  "name",
  "items",
  "value",
  "version",
  "params",
  "drill",
  "args",
  "spec",
  "sql",
  "mode",
  "__proto__",
  "constructor",
  "toString",
  "",
];
const keyToken: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...KEYS).map((k) => JSON.stringify(k)) },
  { weight: 1, arbitrary: stringToken },
);

/** Any JSON text, a few levels deep, with hostile strings and numbers. */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberToken,
    stringToken,
    fc.constantFrom("true", "false", "null"),
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
  object: fc
    .array(fc.tuple(keyToken, tie("value")), { maxLength: 4 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${k}:${v}`).join(",")}}`),
})).value;

/**
 * A JSON value at a field: hostile JSON, or a hostile string (most fields are text, and a string
 * goes further than a value of the wrong type), sometimes the field left out.
 */
export const fieldValue: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 3, arbitrary: jsonText },
  { weight: 3, arbitrary: stringToken },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** Stands in for a replaced value until the JSON text is written (JSON.stringify keeps it as is). */
const MARK = "@@fuzz-value-";

/**
 * JSON text of `base` with the value at some of `paths` replaced by hostile JSON (or removed):
 * near-valid input that gets past the first checks and reaches the deeper ones.
 */
export function mutated(
  base: unknown,
  paths: readonly string[],
  options: { maxChanges?: number; valuesAt?: Record<string, fc.Arbitrary<string>> } = {},
): fc.Arbitrary<string> {
  const { maxChanges = 3, valuesAt = {} } = options;
  // A path with values of its own (e.g. SQL for a query's sql) takes those half of the time.
  const change = fc
    .constantFrom(...paths)
    .chain((path) =>
      fc.tuple(fc.constant(path), Object.hasOwn(valuesAt, path) ? fc.oneof(fieldValue, valuesAt[path]!) : fieldValue),
    );
  return fc.array(change, { minLength: 1, maxLength: maxChanges }).map((changes) => {
    const copy = structuredClone(base) as Record<string, unknown>;
    const replacements: string[] = [];
    for (const [path, value] of changes) {
      const keys = path.split(".");
      let holder: any = copy;
      for (const key of keys.slice(0, -1)) {
        if (typeof holder?.[key] !== "object" || holder[key] === null) holder = undefined;
        else holder = holder[key];
      }
      if (holder === undefined) continue;
      const last = keys[keys.length - 1]!;
      if (value === undefined) {
        delete holder[last];
      } else {
        holder[last] = `${MARK}${replacements.length}`;
        replacements.push(value);
      }
    }
    return JSON.stringify(copy).replace(
      new RegExp(`"${MARK}(\\d+)"`, "g"),
      (_all, n: string) => replacements[Number(n)]!,
    );
  });
}

/** Bytes that are not a JSON document: random, invalid UTF-8, cut-off JSON. */
export function brokenBody(valid: string): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
    fc.constantFrom(
      Buffer.from([0xff, 0xfe, 0xfd]),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from('{"reports":[{"externalId":"\xff\xfe"}]}', "latin1"),
      Buffer.from([0xed, 0xa0, 0x80]),
    ),
    fc.nat({ max: valid.length }).map((cut) => Buffer.from(valid.slice(0, cut))),
    fc
      .tuple(fc.nat({ max: valid.length }), fc.uint8Array({ minLength: 1, maxLength: 4 }))
      .map(([at, bytes]) =>
        Buffer.concat([Buffer.from(valid.slice(0, at)), Buffer.from(bytes), Buffer.from(valid.slice(at))]),
      ),
  );
}

/** Header values node:http will send: visible Latin-1, including bytes that are not UTF-8. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength: 60,
  }),
  fc.constantFrom(
    "",
    "Bearer",
    "Bearer ",
    "Basic dXNlcjpwYXNz",
    "bearer  x",
    "Bearer a b",
    "h1",
    "H1",
    "default",
    "../h1",
    "h1,h2",
    "%00",
    "\xff\xfe",
    "x".repeat(8000),
  ),
);

/** Bytes of a string percent-encoded, as a URL carries them (an unpaired surrogate becomes U+FFFD). */
export function percentEncoded(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

/** A path segment or query value as a hostile client writes it: encoded, raw Latin-1, or malformed escapes. */
export const urlPiece: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostileString.map(percentEncoded) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc
        .integer({ min: 0x21, max: 0xff })
        .filter((c) => c !== 0x7f && c !== 0x23 && c !== 0x3f)
        .map((c) => String.fromCharCode(c)),
      maxLength: 20,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "%",
      "%zz",
      "%ff%fe",
      "%c0%af",
      "%00",
      "%2e%2e%2f",
      "..",
      "..%5c",
      "%e0%a4%a",
      "%F0%9F%98",
      "+",
      "%2B",
      "a&b=c",
      "x=y",
    ),
  },
);

/** A query string of known and unknown names, repeated names included. */
export function queryString(names: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: urlPiece });
  return fc
    .array(fc.tuple(name, fc.option(urlPiece, { nil: undefined })), { maxLength: 4 })
    .map((pairs) =>
      pairs.length === 0 ? "" : `?${pairs.map(([n, v]) => (v === undefined ? n : `${n}=${v}`)).join("&")}`,
    );
}

/** JSON text of an object from members given as JSON text; an undefined member is left out. */
export function objectText(members: Record<string, string | undefined>): string {
  return `{${Object.entries(members)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${JSON.stringify(key)}:${value}`)
    .join(",")}}`;
}

/**
 * The Metabase-style SQL template of report queries (contract A.4) and the validation of the
 * values sent for it (contract A.3).
 *
 * Syntax
 * - `{{name}}` binds the value of param (or drill arg) `name`; spaces inside the braces are allowed
 *   (`{{ name }}`). `{{name.from}}` / `{{name.to}}` bind the ends of a `dateRange` / `numberRange`.
 *   A range must be used through `.from` / `.to`; `.from` / `.to` only on a range.
 * - `[[ … ]]` is an optional clause: it is dropped, brackets and all, when ANY placeholder inside
 *   it is null. Null means: the value is null or missing; for `.from` / `.to` the end is null (or
 *   the whole range is null); for a multi-select the array is empty. Optional clauses cannot be
 *   nested and must hold at least one placeholder (else the brackets would mean nothing). A
 *   dropped clause leaves nothing behind, as in Metabase.
 * - Outside an optional clause a null value binds SQL NULL (an empty multi-select binds NULL too,
 *   so "nothing chosen" always means "no restriction").
 * - `{{` not followed by a name (e.g. the array literal `'{{1,2},{3,4}}'`) is plain text; `{{`
 *   followed by a name must form a complete placeholder. `[[` and `]]` are always clause
 *   brackets (write `ARRAY[ [1,2] ]` with a space for a nested array constructor).
 * - Placeholders are recognised everywhere, also inside SQL string literals and comments, exactly
 *   as Metabase does: the template is not SQL-aware. Even there the value is never spliced into
 *   the text (`'{{x}}'` becomes `'$1::text'`), so it cannot change the statement; `sqlSafety`
 *   tells the author when such a parameter is then never used by the statement.
 *
 * Binding
 * - Every value is a positional parameter `$1, $2, …` with an explicit cast: date / dateRange →
 *   `::date`, number / numberRange → `::numeric`, text / select → `::text`, multiSelect →
 *   `::text[]` (elements converted to strings), boolean → `::boolean`; drill args by their type.
 *   The same placeholder (name and part) used twice reuses its parameter number.
 * - A space is put between a binding and an adjacent letter, digit, `_` or `$`, so `a{{x}}` does
 *   not become the identifier `a$1`.
 */
import type { DrillArgDef, DrillDef, ParamDef } from "./specSchema.ts";
import { isEmptyValue, isIsoDate, MAX_TEXT_VALUE_LENGTH, VALUE_SHAPES } from "./specSchema.ts";
import { isRangeParam } from "./specVocabulary.ts";

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateError";
  }
}

export type TemplateDef = ParamDef | DrillArgDef;

/**
 * What `{{name}}` can name in a drill's SQL: its args, and the report's params that no arg
 * shadows. An author may give an arg the name of a param on purpose (drill from a ward row into
 * the ward's patients while `ward` is also a filter); inside the drill the clicked row's value wins.
 */
export function drillTemplateDefs(params: ReadonlyArray<ParamDef>, drill: Pick<DrillDef, "args">): TemplateDef[] {
  const argNames = new Set(drill.args.map((arg) => arg.name));
  return [...drill.args, ...params.filter((param) => !argNames.has(param.name))];
}
export type Part = "from" | "to";

interface TextPiece {
  kind: "text";
  text: string;
  start: number;
}
interface PlaceholderPiece {
  kind: "placeholder";
  name: string;
  part?: Part;
  start: number;
  end: number;
}
type Piece = TextPiece | PlaceholderPiece;
/** Read loosely only: `[[` or `]]` wherever it stands, and a `{{name…}}` that is no placeholder. */
interface BracketPiece {
  kind: "bracket";
  start: number;
}
interface MalformedPiece {
  kind: "malformed";
  start: number;
  end: number;
}
export type LooseToken = Piece | BracketPiece | MalformedPiece;
interface OptionalClause {
  kind: "optional";
  pieces: Piece[];
  /** Offset of `[[` and just after `]]` in the template. */
  start: number;
  end: number;
}
type Token = Piece | OptionalClause;

/** The line and column (both 1-based, the column in UTF-16 units as an editor counts) of an offset of a text. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

/** "line 3, column 14" of an offset of a text (1-based). */
export function lineAndColumn(text: string, offset: number): string {
  const { line, column } = lineColumnOf(text, offset);
  return `line ${line}, column ${column}`;
}

/** Code point index (PostgreSQL counts characters) → UTF-16 index of a JS string. */
export function utf16Index(text: string, codePoints: number): number {
  let index = 0;
  let count = 0;
  for (const ch of text) {
    if (count >= codePoints) break;
    index += ch.length;
    count += 1;
  }
  return index;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.(from|to))?\s*\}\}/y;
const PLACEHOLDER_START = /\{\{\s*[A-Za-z_]/y;
/** A placeholder start up to the next `}}` with no brace between: what a loose reading takes for a (malformed) placeholder. */
const LOOSE_PLACEHOLDER = /\{\{\s*[A-Za-z_][^{}]*\}\}/y;

function tokenize(sql: string): Token[];
function tokenize(sql: string, loose: true): LooseToken[];
function tokenize(sql: string, loose = false): Array<Token | LooseToken> {
  const tokens: Array<Token | LooseToken> = [];
  let clause: OptionalClause | null = null;
  let text = "";
  let textStart = 0;
  const target = () => (clause ? clause.pieces : tokens);
  const flush = (at: number) => {
    if (text !== "") target().push({ kind: "text", text, start: textStart });
    text = "";
    textStart = at;
  };
  let i = 0;
  while (i < sql.length) {
    if (loose && (sql.startsWith("[[", i) || sql.startsWith("]]", i))) {
      flush(i);
      tokens.push({ kind: "bracket", start: i });
      i += 2;
      textStart = i;
      continue;
    }
    if (sql.startsWith("[[", i)) {
      if (clause) {
        throw new TemplateError(
          `Optional clauses cannot be nested: the [[ at ${lineAndColumn(sql, i)} opens a clause inside the one ` +
            `opened at ${lineAndColumn(sql, clause.start)}; close the first with ]] before opening another (for ` +
            "a nested array write ARRAY[ [1,2] ] with a space).",
        );
      }
      flush(i);
      clause = { kind: "optional", pieces: [], start: i, end: i };
      i += 2;
      textStart = i;
      continue;
    }
    if (sql.startsWith("]]", i)) {
      if (!clause) {
        throw new TemplateError(
          `The ]] at ${lineAndColumn(sql, i)} closes no optional clause: add the matching [[ or remove it (for nested subscripts write a[b[1] ] with a space).`,
        );
      }
      flush(i);
      clause.end = i + 2;
      if (!clause.pieces.some((p) => p.kind === "placeholder")) {
        throw new TemplateError(
          `The optional clause [[ … ]] at ${lineAndColumn(sql, clause.start)} holds no {{placeholder}}, so it ` +
            "would never be dropped: put a placeholder in it or remove the brackets.",
        );
      }
      tokens.push(clause);
      clause = null;
      i += 2;
      textStart = i;
      continue;
    }
    if (sql.startsWith("{{", i)) {
      PLACEHOLDER.lastIndex = i;
      const m = PLACEHOLDER.exec(sql);
      if (m) {
        flush(i);
        const piece: PlaceholderPiece = { kind: "placeholder", name: m[1]!, start: i, end: i + m[0].length };
        if (m[2]) piece.part = m[2] as Part;
        target().push(piece);
        i += m[0].length;
        textStart = i;
        continue;
      }
      if (loose) {
        LOOSE_PLACEHOLDER.lastIndex = i;
        const malformed = LOOSE_PLACEHOLDER.exec(sql);
        if (malformed) {
          flush(i);
          tokens.push({ kind: "malformed", start: i, end: i + malformed[0].length });
          i += malformed[0].length;
          textStart = i;
          continue;
        }
      }
      PLACEHOLDER_START.lastIndex = i;
      if (!loose && PLACEHOLDER_START.test(sql)) {
        // Show the placeholder itself only (up to its }} on the same line), never the SQL around it.
        const close = sql.indexOf("}}", i);
        const shown =
          close > 0 && close - i <= 80 && !sql.slice(i, close).includes("\n") ? ` ${sql.slice(i, close + 2)}` : "";
        throw new TemplateError(
          `The placeholder${shown} at ${lineAndColumn(sql, i)} is malformed: write {{name}}, or {{name.from}} ` +
            "/ {{name.to}} for a range, with a param name of letters, digits and _.",
        );
      }
    }
    text += sql[i];
    i += 1;
  }
  if (clause) {
    throw new TemplateError(
      `The optional clause [[ opened at ${lineAndColumn(sql, clause.start)} is never closed: add the matching ]].`,
    );
  }
  flush(i);
  return tokens;
}

/**
 * A template read without refusing anything, flat: the audit reads a query whatever its shape
 * (the save refuses a malformed template, with the sentences of the strict reading), so here an
 * unbalanced or nested bracket and a malformed placeholder are pieces of their own.
 */
export function readTemplateLoosely(sql: string): LooseToken[] {
  return tokenize(sql, true);
}

/** Every placeholder of a template, in order of appearance (repetitions included). */
export function placeholdersOf(sql: string): Array<{ name: string; part?: Part; optional: boolean }> {
  const out: Array<{ name: string; part?: Part; optional: boolean }> = [];
  const add = (p: Piece, optional: boolean) => {
    if (p.kind !== "placeholder") return;
    out.push(p.part ? { name: p.name, part: p.part, optional } : { name: p.name, optional });
  };
  for (const token of tokenize(sql)) {
    if (token.kind === "optional") token.pieces.forEach((p) => add(p, true));
    else add(token, false);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Compilation

type Cast = "date" | "numeric" | "text" | "text[]" | "boolean";

function castOf(def: TemplateDef): Cast {
  switch (def.type) {
    case "date":
    case "dateRange":
      return "date";
    case "number":
    case "numberRange":
      return "numeric";
    case "text":
    case "select":
      return "text";
    case "multiSelect":
      return "text[]";
    case "boolean":
      return "boolean";
  }
}

const isRange = (def: TemplateDef) => isRangeParam(def.type);
const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The value a placeholder stands for; null when it counts as null. */
function rawValue(def: TemplateDef, part: Part | undefined, values: Record<string, unknown>): unknown {
  const value = Object.hasOwn(values, def.name) ? values[def.name] : undefined;
  if (value === undefined || value === null) return null;
  if (part) {
    if (!Array.isArray(value))
      throw new TemplateError(`The value of ${def.name} must be ${VALUE_SHAPES[def.type as "dateRange"]}.`);
    return value[part === "from" ? 0 : 1] ?? null;
  }
  if (def.type === "multiSelect" && Array.isArray(value) && value.length === 0) return null;
  return value;
}

/** The value as bound to the parameter (never null here). */
function bindValue(def: TemplateDef, cast: Cast, value: unknown): unknown {
  const wrong = () =>
    new TemplateError(
      `The value of ${def.name} cannot be bound as ${cast}: validate the values first (got ${Array.isArray(value) ? "an array" : typeof value}).`,
    );
  switch (cast) {
    case "date":
      if (!isIsoDate(value)) throw wrong();
      return value;
    case "numeric":
      if (typeof value === "number" && Number.isFinite(value)) return value;
      if (typeof value === "string" && DECIMAL.test(value)) return value;
      throw wrong();
    case "text":
      if (typeof value === "string") return value;
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      throw wrong();
    case "text[]":
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string" || typeof v === "number")) throw wrong();
      return value.map(String);
    case "boolean":
      if (typeof value !== "boolean") throw wrong();
      return value;
  }
}

export interface CompiledTemplate {
  /** SQL text with `$n::type` in place of the placeholders. */
  text: string;
  /** Values of `$1, $2, …`. */
  values: unknown[];
}

/** A compiled template with what `sqlSafety` needs to point back at the template. */
export interface CompiledTemplateDetail extends CompiledTemplate {
  /** The template offset a text offset comes from (a binding maps to its placeholder). */
  sourceOffset(textOffset: number): number;
  /** Optional clauses that were kept: where they lie in `text`, where `[[` stands in the template. */
  keptClauses: Array<{ textStart: number; textEnd: number; sourceStart: number }>;
  /** The placeholder of each parameter: `params[0]` is `$1`. */
  params: Array<{ placeholder: string; sourceStart: number }>;
}

interface Segment {
  textStart: number;
  sourceStart: number;
  generated: boolean;
}

const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

function checkPlaceholder(sql: string, defs: Map<string, TemplateDef>, p: PlaceholderPiece): TemplateDef {
  const def = defs.get(p.name);
  const shown = `{{${p.name}${p.part ? `.${p.part}` : ""}}}`;
  if (!def) {
    const known = [...defs.keys()];
    throw new TemplateError(
      `${shown} at ${lineAndColumn(sql, p.start)} does not name a declared param or drill arg: ` +
        `${known.length === 0 ? "declare it first" : `use one of ${known.join(", ")}`}.`,
    );
  }
  if (p.part && !isRange(def)) {
    throw new TemplateError(
      `${shown} at ${lineAndColumn(sql, p.start)} uses .${p.part}, but ${p.name} is a ${def.type} ` +
        `${"label" in def ? "param" : "drill arg"}, not a range: write {{${p.name}}}.`,
    );
  }
  if (!p.part && isRange(def)) {
    throw new TemplateError(
      `${shown} at ${lineAndColumn(sql, p.start)} uses the range ${p.name} as a whole: write {{${p.name}.from}} and {{${p.name}.to}} for its ends.`,
    );
  }
  return def;
}

/** `compileTemplate` with a map back to the template (used by `sqlSafety`). */
export function compileTemplateDetailed(
  sql: string,
  defs: ReadonlyArray<TemplateDef>,
  values: Record<string, unknown>,
): CompiledTemplateDetail {
  const byName = new Map<string, TemplateDef>();
  for (const def of defs) if (!byName.has(def.name)) byName.set(def.name, def);
  const tokens = tokenize(sql);
  // Every placeholder is checked, those of dropped clauses too, so errors do not depend on values.
  for (const token of tokens) {
    for (const p of token.kind === "optional" ? token.pieces : [token]) {
      if (p.kind === "placeholder") checkPlaceholder(sql, byName, p);
    }
  }

  let text = "";
  const out: unknown[] = [];
  const params: CompiledTemplateDetail["params"] = [];
  const numbers = new Map<string, number>();
  const segments: Segment[] = [];
  const keptClauses: CompiledTemplateDetail["keptClauses"] = [];
  let afterBinding = false;

  const emit = (piece: Piece) => {
    if (piece.kind === "text") {
      if (afterBinding && IDENT_CHAR.test(piece.text[0]!)) text += " ";
      segments.push({ textStart: text.length, sourceStart: piece.start, generated: false });
      text += piece.text;
      afterBinding = false;
      return;
    }
    const def = byName.get(piece.name)!;
    const cast = castOf(def);
    const key = `${piece.name}.${piece.part ?? ""}`;
    let n = numbers.get(key);
    if (n === undefined) {
      const value = rawValue(def, piece.part, values);
      out.push(value === null ? null : bindValue(def, cast, value));
      n = out.length;
      numbers.set(key, n);
      params.push({ placeholder: `{{${piece.name}${piece.part ? `.${piece.part}` : ""}}}`, sourceStart: piece.start });
    }
    if (text !== "" && IDENT_CHAR.test(text[text.length - 1]!)) text += " ";
    segments.push({ textStart: text.length, sourceStart: piece.start, generated: true });
    text += `$${n}::${cast}`;
    afterBinding = true;
  };

  for (const token of tokens) {
    if (token.kind !== "optional") {
      emit(token);
      continue;
    }
    const dropped = token.pieces.some(
      (p) => p.kind === "placeholder" && rawValue(byName.get(p.name)!, p.part, values) === null,
    );
    if (dropped) continue;
    const textStart = text.length;
    token.pieces.forEach(emit);
    keptClauses.push({ textStart, textEnd: text.length, sourceStart: token.start });
  }

  const sourceOffset = (offset: number): number => {
    let seg: Segment | undefined;
    for (const s of segments) {
      if (s.textStart <= offset) seg = s;
      else break;
    }
    if (!seg) return 0;
    return seg.generated ? seg.sourceStart : seg.sourceStart + (offset - seg.textStart);
  };

  return { text, values: out, sourceOffset, keptClauses, params };
}

/**
 * Compiles a template: placeholders become `$n::type` parameters and the values go to `values`,
 * never into the text. Throws `TemplateError` for an unknown placeholder, `.from` / `.to` on a
 * non-range, a range used whole, unbalanced or nested `[[ ]]`, or a value of the wrong type.
 */
export function compileTemplate(
  sql: string,
  params: ReadonlyArray<TemplateDef>,
  values: Record<string, unknown>,
): CompiledTemplate {
  const { text, values: bound } = compileTemplateDetailed(sql, params, values);
  return { text, values: bound };
}

// ---------------------------------------------------------------------------------------------
// Values sent by the caller (contract A.3)

export type ParamValues = Record<string, unknown>;
type Checked = { value: unknown } | { problem: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const quoteList = (keys: string[]) => keys.map((k) => JSON.stringify(k)).join(", ");

/** Checks one sent param value; the value comes back normalised (no restriction is always null). */
function checkParamValue(param: ParamDef, value: unknown): Checked {
  const name = param.name;
  const wrongShape = (): Checked => ({ problem: `${name} must be ${VALUE_SHAPES[param.type]}.` });
  if (value === null) return { value: null };
  switch (param.type) {
    case "date":
      return isIsoDate(value) ? { value } : wrongShape();
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? { value } : wrongShape();
    case "boolean":
      return typeof value === "boolean" ? { value } : wrongShape();
    case "text":
      if (typeof value !== "string") return wrongShape();
      if (value.length > MAX_TEXT_VALUE_LENGTH)
        return { problem: `${name} must be at most ${MAX_TEXT_VALUE_LENGTH} characters long: shorten the text.` };
      return { value };
    case "dateRange":
    case "numberRange": {
      const endOk =
        param.type === "dateRange" ? isIsoDate : (v: unknown) => typeof v === "number" && Number.isFinite(v);
      if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => v === null || endOk(v)))
        return wrongShape();
      const [from, to] = value as [string | number | null, string | number | null];
      if (from !== null && to !== null && from > to) {
        return { problem: `${name} must not end before it starts: send [from, to] with from on or before to.` };
      }
      return { value: from === null && to === null ? null : [from, to] };
    }
    case "select":
    case "multiSelect": {
      const chosen = param.type === "select" ? [value] : value;
      if (!Array.isArray(chosen) || !chosen.every((v) => typeof v === "string" || typeof v === "number"))
        return wrongShape();
      if (param.type === "multiSelect" && chosen.length > 1000)
        return { problem: `${name} may hold at most 1000 entries: choose fewer.` };
      if (Array.isArray(param.options)) {
        const allowed = param.options.map((o) => String(o.value));
        const stray = chosen.filter((v) => !allowed.includes(String(v)));
        if (stray.length > 0) {
          return {
            problem: `${name} must be chosen from its options (${allowed.slice(0, 20).join(", ")}${allowed.length > 20 ? ", …" : ""}): ${stray
              .slice(0, 5)
              .map((v) => JSON.stringify(v))
              .join(", ")} is not one of them.`,
          };
        }
      }
      if (param.type === "multiSelect") return { value: chosen.length === 0 ? null : [...chosen] };
      return { value };
    }
  }
}

/** A published or default value, normalised the same way (never rejected: it was checked at publish). */
function normalise(value: unknown): unknown {
  if (value === undefined || isEmptyValue(value)) return null;
  return Array.isArray(value) ? [...value] : value;
}

/** The keys of a sent object that the report (or drill) does not declare, as a sentence naming the declared ones. */
function undeclaredKeys(
  given: Record<string, unknown>,
  declared: string[],
  words: { member: "params" | "args"; owner: "report" | "drill"; verb: string },
): { problem: string } | null {
  const unknown = Object.keys(given).filter((k) => !declared.includes(k));
  if (unknown.length === 0) return null;
  const { member, owner, verb } = words;
  return {
    problem:
      declared.length === 0
        ? `This ${owner} declares no ${member}, so ${quoteList(unknown)} cannot be ${verb}: send ${member} as {} or leave it out.`
        : `${member} holds ${quoteList(unknown)}, which this ${owner} does not declare: send only its declared ${member} ${declared.join(", ")}.`,
  };
}

/**
 * The values of a data, drill or export call (contract A.3 [decided]): every key must be a declared
 * param; a missing key takes the version's published value (or, failing that, the spec's default);
 * explicit null means no restriction; a value of the wrong JSON shape is refused with a sentence
 * naming the param and the expected shape; a required param that ends up without a value is
 * refused. `sent` may be undefined or null (nothing sent). The result holds every declared param,
 * with "no restriction" always as null (also for `[]` and `[null, null]`).
 */
export function validateParamValues(
  params: ReadonlyArray<ParamDef>,
  published: Record<string, unknown>,
  sent: unknown,
): { values: ParamValues } | { problem: string } {
  const declared = params.map((p) => p.name);
  if (sent !== undefined && sent !== null && !isRecord(sent)) {
    return {
      problem:
        "params must be a JSON object keyed by param " +
        `name${declared.length > 0 ? ` (${declared.join(", ")})` : ""}, e.g. {"${declared[0] ?? "name"}": ` +
        "…}, or be left out.",
    };
  }
  const given = sent ?? {};
  const undeclared = undeclaredKeys(given, declared, { member: "params", owner: "report", verb: "set" });
  if (undeclared) return undeclared;
  const values: ParamValues = {};
  for (const param of params) {
    let value: unknown;
    if (Object.hasOwn(given, param.name)) {
      const checked = checkParamValue(param, given[param.name]);
      if ("problem" in checked) return checked;
      value = checked.value;
    } else if (Object.hasOwn(published, param.name)) {
      value = normalise(published[param.name]);
    } else {
      value = normalise(param.default ?? null);
    }
    if (param.required && isEmptyValue(value)) {
      return {
        problem: `${param.name} is required, so it cannot be null or empty: send ${VALUE_SHAPES[param.type].replace(/ or null( \(.*\))?$/, "")}.`,
      };
    }
    values[param.name] = value;
  }
  return { values };
}

const DRILL_SHAPES: Record<DrillArgDef["type"], string> = {
  date: "a yyyy-MM-dd date (a date-time yyyy-MM-dd HH:mm:ss is cut to its date) or null",
  number: "a JSON number, a decimal number written as a string, or null",
  text: "a string (numbers and booleans are taken as text) or null",
  boolean: "true, false or null",
};

function checkDrillArg(arg: DrillArgDef, value: unknown): Checked {
  if (value === null) return { value: null };
  const wrong = (): Checked => ({ problem: `The drill arg ${arg.name} must be ${DRILL_SHAPES[arg.type]}.` });
  switch (arg.type) {
    case "date": {
      if (typeof value !== "string") return wrong();
      const m = /^(\d{4}-\d{2}-\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/.exec(value);
      return m && isIsoDate(m[1]) ? { value: m[1] } : wrong();
    }
    case "number":
      if (typeof value === "number" && Number.isFinite(value)) return { value };
      return typeof value === "string" && DECIMAL.test(value.trim()) ? { value: value.trim() } : wrong();
    case "text":
      if (typeof value === "string")
        return value.length > MAX_TEXT_VALUE_LENGTH
          ? { problem: `The drill arg ${arg.name} must be at most ${MAX_TEXT_VALUE_LENGTH} characters long.` }
          : { value };
      return typeof value === "number" || typeof value === "boolean" ? { value: String(value) } : wrong();
    case "boolean":
      return typeof value === "boolean" ? { value } : wrong();
  }
}

/**
 * The args of a drill call: every key must be an arg the drill declares (else a problem naming
 * the declared args); a missing arg is null. Values come from a clicked row, so they are taken
 * leniently: a date arg accepts a date-time (cut to its date), a number arg a decimal string (a
 * big numeric arrives as a string), a text arg a number or boolean.
 */
export function validateDrillArgs(drill: DrillDef, sent: unknown): { values: ParamValues } | { problem: string } {
  const declared = drill.args.map((a) => a.name);
  if (sent !== undefined && sent !== null && !isRecord(sent)) {
    return {
      problem: `args must be a JSON object keyed by the drill's arg names${declared.length > 0 ? ` (${declared.join(", ")})` : ""}, or be left out.`,
    };
  }
  const given = sent ?? {};
  const undeclared = undeclaredKeys(given, declared, { member: "args", owner: "drill", verb: "sent" });
  if (undeclared) return undeclared;
  const values: ParamValues = {};
  for (const arg of drill.args) {
    const checked = Object.hasOwn(given, arg.name) ? checkDrillArg(arg, given[arg.name]) : { value: null };
    if ("problem" in checked) return checked;
    values[arg.name] = checked.value;
  }
  return { values };
}

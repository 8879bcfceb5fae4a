/**
 * Save-time check that a report query is exactly one read-only statement (contract A.4: "anything
 * else is refused when the draft is saved (400 naming the query)"). At run time the query also
 * runs in a READ ONLY transaction as a role that can only read; this check gives the author an
 * early, clear sentence instead.
 *
 * The template is compiled with a non-null sample value for every placeholder (so every optional
 * clause is kept) and parsed with the real PostgreSQL parser (libpg-query). Refused: a syntax
 * error, no statement, more than one statement, anything but a select (`with … select`,
 * `values …` and set operations are selects), a data-modifying CTE, `select … into`, a locking
 * clause (`for update` / `for share` / …) anywhere in the statement, a call of a function that
 * does more than read (SIDE_EFFECT_FUNCTIONS: large objects, set_config, advisory locks, …) or
 * stalls (STALLING_FUNCTIONS: sleeps, takes a transaction id; contract E.5). A query of the
 * clinical data source may call only the allow-listed functions besides (clinicalReach.ts).
 *
 * Because dropping an optional clause changes the text, the check goes further than the all-kept
 * text (decisions of this module, not of the contract):
 * - `[[` and `]]` must not fall inside a string literal, quoted name or comment of the compiled
 *   text: otherwise dropping the clause would change how the rest of the query reads (e.g.
 *   `[[and a = '{{x}}]]; delete …'` is one harmless select when kept, two statements when dropped).
 * - The statement is parsed again with each optional value null in turn (their clauses dropped)
 *   and with every optional value null, and must pass the same checks; so `where [[a = {{a}}]]`,
 *   a syntax error once `a` is null, is caught at save time. Required params are never null at
 *   run time and keep their sample values (a required range may still lose one end).
 * - A placeholder whose parameter the parsed statement never references (it sits inside a
 *   string literal or comment) is refused: PostgreSQL would refuse the parameter at run time.
 * Messages name lines and columns of the template and at most one short token, never the SQL.
 */
import { parse, scan } from "libpg-query";
import { clinicalReachProblem, type SourceReach } from "./clinicalReach.ts";
export type { SourceReach } from "./clinicalReach.ts";
import { refusalReason, STALLING_FUNCTIONS } from "./reportFunctions.ts";
import type { DrillArgDef, ParamDef } from "./specSchema.ts";
import {
  compileTemplateDetailed,
  lineAndColumn,
  TemplateError,
  utf16Index,
  type CompiledTemplateDetail,
  type TemplateDef,
} from "./sqlTemplate.ts";

const SAMPLES: Record<TemplateDef["type"], unknown> = {
  date: "2000-01-01",
  dateRange: ["2000-01-01", "2000-12-31"],
  number: 1,
  numberRange: [0, 1],
  text: "x",
  select: "x",
  multiSelect: ["x"],
  boolean: true,
};

const isRange = (def: TemplateDef) => def.type === "dateRange" || def.type === "numberRange";
const isRequired = (def: TemplateDef) => "required" in def && def.required === true;

interface Variant {
  /** "" for all clauses kept; otherwise a phrase such as "with wards null". */
  when: string;
  values: Record<string, unknown>;
}

function variants(defs: ReadonlyArray<TemplateDef>): Variant[] {
  const sample: Record<string, unknown> = {};
  for (const def of defs) if (!Object.hasOwn(sample, def.name)) sample[def.name] = SAMPLES[def.type];
  const out: Variant[] = [{ when: "", values: sample }];
  const allNull: Record<string, unknown> = { ...sample };
  for (const def of defs) {
    if (isRange(def)) {
      const [from, to] = SAMPLES[def.type] as [unknown, unknown];
      out.push({ when: `with ${def.name}.from null`, values: { ...sample, [def.name]: [null, to] } });
      out.push({ when: `with ${def.name}.to null`, values: { ...sample, [def.name]: [from, null] } });
    }
    if (isRequired(def)) continue;
    allNull[def.name] = null;
    if (!isRange(def)) out.push({ when: `with ${def.name} null`, values: { ...sample, [def.name]: null } });
  }
  out.push({ when: "with every optional value null", values: allNull });
  return out;
}

const MODIFYING: Record<string, string> = {
  InsertStmt: "INSERT",
  UpdateStmt: "UPDATE",
  DeleteStmt: "DELETE",
  MergeStmt: "MERGE",
};
const STATEMENT_NAMES: Record<string, string> = {
  ...MODIFYING,
  ExplainStmt: "EXPLAIN",
  CreateTableAsStmt: "CREATE TABLE AS",
  CopyStmt: "COPY",
  VariableSetStmt: "SET",
  VariableShowStmt: "SHOW",
  TransactionStmt: "transaction control",
  CallStmt: "CALL",
  DoStmt: "DO",
  CreateStmt: "CREATE TABLE",
  DropStmt: "DROP",
  TruncateStmt: "TRUNCATE",
  LockStmt: "LOCK",
  GrantStmt: "GRANT",
};

function statementName(kind: string): string {
  return (
    STATEMENT_NAMES[kind] ??
    kind
      .replace(/Stmt$/, "")
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toUpperCase()
  );
}

const article = (word: string) => (/^[AEIOU]/i.test(word) ? "an" : "a");

/**
 * Functions a select may call that write (large objects, sequences), change the session for the
 * report connection's next tenant (settings, advisory locks), reach other sessions (notifications,
 * cancelling or ending them), or run SQL given as text past this check (query_to_xml, ts_stat, …).
 * READ ONLY lets several of them through; at run time the transaction is rolled back as well
 * (queries/reports/runReportQuery.ts), but the author learns here.
 */
const SIDE_EFFECT_FUNCTIONS = new Set([
  "lo_create",
  "lo_creat",
  "lo_from_bytea",
  "lo_put",
  "lo_open",
  "lowrite",
  "lo_write",
  "lo_truncate",
  "lo_truncate64",
  "lo_unlink",
  "lo_import",
  "lo_export",
  "nextval",
  "setval",
  "set_config",
  "pg_advisory_lock",
  "pg_advisory_lock_shared",
  "pg_try_advisory_lock",
  "pg_try_advisory_lock_shared",
  "pg_advisory_xact_lock",
  "pg_advisory_xact_lock_shared",
  "pg_try_advisory_xact_lock",
  "pg_try_advisory_xact_lock_shared",
  "pg_advisory_unlock",
  "pg_advisory_unlock_shared",
  "pg_advisory_unlock_all",
  "pg_notify",
  "pg_cancel_backend",
  "pg_terminate_backend",
  "query_to_xml",
  "query_to_xmlschema",
  "query_to_xml_and_xmlschema",
  "cursor_to_xml",
  "cursor_to_xmlschema",
  "ts_stat",
  "ts_rewrite",
  "pg_read_file",
  "pg_read_binary_file",
  "pg_ls_dir",
  "pg_stat_file",
]);

interface Refused {
  name: string;
  /** Ends "…, which <why>": what the function does that a report query may not. */
  why: string;
}

function sideEffectOf(funcCall: unknown): Refused | null {
  const names = (funcCall as { funcname?: Array<{ String?: { sval?: unknown } }> }).funcname ?? [];
  const name = names[names.length - 1]?.String?.sval;
  if (typeof name !== "string") return null;
  const lower = name.toLowerCase();
  if (STALLING_FUNCTIONS.has(lower)) return { name: lower, why: refusalReason(lower)! };
  if (SIDE_EFFECT_FUNCTIONS.has(lower) || lower.startsWith("dblink"))
    return { name: lower, why: "writes, changes the session or other sessions, or runs SQL given as text" };
  return null;
}

interface Findings {
  modifying: string | null;
  into: boolean;
  locking: boolean;
  /** The first function called that does more than read (SIDE_EFFECT_FUNCTIONS) or stalls (STALLING_FUNCTIONS). */
  sideEffect: Refused | null;
  paramRefs: Set<number>;
}

/** Walks the whole parse tree (CTEs, subqueries, set operations). */
function inspect(tree: unknown): Findings {
  const found: Findings = { modifying: null, into: false, locking: false, sideEffect: null, paramRefs: new Set() };
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    // Children go on the stack last first, so the first thing the statement names is found first.
    if (Array.isArray(node)) {
      stack.push(...[...node].reverse());
      continue;
    }
    if (typeof node !== "object" || node === null) continue;
    const children: unknown[] = [];
    for (const [key, value] of Object.entries(node)) {
      if (key in MODIFYING && found.modifying === null) found.modifying = MODIFYING[key]!;
      else if (key === "intoClause" && value) found.into = true;
      else if (key === "lockingClause" && Array.isArray(value) && value.length > 0) found.locking = true;
      else if (key === "FuncCall" && typeof value === "object" && value !== null && found.sideEffect === null)
        found.sideEffect = sideEffectOf(value);
      else if (key === "ParamRef" && typeof value === "object" && value !== null) {
        const n = (value as { number?: unknown }).number;
        if (typeof n === "number") found.paramRefs.add(n);
      }
      if (typeof value === "object" && value !== null) children.push(value);
    }
    stack.push(...children.reverse());
  }
  return found;
}

interface SqlErrorLike {
  message?: unknown;
  sqlDetails?: { message?: unknown; cursorPosition?: unknown };
}

/** The parser's message with a bound parameter shown as its placeholder and long tokens cut. */
function parserMessage(error: SqlErrorLike, compiled: CompiledTemplateDetail): string {
  const raw = String(error.sqlDetails?.message ?? error.message ?? "syntax error");
  const placeholder = (all: string, n: string) => compiled.params[Number(n) - 1]?.placeholder ?? all;
  return raw
    .replace(/\$(\d+)::(?:date|numeric|text\[\]|text|boolean)/g, placeholder)
    .replace(/\$(\d+)/g, placeholder)
    .replace(/"([^"]{31,})"/g, (_all, token: string) => `"${token.slice(0, 30)}…"`)
    .replace(/\s+/g, " ");
}

/** What in a parsed select makes it more than a read, or reach beyond a built-in source's views (when given). */
function selectProblem(stmt: unknown, found: Findings, subject: string, reach: SourceReach | undefined): string | null {
  if (found.modifying) {
    return `${subject} has a WITH part that runs ${found.modifying} (a data-modifying CTE), but a query may only read: make every WITH part a select.`;
  }
  if (found.into)
    return `${subject} uses SELECT … INTO, which creates a table, but a query may only read: remove the INTO clause.`;
  if (found.locking)
    return `${subject} has a locking clause (FOR UPDATE, FOR SHARE or the like), which locks rows, but a query may only read: remove it.`;
  if (found.sideEffect)
    return `${subject} calls ${found.sideEffect.name}(), which ${found.sideEffect.why}, but a query may only read: remove it.`;
  return reach ? clinicalReachProblem(stmt, reach) : null;
}

async function statementProblem(
  sql: string,
  compiled: CompiledTemplateDetail,
  when: string,
  reach: SourceReach | undefined,
): Promise<string | null> {
  const subject =
    when === "" ? "The query" : `${when[0]!.toUpperCase()}${when.slice(1)} (its optional clauses dropped), the query`;
  const whenHint = when === "" ? "" : "; keep it valid without those clauses, e.g. where 1 = 1 [[and …]]";
  if (compiled.text.trim() === "") return `${subject} holds no SQL statement: write one select statement${whenHint}.`;
  let tree: { stmts?: Array<{ stmt?: Record<string, unknown> }> };
  try {
    tree = (await parse(compiled.text)) as typeof tree;
  } catch (error) {
    const details = (error as SqlErrorLike).sqlDetails;
    const cursor = typeof details?.cursorPosition === "number" ? details.cursorPosition : null;
    const where =
      cursor === null
        ? ""
        : ` (at ${lineAndColumn(sql, compiled.sourceOffset(utf16Index(compiled.text, Math.max(0, cursor))))} of the SQL)`;
    return `${subject} cannot be parsed: ${parserMessage(error as SqlErrorLike, compiled)}${where}; correct the SQL there${whenHint}.`;
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0)
    return `${subject} holds no SQL statement, only comments or blanks: write one select statement${whenHint}.`;
  if (stmts.length > 1) {
    return `${subject} holds ${stmts.length} statements: a query must be exactly one select statement, so remove the others and the ; between them${whenHint}.`;
  }
  const stmt = stmts[0]!.stmt ?? {};
  const kind = Object.keys(stmt)[0] ?? "unknown";
  if (kind !== "SelectStmt") {
    const name = statementName(kind);
    return `${subject} is ${article(name)} ${name} statement, but a query may only read: write one select (or with … select) statement.`;
  }
  const found = inspect(stmt);
  const problem = selectProblem(stmt, found, subject, reach);
  if (problem) return problem;
  for (let i = 0; i < compiled.params.length; i++) {
    if (!found.paramRefs.has(i + 1)) {
      const param = compiled.params[i]!;
      return (
        `${subject} has ${param.placeholder} at ${lineAndColumn(sql, param.sourceStart)} inside a string literal ` +
        `or comment, where its value cannot be used: move it out of the quotes, e.g. '%' || ${param.placeholder} ` +
        `|| '%' instead of '%${param.placeholder}%'.`
      );
    }
  }
  return null;
}

/** `[[` / `]]` inside a literal, quoted name or comment of the compiled text. */
async function clauseBoundaryProblem(sql: string, compiled: CompiledTemplateDetail): Promise<string | null> {
  if (compiled.keptClauses.length === 0) return null;
  let tokens: Array<{ start: number; end: number }>;
  try {
    tokens = (await scan(compiled.text)).tokens;
  } catch {
    return null; // the text parsed, so this does not happen; the parse check stands on its own
  }
  const bytes = (offset: number) => Buffer.byteLength(compiled.text.slice(0, offset), "utf8");
  for (const clause of compiled.keptClauses) {
    for (const [edge, offset] of [
      ["starts", clause.textStart],
      ["ends", clause.textEnd],
    ] as const) {
      const b = bytes(offset);
      if (tokens.some((t) => t.start < b && b < t.end)) {
        return (
          `The optional clause [[ … ]] at ${lineAndColumn(sql, clause.sourceStart)} ${edge} inside a string ` +
          "literal, quoted name or comment, so dropping it would change how the rest of the query reads: put [[ " +
          "and ]] outside quotes and comments (a -- comment runs to the end of its line)."
        );
      }
    }
  }
  return null;
}

/**
 * A sentence saying why the query template is not exactly one read-only statement, or null when
 * it is. `params` are the names the template may use (report params, and for a drill query the
 * drill's args too). A template error (unknown placeholder, unbalanced brackets, …) is returned
 * as its sentence. With `reach` (a query of a built-in data source, clinical or research: its views), the query
 * must also reach nothing beyond them (clinicalReach.ts).
 */
export async function readOnlyProblem(
  sql: string,
  params: ReadonlyArray<ParamDef | DrillArgDef>,
  reach?: SourceReach,
): Promise<string | null> {
  const seen = new Set<string>();
  for (const variant of variants(params)) {
    let compiled: CompiledTemplateDetail;
    try {
      compiled = compileTemplateDetailed(sql, params, variant.values);
    } catch (error) {
      if (error instanceof TemplateError) return error.message;
      throw error;
    }
    if (seen.has(compiled.text)) continue;
    seen.add(compiled.text);
    const problem = await statementProblem(sql, compiled, variant.when, reach);
    if (problem) return problem;
    if (variant.when === "") {
      const boundary = await clauseBoundaryProblem(sql, compiled);
      if (boundary) return boundary;
    }
  }
  return null;
}

/*
 * The same rules at run time, for a version saved before one of them: contract E.5 wants such a
 * query to fail when run, in its own place, with the sentence a save would have given. Checked on
 * the compiled text about to run. A text that does not parse, or is not one select, is left to the
 * database, which refuses it anyway (READ ONLY, the report role's rights). Each text's answer is
 * remembered (a report's texts are few), so a report's data call parses its queries once.
 */
const runTimeChecks = new Map<string, Promise<string | null>>();
const RUN_TIME_CHECKS_KEPT = 2000;

export function runTimeProblem(text: string, reach: SourceReach | undefined): Promise<string | null> {
  const key = `${reach ? `${reach.schema}:${reach.relations.join(",")}` : ""}\u0000${text}`;
  let check = runTimeChecks.get(key);
  if (!check) {
    if (runTimeChecks.size >= RUN_TIME_CHECKS_KEPT) runTimeChecks.delete(runTimeChecks.keys().next().value!);
    check = compiledSelectProblem(text, reach);
    runTimeChecks.set(key, check);
  }
  return check;
}

async function compiledSelectProblem(text: string, reach: SourceReach | undefined): Promise<string | null> {
  let tree: { stmts?: Array<{ stmt?: Record<string, unknown> }> };
  try {
    tree = (await parse(text)) as typeof tree;
  } catch {
    return null;
  }
  const stmt = tree.stmts?.length === 1 ? (tree.stmts[0]!.stmt ?? {}) : null;
  if (!stmt || Object.keys(stmt)[0] !== "SelectStmt") return null;
  return selectProblem(stmt, inspect(stmt), "The query", reach);
}

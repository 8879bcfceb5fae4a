// Static review of a report specification (CONTRACT A.2 "audit", A.5).
//
// The SQL of every query is parsed with the real PostgreSQL parser (libpg-query) after the
// Metabase-style template syntax has been neutralised: `[[` / `]]` are removed (their content
// kept) and every `{{…}}` becomes `NULL`. Rules look at the parse tree, never at the SQL text,
// except for placeholder usage, which is a property of the template itself.
//
// No finding ever echoes SQL text; a parser message may name the token it stopped at.
//
// Besides, a draft's save tries each query on its data source (queryTrial.ts): a query that failed
// (query-fails) or could not be tried (query-untried) is a finding of the audit too, from the
// outcome the save recorded, never from trying again.

import { parse } from "libpg-query";
import { z } from "zod";
import type { QueryTrial } from "./queryTrial.ts";
import { readTemplateLoosely } from "./sqlTemplate.ts";
import { isRangeParam } from "./specVocabulary.ts";
import { resultColumnNames, unknownColumns } from "./columnSuggestions.ts";

const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * What a finding names (issue #54), so a page can say it in its language from `rule` and these:
 * `param`, `query`, `drill`, `arg`, `node` (names in the spec), `functions`, `tables`, `line`,
 * `column`, `code` (a query failure's code, queryOutcome.ts). Only those the finding names; absent
 * on audits stored before.
 */
const findingArgsSchema = z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string())])).meta({
  description:
    "What the finding names, for pages to word it in their language: param, query, drill, arg, node, functions, tables, line, column, code",
  example: { param: "unused" },
});
export type FindingArgs = z.infer<typeof findingArgsSchema>;

export const findingSchema = z.object({
  rule: z.string(),
  severity: z.enum(SEVERITIES),
  where: z.string().meta({ description: "Where in the spec, e.g. queries.monthly" }),
  message: z.string(),
  // Issue #54, rule unknown-column: the column named, and the query's column most like it (for pages to word in their language).
  column: z.string().optional().meta({ description: "unknown-column: the column the node names", example: "ktvv" }),
  suggestion: z.string().nullable().optional().meta({
    description: "unknown-column: the query's column most like it, or null when none is near",
    example: "ktv",
  }),
  args: findingArgsSchema.optional(),
});
export type Finding = z.infer<typeof findingSchema>;

/** The full audit of a version (contract A.5). */
export const auditSchema = z.object({
  score: z.number().meta({ description: "max(0, 100 − 40·critical − 20·high − 10·medium − 5·low)" }),
  grade: z.enum(["A", "B", "C", "D", "F"]),
  highest: z.enum(["none", ...SEVERITIES]),
  findings: z.array(findingSchema),
});
export type Audit = z.infer<typeof auditSchema>;

/** The audit as a version entry carries it: findings counted (contract A.2). */
export const auditSummarySchema = z.object({
  score: z.number(),
  grade: z.string(),
  findings: z.int().meta({ description: "The number of findings" }),
  highest: z.string(),
});
export type AuditSummary = z.infer<typeof auditSummarySchema>;

// Structural view of the spec: only what the audit reads. Deliberately not imported from the
// spec schema module so that this file has no dependency on it.
export interface AuditableQuery {
  sql?: string;
}

export interface AuditableNode {
  id: string;
  type: string;
  query?: string;
  drill?: { target: string; args?: Record<string, string> };
}

export interface AuditableSpec {
  params?: Array<{ name: string; type: string; options?: unknown }>;
  queries: Record<string, AuditableQuery>;
  nodes?: AuditableNode[];
  drills?: Record<
    string,
    {
      args?: Array<{ name: string; type: string }>;
      queries: Record<string, AuditableQuery>;
      nodes?: AuditableNode[];
    }
  >;
}

// Stable rule identifiers.
export const RULES = {
  sqlSyntax: "sql-syntax",
  notReadOnly: "not-read-only",
  selectStar: "select-star",
  unusedParam: "unused-param",
  unusedQuery: "unused-query",
  unusedDrillArg: "unused-drill-arg",
  drillArgShadowsParam: "drill-arg-shadows-param",
  volatileFunction: "volatile-function",
  personalIdentifier: "personal-identifier",
  tableUnordered: "table-unordered",
  crossJoin: "cross-join",
  queryFails: "query-fails",
  queryUntried: "query-untried",
  unknownColumn: "unknown-column",
} as const;

const SEVERITY_ORDER: Severity[] = ["critical", "high", "medium", "low", "info"];
const PENALTY: Record<Severity, number> = { critical: 40, high: 20, medium: 10, low: 5, info: 0 };

const VOLATILE_FUNCTIONS = new Set([
  "pg_sleep",
  "pg_sleep_for",
  "pg_sleep_until",
  "random",
  "clock_timestamp",
  "txid_current",
  "nextval",
  "setseed",
  "gen_random_uuid",
  "pg_read_file",
  "pg_ls_dir",
]);
const VOLATILE_PREFIXES = ["dblink", "lo_"];

function volatileReason(name: string): string {
  if (name.startsWith("pg_sleep")) return "waits on purpose";
  if (["random", "clock_timestamp", "setseed", "gen_random_uuid"].includes(name))
    return "gives a different result on every run";
  if (name === "nextval" || name === "txid_current") return "writes (advances a sequence or assigns a transaction id)";
  return "reaches outside the report's data (files, large objects or other databases)";
}

const PERSONAL_IDENTIFIER_COLUMNS = new Set(["id_card"]);

const WRITING_STATEMENTS = ["InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt"];

const MAX_PARSER_MESSAGE = 200;

// ---------------------------------------------------------------------------------------------
// Scoring (CONTRACT A.2, binding)

export function scoreFindings(findings: readonly Finding[]): Omit<Audit, "findings"> {
  const penalty = findings.reduce((sum, f) => sum + PENALTY[f.severity], 0);
  const score = Math.max(0, 100 - penalty);
  const grade = score >= 90 ? "A" : score >= 80 ? "B" : score >= 70 ? "C" : score >= 60 ? "D" : "F";
  const highest = SEVERITY_ORDER.find((s) => findings.some((f) => f.severity === s)) ?? "none";
  return { score, grade, highest };
}

export function summariseAudit(audit: Audit): AuditSummary {
  return { score: audit.score, grade: audit.grade, findings: audit.findings.length, highest: audit.highest };
}

// ---------------------------------------------------------------------------------------------
// Template handling

/** Names used as `{{name}}`, `{{name.from}}` or `{{name.to}}` in a query template. */
export function placeholderNames(sql: string): Set<string> {
  const names = new Set<string>();
  for (const token of readTemplateLoosely(sql)) if (token.kind === "placeholder") names.add(token.name);
  return names;
}

/** The template as plain SQL: optional-clause brackets dropped, every placeholder → NULL. */
export function templateToSql(sql: string): string {
  return readTemplateLoosely(sql)
    .map((token) => (token.kind === "text" ? token.text : token.kind === "bracket" ? " " : "NULL"))
    .join("");
}

// ---------------------------------------------------------------------------------------------
// Parse tree helpers (libpg-query JSON: every node is `{ TypeName: { …fields } }`, except a few
// typed members such as SelectStmt.larg / rarg, which are bare field objects).

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function child(node: unknown, tag: string): Obj | undefined {
  if (!isObj(node)) return undefined;
  const inner = node[tag];
  return isObj(inner) ? inner : undefined;
}

function str(node: unknown): string | undefined {
  const s = child(node, "String");
  return typeof s?.sval === "string" ? s.sval : undefined;
}

/** Visit every object in the tree; `visit` returns false to skip the object's children. */
function walk(node: unknown, visit: (obj: Obj, key: string | undefined) => boolean | void, key?: string): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit, key);
    return;
  }
  if (!isObj(node)) return;
  if (visit(node, key) === false) return;
  for (const [k, v] of Object.entries(node)) {
    if (typeof v === "object" && v !== null) walk(v, visit, k);
  }
}

/** The SELECT arms that make up the result columns: both sides of UNION / INTERSECT / EXCEPT. */
function outputArms(select: Obj): Obj[] {
  if (typeof select.op === "string" && select.op !== "SETOP_NONE") {
    const arms: Obj[] = [];
    if (isObj(select.larg)) arms.push(...outputArms(select.larg));
    if (isObj(select.rarg)) arms.push(...outputArms(select.rarg));
    return arms;
  }
  return [select];
}

function targetValues(select: Obj): Array<{ name?: string; val: unknown }> {
  const out: Array<{ name?: string; val: unknown }> = [];
  for (const t of asArray(select.targetList)) {
    const rt = child(t, "ResTarget");
    if (rt) out.push({ name: typeof rt.name === "string" ? rt.name : undefined, val: rt.val });
  }
  return out;
}

/** A ColumnRef's fields, seen through casts and COLLATE. */
function columnRefFields(val: unknown): unknown[] | undefined {
  let v = val;
  for (;;) {
    const cast = child(v, "TypeCast") ?? child(v, "CollateClause");
    if (!cast) break;
    v = cast.arg;
  }
  const ref = child(v, "ColumnRef");
  return ref ? asArray(ref.fields) : undefined;
}

function isStar(fields: unknown[]): boolean {
  const last = fields[fields.length - 1];
  return isObj(last) && "A_Star" in last;
}

type CteScope = Map<string, Obj>;

function withCtes(select: Obj, outer: CteScope): CteScope {
  const ctes = isObj(select.withClause) ? asArray(select.withClause.ctes) : [];
  if (ctes.length === 0) return outer;
  const scope = new Map(outer);
  for (const c of ctes) {
    const cte = child(c, "CommonTableExpr");
    const query = child(cte?.ctequery, "SelectStmt");
    if (typeof cte?.ctename === "string" && query) scope.set(cte.ctename, query);
  }
  return scope;
}

/** FROM items with JOINs flattened into their sides. */
function fromItems(select: Obj): Obj[] {
  const out: Obj[] = [];
  const add = (item: unknown) => {
    const join = child(item, "JoinExpr");
    if (join) {
      add(join.larg);
      add(join.rarg);
    } else if (isObj(item)) out.push(item);
  };
  for (const item of asArray(select.fromClause)) add(item);
  return out;
}

function aliasOf(item: Obj): string | undefined {
  const inner = child(item, "RangeVar") ?? child(item, "RangeSubselect") ?? child(item, "RangeFunction");
  const alias = isObj(inner?.alias) ? inner.alias.aliasname : undefined;
  if (typeof alias === "string") return alias;
  const rv = child(item, "RangeVar");
  return typeof rv?.relname === "string" ? rv.relname : undefined;
}

/** True when the result columns of `select` include a personal identifier column. */
function returnsPersonalIdentifier(select: Obj, outerScope: CteScope, seen: Set<Obj>): boolean {
  if (seen.has(select)) return false; // recursive CTE
  seen.add(select);
  const scope = withCtes(select, outerScope);
  for (const arm of outputArms(select)) {
    const armScope = withCtes(arm, scope);
    for (const { name, val } of targetValues(arm)) {
      if (name !== undefined && PERSONAL_IDENTIFIER_COLUMNS.has(name.toLowerCase())) return true;
      const fields = columnRefFields(val);
      if (!fields) continue;
      if (!isStar(fields)) {
        const col = str(fields[fields.length - 1]);
        if (name === undefined && col !== undefined && PERSONAL_IDENTIFIER_COLUMNS.has(col.toLowerCase())) return true;
        continue;
      }
      // `*` or `t.*`: look through to derived tables and CTEs. The relations of the clinical
      // data source (CONTRACT C.5) have no id_card column, so a star over a real table is fine.
      const qualifier = fields.length >= 2 ? str(fields[fields.length - 2]) : undefined;
      for (const item of fromItems(arm)) {
        if (qualifier !== undefined && aliasOf(item) !== qualifier) continue;
        const sub = child(child(item, "RangeSubselect")?.subquery, "SelectStmt");
        if (sub && returnsPersonalIdentifier(sub, armScope, seen)) return true;
        const rv = child(item, "RangeVar");
        if (rv && rv.schemaname === undefined && typeof rv.relname === "string") {
          const cte = armScope.get(rv.relname);
          if (cte && returnsPersonalIdentifier(cte, armScope, seen)) return true;
        }
      }
    }
  }
  return false;
}

function cteNames(tree: unknown): Set<string> {
  const names = new Set<string>();
  walk(tree, (o) => {
    const cte = child(o, "CommonTableExpr");
    if (typeof cte?.ctename === "string") names.add(cte.ctename);
  });
  return names;
}

/** Does the WHERE clause compare a column with a column anywhere (outside subqueries)? */
function hasColumnComparison(where: unknown): boolean {
  let found = false;
  const mentionsColumn = (n: unknown) => {
    let yes = false;
    walk(n, (o) => {
      if ("SubLink" in o) return false;
      if ("ColumnRef" in o) yes = true;
      return !yes;
    });
    return yes;
  };
  walk(where, (o) => {
    if (found || "SubLink" in o) return false;
    const expr = child(o, "A_Expr");
    if (expr && mentionsColumn(expr.lexpr) && mentionsColumn(expr.rexpr)) found = true;
    return !found;
  });
  return found;
}

/** SELECTs (anywhere in the tree) with two or more tables in FROM and no column-to-column condition. */
function unjoinedTableCount(tree: unknown): number {
  const ctes = cteNames(tree);
  let worst = 0;
  walk(tree, (o, key) => {
    const select = child(o, "SelectStmt") ?? (key === "larg" || key === "rarg" ? o : undefined);
    if (!select || !Array.isArray(select.fromClause)) return;
    let tables = 0;
    for (const item of select.fromClause) {
      const rv = child(item, "RangeVar");
      if (rv && !(rv.schemaname === undefined && typeof rv.relname === "string" && ctes.has(rv.relname))) tables++;
      else if (child(item, "JoinExpr")) tables++;
    }
    if (tables >= 2 && !hasColumnComparison(select.whereClause)) worst = Math.max(worst, tables);
  });
  return worst;
}

function volatileCalls(tree: unknown): string[] {
  const names = new Set<string>();
  walk(tree, (o) => {
    const call = child(o, "FuncCall");
    if (!call) return;
    const parts = asArray(call.funcname);
    const name = str(parts[parts.length - 1])?.toLowerCase();
    if (name && (VOLATILE_FUNCTIONS.has(name) || VOLATILE_PREFIXES.some((p) => name.startsWith(p)))) names.add(name);
  });
  return [...names].sort();
}

/** Why the statement is not one read-only SELECT, or undefined when it is. */
function readOnlyProblem(stmts: unknown[]): string | undefined {
  if (stmts.length !== 1) {
    return `The query holds ${stmts.length} statements; keep exactly one SELECT statement per query and split the others into their own queries.`;
  }
  const stmt = isObj(stmts[0]) ? stmts[0].stmt : undefined;
  const select = child(stmt, "SelectStmt");
  if (!select) {
    const tag = isObj(stmt) ? (Object.keys(stmt)[0] ?? "") : "";
    const kind =
      tag
        .replace(/Stmt$/, "")
        .replace(/([a-z])([A-Z])/g, "$1 $2")
        .toUpperCase() || "UNKNOWN";
    return `The query is a statement of type ${kind}, not a SELECT; rewrite it as one read-only SELECT (or WITH … SELECT).`;
  }
  let problem: string | undefined;
  walk(stmt, (o) => {
    if (problem) return false;
    if (isObj(o.intoClause)) {
      problem = "The query uses SELECT … INTO, which creates a table; remove the INTO clause so the query only reads.";
    } else if ("LockingClause" in o) {
      problem = "The query locks rows with FOR UPDATE / FOR SHARE; remove the locking clause, reports only read.";
    } else if (WRITING_STATEMENTS.some((w) => w in o)) {
      problem =
        "The query modifies data inside a WITH clause; remove the INSERT / UPDATE / DELETE / MERGE, reports only read.";
    }
    return !problem;
  });
  return problem;
}

function parserMessage(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const oneLine = raw.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_PARSER_MESSAGE ? oneLine.slice(0, MAX_PARSER_MESSAGE - 1) + "…" : oneLine;
}

function lineOf(text: string, position: unknown): number | undefined {
  if (typeof position !== "number" || position < 0 || position > text.length) return undefined;
  return text.slice(0, position).split("\n").length;
}

type Parsed = { ok: true; stmts: unknown[] } | { ok: false; message: string };

// ---------------------------------------------------------------------------------------------
// The audit

interface QueryRef {
  where: string;
  sql: string | undefined;
}

/** What a tried query adds to the audit: a failure costs as much as any high finding; a query not tried, a word. */
function trialFinding(trial: QueryTrial): Omit<Finding, "where"> | null {
  if (trial.outcome === "failed") {
    const at = trial.line !== null && trial.column !== null ? ` at line ${trial.line}, column ${trial.column}` : "";
    const sentence = trial.message.replace(/\.$/, "");
    return {
      rule: RULES.queryFails,
      severity: "high",
      message: `The query fails when run with the filters' defaults${at}: ${sentence}. Correct it: published as it is, viewers see this error in its place.`,
      args: {
        ...(trial.line !== null && trial.column !== null ? { line: trial.line, column: trial.column } : {}),
        ...(trial.code ? { code: trial.code } : {}),
      },
    };
  }
  if (trial.outcome === "untried") {
    return {
      rule: RULES.queryUntried,
      severity: "info",
      message:
        `The query could not be tried when the draft was saved (${trial.reason.replace(/\.$/, "")}); save again, ` +
        "or preview the draft, to see that it runs.",
    };
  }
  return null;
}

/**
 * The audit of a spec: its static review, and with `trials` (the draft's queries tried at save,
 * queryTrial.ts) the queries that failed or could not be tried.
 */
export async function auditSpec(spec: AuditableSpec, trials: readonly QueryTrial[] = []): Promise<Audit> {
  const findings: Finding[] = [];
  const add = (rule: string, severity: Severity, where: string, message: string, args?: FindingArgs) =>
    findings.push({ rule, severity, where, message, ...(args && Object.keys(args).length ? { args } : {}) });

  const cache = new Map<string, Promise<Parsed>>();
  const parseOnce = (sql: string): Promise<Parsed> => {
    const text = templateToSql(sql);
    let p = cache.get(text);
    if (!p) {
      p = parse(text).then(
        (r): Parsed => ({ ok: true, stmts: asArray((r as unknown as Obj).stmts) }),
        (err: unknown): Parsed => {
          const details = isObj(err) && isObj(err.sqlDetails) ? err.sqlDetails : undefined;
          const line = lineOf(text, details?.cursorPosition);
          const msg = parserMessage(err);
          return { ok: false, message: line !== undefined && text.includes("\n") ? `line ${line}: ${msg}` : msg };
        },
      );
      cache.set(text, p);
    }
    return p;
  };

  const topQueries = Object.entries(spec.queries ?? {});
  const drills = Object.entries(spec.drills ?? {});
  const allQueries: QueryRef[] = [
    ...topQueries.map(([name, q]) => ({ where: `queries.${name}`, sql: q?.sql })),
    ...drills.flatMap(([key, d]) =>
      Object.entries(d.queries ?? {}).map(([name, q]) => ({ where: `drills.${key}.queries.${name}`, sql: q?.sql })),
    ),
  ];

  // Per-query rules. Parsing happens concurrently; findings are appended in spec order.
  const parsedByWhere = new Map<string, Parsed>();
  const outcomes = await Promise.all(
    allQueries.map(async (q) => {
      if (typeof q.sql !== "string") return undefined;
      if (q.sql.trim() === "" || templateToSql(q.sql).trim() === "") {
        return { ok: false, message: "the query is empty" } as Parsed;
      }
      return parseOnce(q.sql);
    }),
  );
  allQueries.forEach((q, i) => {
    const parsed = outcomes[i];
    if (!parsed) return;
    parsedByWhere.set(q.where, parsed);
    if (!parsed.ok) {
      add(
        RULES.sqlSyntax,
        "high",
        q.where,
        `The SQL does not parse (${parsed.message}); correct it so that it is one valid SELECT statement ` +
          "(placeholders {{…}} and optional clauses [[…]] are allowed).",
      );
      return;
    }
    const problem = readOnlyProblem(parsed.stmts);
    if (problem) add(RULES.notReadOnly, "critical", q.where, problem);

    const first = isObj(parsed.stmts[0]) ? child(parsed.stmts[0].stmt, "SelectStmt") : undefined;
    if (first) {
      const starred = outputArms(first).some((arm) =>
        targetValues(arm).some(({ val }) => {
          const fields = columnRefFields(val);
          return fields !== undefined && isStar(fields);
        }),
      );
      if (starred) {
        add(
          RULES.selectStar,
          "low",
          q.where,
          "The query selects * in its result columns; list the columns the report needs, so that a new or " +
            "renamed column in the table cannot change the report.",
        );
      }
      if (returnsPersonalIdentifier(first, new Map(), new Set())) {
        add(
          RULES.personalIdentifier,
          "medium",
          q.where,
          "The query returns the personal identifier id_card; remove it from the result columns, or return a masked expression under another column name.",
        );
      }
    }

    const calls = volatileCalls(parsed.stmts);
    if (calls.length > 0) {
      add(
        RULES.volatileFunction,
        "high",
        q.where,
        `The query calls ${calls.map((c) => `${c}() (${volatileReason(c)})`).join(", ")}; remove ` +
          `${calls.length > 1 ? "these calls" : "the call"} so the report reads only its data and gives the same ` +
          "result for the same data.",
        { functions: calls },
      );
    }

    const unjoined = unjoinedTableCount(parsed.stmts);
    if (unjoined >= 2) {
      add(
        RULES.crossJoin,
        "medium",
        q.where,
        `The query lists ${unjoined} tables in one FROM without any condition linking them, which pairs every ` +
          "row of one with every row of the other; add the join condition (JOIN … ON …), or write CROSS JOIN if " +
          "the product is intended.",
        { tables: unjoined },
      );
    }

    const trial = trials.find((t) => t.query === q.where);
    const tried = trial ? trialFinding(trial) : null;
    if (tried) add(tried.rule, tried.severity, q.where, tried.message, tried.args);
  });

  // Params never used as a placeholder in any query (drill queries receive the params too, but
  // in a drill an arg of the same name takes the placeholder).
  const usedNames = new Set<string>();
  for (const [, q] of topQueries)
    if (typeof q?.sql === "string") for (const n of placeholderNames(q.sql)) usedNames.add(n);
  for (const [, d] of drills) {
    const args = new Set((d.args ?? []).map((a) => a.name));
    for (const q of Object.values(d.queries ?? {}))
      if (typeof q?.sql === "string") for (const n of placeholderNames(q.sql)) if (!args.has(n)) usedNames.add(n);
  }
  (spec.params ?? []).forEach((p, i) => {
    if (!usedNames.has(p.name)) {
      add(
        RULES.unusedParam,
        "low",
        `params[${i}]`,
        `The filter "${p.name}" is used by no query; reference it as ` +
          `{{${p.name}}}${isRangeParam(p.type) ? ` (or {{${p.name}.from}} / {{${p.name}.to}})` : ""} in a ` +
          "query, or remove it.",
        { param: p.name },
      );
    }
  });

  // Top-level queries that no node shows and no option list reads.
  const usedQueries = new Set<string>();
  for (const n of spec.nodes ?? []) if (typeof n.query === "string") usedQueries.add(n.query);
  for (const p of spec.params ?? []) {
    const o = p.options;
    if (isObj(o) && typeof o.query === "string") usedQueries.add(o.query);
  }
  for (const [name] of topQueries) {
    if (!usedQueries.has(name)) {
      add(
        RULES.unusedQuery,
        "info",
        `queries.${name}`,
        `The query "${name}" is shown by no node and feeds no option list, but still runs on every open; show ` +
          "it in a node, use it as a filter's options, or remove it.",
        { query: name },
      );
    }
  }

  // Drill args never used as a placeholder in that drill's queries.
  for (const [key, d] of drills) {
    const used = new Set<string>();
    for (const q of Object.values(d.queries ?? {}))
      if (typeof q?.sql === "string") for (const n of placeholderNames(q.sql)) used.add(n);
    (d.args ?? []).forEach((a, i) => {
      if (!used.has(a.name)) {
        add(
          RULES.unusedDrillArg,
          "medium",
          `drills.${key}.args[${i}]`,
          `The drill argument "${a.name}" is used by no query of drill "${key}", so the drill shows the same ` +
            `rows whatever was clicked; filter by {{${a.name}}} in the drill's SQL, or remove the argument.`,
          { arg: a.name, drill: key },
        );
      }
    });
  }

  // Drill args with the name of a report param: allowed, and worth a word to whoever reads the SQL.
  const paramNames = new Set((spec.params ?? []).map((p) => p.name));
  for (const [key, d] of drills) {
    (d.args ?? []).forEach((a, i) => {
      if (!paramNames.has(a.name)) return;
      add(
        RULES.drillArgShadowsParam,
        "info",
        `drills.${key}.args[${i}]`,
        `The drill argument "${a.name}" has the name of the filter "${a.name}": in drill "${key}", ` +
          `{{${a.name}}} is the clicked row's value, not the filter's. Rename one of them if the drill's queries ` +
          "should also follow the filter.",
        { arg: a.name, drill: key },
      );
    });
  }

  // Table nodes on a query without ORDER BY at its outermost level.
  const tableNodes = (nodes: AuditableNode[] | undefined, prefix: string, queryWhere: (q: string) => string) =>
    (nodes ?? []).forEach((n, i) => {
      if (n.type !== "table" || typeof n.query !== "string") return;
      const parsed = parsedByWhere.get(queryWhere(n.query));
      if (!parsed?.ok) return;
      const select = isObj(parsed.stmts[0]) ? child(parsed.stmts[0].stmt, "SelectStmt") : undefined;
      if (!select || asArray(select.sortClause).length > 0) return;
      add(
        RULES.tableUnordered,
        "info",
        `${prefix}nodes[${i}]`,
        `The table "${n.id}" shows query "${n.query}", which has no ORDER BY of its own, so its rows may come ` +
          "in a different order on every open; add an ORDER BY at the end of the query.",
        { node: n.id, query: n.query },
      );
    });
  tableNodes(spec.nodes, "", (q) => `queries.${q}`);
  for (const [key, d] of drills) tableNodes(d.nodes, `drills.${key}.`, (q) => `drills.${key}.queries.${q}`);

  // Issue #54: a column a node names that its query does not return, with the nearest one it does.
  const namesOf = (queryWhere: (q: string) => string) => (query: string) => {
    const parsed = parsedByWhere.get(queryWhere(query));
    const select = parsed?.ok && isObj(parsed.stmts[0]) ? child(parsed.stmts[0].stmt, "SelectStmt") : undefined;
    return select ? resultColumnNames(select) : null;
  };
  const unknown = [
    ...unknownColumns(
      spec.nodes,
      "",
      namesOf((q) => `queries.${q}`),
    ),
    ...drills.flatMap(([key, d]) =>
      unknownColumns(
        d.nodes,
        `drills.${key}.`,
        namesOf((q) => `drills.${key}.queries.${q}`),
      ),
    ),
  ];
  for (const { where, column, query, suggestion, columns } of unknown)
    findings.push({
      rule: RULES.unknownColumn,
      severity: "medium",
      where,
      message: `Query "${query}" returns no column "${column}"${suggestion ? `; did you mean "${suggestion}"?` : "."} Its columns are ${columns.join(", ")}.`,
      column,
      suggestion,
    });

  // Most severe first; spec order within a severity.
  const ordered = findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_ORDER.indexOf(a.f.severity) - SEVERITY_ORDER.indexOf(b.f.severity) || a.i - b.i)
    .map(({ f }) => f);
  return { ...scoreFindings(ordered), findings: ordered };
}

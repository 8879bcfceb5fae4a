/**
 * What report SQL of the `clinical` data source may reach, checked on the parse tree at save.
 *
 * PostgreSQL grants every role, through PUBLIC, reads of the system catalogs and statistics
 * (pg_class, information_schema, pg_roles, pg_stat_activity, pg_locks …), and one role may signal
 * the other backends of the same role; every tenant's report connections are the one role
 * dh_report_runner. A role cannot be denied what PUBLIC has (PostgreSQL has no negative
 * privileges), and taking it from PUBLIC would need a superuser and change every role of the
 * database. So a clinical query may read only the clinical views and its own CTEs, may call only
 * the functions of an allow-list (reportFunctions.ts), and may not cast to the object look-up
 * types (::regclass …).
 * At run time the role still reads nothing else (no rights on any table) and sees no other
 * session's SQL when the service is a superuser (track_activities off, db/reportRunner.ts).
 */

import { clinicalFunctionProblem, short } from "./reportFunctions.ts";

const LOOK_UP_TYPES = new Set([
  "regclass",
  "regcollation",
  "regconfig",
  "regdictionary",
  "regnamespace",
  "regoper",
  "regoperator",
  "regproc",
  "regprocedure",
  "regrole",
  "regtype",
]);

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** A qualified name's parts as the parse tree gives them (`[{ String: { sval } }, …]`). */
function namesOf(names: unknown): string[] {
  if (!Array.isArray(names)) return [];
  return names
    .map((part) => (part as { String?: { sval?: unknown } }).String?.sval)
    .filter((part): part is string => typeof part === "string");
}

const lastName = (names: unknown): string | null => namesOf(names).at(-1) ?? null;

/**
 * What a built-in data source offers report SQL: the views of its schema (`clinical`, or
 * `research`, contract G.1, whose views have the same names), read bare or under the schema's name.
 */
export interface SourceReach {
  schema: "clinical" | "research";
  relations: readonly string[];
}

/** The first thing the statement reaches outside the data source's views, as a sentence; null when none. */
export function clinicalReachProblem(tree: unknown, reach: SourceReach): string | null {
  const clinical = new Set(reach.relations);
  const views = reach.relations.join(", ");
  let problem: string | null = null;

  // A CTE's name hides a relation only where PostgreSQL would resolve it to the CTE: in the
  // statement that declares it, in a later sibling's body, and (WITH RECURSIVE) in every body.
  const walk = (value: unknown, ctes: ReadonlySet<string>): void => {
    if (problem !== null) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, ctes);
      return;
    }
    if (!isNode(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (problem !== null) return;
      if (key === "RangeVar" && isNode(child)) {
        const relation = String(child.relname);
        const schema = typeof child.schemaname === "string" ? child.schemaname : null;
        const allowed =
          schema === null
            ? clinical.has(relation) || ctes.has(relation)
            : schema === reach.schema && clinical.has(relation);
        if (!allowed) {
          problem =
            `The query reads ${short(schema ? `${schema}.${relation}` : relation)}, which is not a relation of ` +
            `the ${reach.schema} data source: read ${views}, or a CTE of the query.`;
        }
      } else if (key === "FuncCall" && isNode(child)) {
        const names = namesOf(child.funcname);
        problem = names.length ? clinicalFunctionProblem(names) : null;
        if (problem !== null) return;
      } else if (key === "TypeCast" && isNode(child) && isNode(child.typeName)) {
        const type = lastName(child.typeName.names);
        if (type !== null && LOOK_UP_TYPES.has(type.toLowerCase())) {
          problem = `The query casts to ${type}, which looks up objects of the database outside the clinical data source: report SQL may not use it.`;
          return;
        }
      } else if (key === "SelectStmt" && isNode(child) && isNode(child.withClause)) {
        walkWith(child, ctes);
        continue;
      }
      walk(child, ctes);
    }
  };

  const walkWith = (select: Node, outer: ReadonlySet<string>): void => {
    const withClause = select.withClause as Node;
    const declared = (Array.isArray(withClause.ctes) ? withClause.ctes : []).map((cte) =>
      isNode(cte) && isNode(cte.CommonTableExpr) ? cte.CommonTableExpr : {},
    );
    const names = declared.map((cte) => String(cte.ctename));
    declared.forEach((cte, i) => {
      const visible = withClause.recursive === true ? names : names.slice(0, i);
      walk(cte.ctequery, new Set([...outer, ...visible]));
    });
    const { withClause: _declared, ...rest } = select;
    walk(rest, new Set([...outer, ...names]));
  };

  walk(tree, new Set());
  return problem;
}

/*
 * "Did you mean …" for a column a node names that its query does not return (issue #54): a chart's
 * x, y, y2 or series, a figure's column, a table's columns. The result's column names are read from
 * the query's parse tree as PostgreSQL names them (an alias; else a column's own name, a function's
 * name, `case`, `?column?`), so the audit needs no database; a query whose names cannot be known
 * (a `*`, a syntax error) is not checked.
 */

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const child = (value: unknown, key: string): Obj | undefined =>
  isObj(value) && isObj(value[key]) ? (value[key] as Obj) : undefined;
/** The text of a String node (`{ String: { sval } }`), as libpg-query gives names. */
const stringOf = (value: unknown): string | undefined => {
  const node = child(value, "String");
  return typeof node?.sval === "string" ? node.sval : undefined;
};

/** The name PostgreSQL gives an unnamed result column of this expression (FigureColname, in short). */
function figuredName(val: unknown): string | null {
  if (!isObj(val)) return "?column?";
  const ref = child(val, "ColumnRef");
  if (ref) {
    const fields = asArray(ref.fields);
    const last = fields[fields.length - 1];
    if (isObj(last) && "A_Star" in last) return null;
    return stringOf(last) ?? "?column?";
  }
  const cast = child(val, "TypeCast");
  if (cast) {
    const inner = figuredName(cast.arg);
    if (inner !== "?column?") return inner;
    const names = asArray(child(cast.typeName, "TypeName")?.names ?? (isObj(cast.typeName) ? cast.typeName.names : []));
    return stringOf(names[names.length - 1]) ?? "?column?";
  }
  const call = child(val, "FuncCall");
  if (call) {
    const names = asArray(call.funcname);
    return stringOf(names[names.length - 1]) ?? "?column?";
  }
  if (child(val, "CaseExpr")) return "case";
  if (child(val, "CoalesceExpr")) return "coalesce";
  const minMax = child(val, "MinMaxExpr");
  if (minMax) return minMax.op === "IS_GREATEST" ? "greatest" : "least";
  if (child(val, "A_ArrayExpr")) return "array";
  if (child(val, "RowExpr")) return "row";
  const sub = child(val, "SubLink");
  if (sub) {
    if (sub.subLinkType === "EXISTS_SUBLINK") return "exists";
    if (sub.subLinkType === "ARRAY_SUBLINK") return "array";
    const inner = child(sub.subselect, "SelectStmt");
    const names = inner ? resultColumnNames(inner) : null;
    return names?.[0] ?? "?column?";
  }
  return "?column?";
}

/** The result columns' names of a SELECT (the left arm's, for UNION and the like); null when a `*` hides them. */
export function resultColumnNames(select: Obj): string[] | null {
  if (typeof select.op === "string" && select.op !== "SETOP_NONE")
    return isObj(select.larg) ? resultColumnNames(select.larg) : null;
  const names: string[] = [];
  for (const target of asArray(select.targetList)) {
    const res = child(target, "ResTarget");
    if (!res) return null;
    const name = typeof res.name === "string" ? res.name : figuredName(res.val);
    if (name === null) return null;
    names.push(name);
  }
  return names.length > 0 ? names : null;
}

/** The edit distance of two names (Levenshtein), case aside. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[y.length]!;
}

/** The column most like `name` (a typo, another case, a letter more or less), or null when none is near. */
export function nearestColumn(name: string, columns: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const column of columns) {
    const d = distance(name, column);
    const contains =
      column.toLowerCase().includes(name.toLowerCase()) || name.toLowerCase().includes(column.toLowerCase());
    const score = contains ? Math.min(d, 1.5) : d;
    if (score < bestDistance) {
      bestDistance = score;
      best = column;
    }
  }
  const near = Math.max(2, Math.floor(name.length / 3));
  return best !== null && bestDistance <= near ? best : null;
}

/** A node as the column check reads it. */
export interface ColumnNamingNode {
  type: string;
  query?: string;
  x?: unknown;
  y?: unknown;
  y2?: unknown;
  series?: unknown;
  column?: unknown;
  columns?: unknown;
}

/** A column a node names that its query does not return: where (a spec path), which, and the nearest there is. */
export interface UnknownColumn {
  where: string;
  column: string;
  query: string;
  suggestion: string | null;
  columns: string[];
}

/** The columns each node of a layer names that its query's result has not, `prefix` its place (`` or `drills.x.`). */
export function unknownColumns(
  nodes: readonly ColumnNamingNode[] | undefined,
  prefix: string,
  columnsOf: (query: string) => string[] | null,
): UnknownColumn[] {
  const found: UnknownColumn[] = [];
  (nodes ?? []).forEach((node, i) => {
    if (typeof node.query !== "string") return;
    const columns = columnsOf(node.query);
    if (!columns) return;
    const named: Array<[string, unknown]> = [];
    if (node.type === "chart") {
      named.push(["x", node.x], ["series", node.series]);
      for (const axis of ["y", "y2"] as const)
        asArray(node[axis]).forEach((column, j) => named.push([`${axis}[${j}]`, column]));
    } else if (node.type === "stat") named.push(["column", node.column]);
    else if (node.type === "table")
      asArray(node.columns).forEach((entry, j) =>
        named.push(isObj(entry) ? [`columns[${j}].column`, entry.column] : [`columns[${j}]`, entry]),
      );
    for (const [member, column] of named) {
      if (typeof column !== "string" || column === "" || columns.includes(column)) continue;
      found.push({
        where: `${prefix}nodes[${i}].${member}`,
        column,
        query: node.query,
        suggestion: nearestColumn(column, columns),
        columns,
      });
    }
  });
  return found;
}

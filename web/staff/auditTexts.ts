/**
 * The audit's findings (contract A.5) and a saved draft's failed queries in the page's language
 * (issue #54): in Chinese worded here from the finding's `rule` and what it names (`args`), not
 * taken from the service's English sentence; in English the service's sentence, which is written
 * for the author. A finding stored before it named anything is worded by its rule alone; its place
 * (`where`) is shown beside it. A rule this page does not know keeps the service's sentence.
 */
import type { QueryFailureCode } from "../../commands/reports/spec/queryOutcome.ts";
import { QUERY_FAILURES } from "../queryFailureTexts.ts";
import { columnTextsFor } from "./editor/columnTexts.ts";
import type { Lang } from "../types.ts";

type Args = Record<string, string | number | string[]>;
type Wording = (args: Args) => string;

const name = (value: unknown) => (typeof value === "string" ? value : "");
const list = (value: unknown, separator: string) => (Array.isArray(value) ? value.join(separator) : "");

const FINDINGS_ZH: Record<string, Wording> = {
  "not-read-only": () => "查询不是单一的只读 SELECT 语句，请改写为一条只读取数据的 SELECT（或 WITH … SELECT）。",
  "sql-syntax": () => "SQL 无法解析，请修正为一条有效的 SELECT 语句（可使用占位符 {{…}} 和可选子句 [[…]]）。",
  "query-fails": (a) =>
    `以筛选条件的默认值运行时，查询失败${typeof a.line === "number" ? `（第 ${a.line} 行第 ${a.column} 列）` : ""}：${failure("zh", a.code)} 请修正；若照此发布，查看者会在此处看到错误。`,
  "query-untried": () =>
    "保存草稿时未能试运行此查询（本院报表查询正忙或数据源无法连接），请再次保存或预览草稿确认能运行。",
  "volatile-function": (a) =>
    `查询调用了 ${list(a.functions, "、") || "易变函数"}（每次运行结果不同、故意等待或读取报表数据以外的内容），请去掉这些调用，使报表对同样的数据给出同样的结果。`,
  "unused-drill-arg": (a) =>
    `钻取参数“${name(a.arg)}”未被钻取“${name(a.drill)}”的任何查询使用，无论点击哪一行都显示同样的数据；请在钻取的 SQL 中用 {{${name(a.arg)}}} 筛选，或删除此参数。`,
  "personal-identifier": () => "查询返回了身份证号（id_card），请从结果列中去掉，或以其他列名返回脱敏后的值。",
  "cross-join": (a) =>
    `查询在一个 FROM 中列出了 ${a.tables ?? "多"} 张表却没有连接条件，会把每一行与另一张表的每一行配对；请加上连接条件（JOIN … ON …），如确需笛卡尔积请写 CROSS JOIN。`,
  "select-star": () => "查询在结果列中使用了 *，请列出报表需要的列，以免表中新增或改名的列改变报表。",
  "unused-param": (a) =>
    `筛选条件“${name(a.param)}”未被任何查询使用，请在查询中以 {{${name(a.param)}}} 引用，或删除它。`,
  "unused-query": (a) =>
    `查询“${name(a.query)}”没有被任何内容块显示，也不作为筛选选项，但每次打开仍会运行；请显示它、用作筛选选项，或删除它。`,
  "drill-arg-shadows-param": (a) =>
    `钻取参数“${name(a.arg)}”与筛选条件同名：在钻取“${name(a.drill)}”中，{{${name(a.arg)}}} 取被点击行的值，而不是筛选条件的值。如钻取的查询也应跟随筛选条件，请给其中之一改名。`,
  "table-unordered": (a) =>
    `表格“${name(a.node)}”显示的查询“${name(a.query)}”没有自己的 ORDER BY，每次打开行的顺序可能不同；请在查询末尾加上 ORDER BY。`,
};

/** Why a query failed, by its code, in `lang`. */
function failure(lang: Lang, code: unknown): string {
  const words = QUERY_FAILURES[lang];
  return (typeof code === "string" && words[code as QueryFailureCode]) || words["query-failed"];
}

/** The args a finding stored before they existed lacks: what `where` names (`params[3]` names no name, `queries.extra` one). */
function argsFrom(where: string): Args {
  const query = /^(?:drills\.([^.]+)\.)?queries\.([^.]+)$/.exec(where);
  if (query) return { query: query[2]!, ...(query[1] ? { drill: query[1] } : {}) };
  const drill = /^drills\.([^.]+)\./.exec(where);
  return drill ? { drill: drill[1]! } : {};
}

/**
 * A finding in the page's language: in English the service's own sentence (it names what to fix),
 * in Chinese the rule's words with what the finding names.
 */
export function findingText(
  finding: { rule: string; where: string; message: string; args?: Args; column?: string; suggestion?: string | null },
  lang: Lang,
): string {
  // A column a node names that its query lacks: the editor's words for it, in either language.
  if (finding.rule === "unknown-column" && finding.column)
    return columnTextsFor(lang).unknownColumn(finding.column, finding.suggestion ?? null);
  const wording = FINDINGS_ZH[finding.rule];
  if (lang === "en" || !wording) return finding.message;
  // Stored before findings named what they point at: the rule's words, the place beside them says where.
  const generic = GENERIC_ZH[finding.rule];
  if (!finding.args && generic) return generic;
  return wording({ ...argsFrom(finding.where), ...(finding.args ?? {}) });
}

/** Old findings whose names only their English sentence held: the rule said without them. */
const GENERIC_ZH: Record<string, string> = {
  "unused-param": "此筛选条件未被任何查询使用，请在查询中引用它，或删除它。",
  "unused-drill-arg": "此钻取参数未被该钻取的任何查询使用，请在钻取的 SQL 中用它筛选，或删除它。",
  "drill-arg-shadows-param": "此钻取参数与某个筛选条件同名：在钻取中它取被点击行的值，而不是筛选条件的值。",
  "table-unordered": "此表格显示的查询没有自己的 ORDER BY，每次打开行的顺序可能不同；请在查询末尾加上 ORDER BY。",
};

/**
 * A saved draft's failed query (queryProblems), after "failed at line …": in Chinese by its code
 * (never the database's English); in English the database's own sentence, which names the column
 * or function, as the author wants it.
 */
export function queryProblemText(problem: { message: string; code?: string }, lang: Lang): string {
  if (lang === "en") return problem.message;
  // The name the database quotes (a column, a table) is the author's own code: said with it.
  const named = /"([^"]+)"/.exec(problem.message)?.[1];
  const said = named && problem.code ? NAMED_ZH[problem.code]?.(named) : undefined;
  return said ?? failure("zh", problem.code);
}

/** A failure that names what it did not find, for the author who wrote the query. */
const NAMED_ZH: Record<string, (name: string) => string> = {
  "query-unknown-column": (name) => `列 ${name} 不存在，请检查列名。`,
  "query-unknown-table": (name) => `表 ${name} 不存在，请使用数据源提供的表。`,
};

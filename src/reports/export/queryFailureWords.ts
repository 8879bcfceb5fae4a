/**
 * Why a report query failed, in a reader's words (issue #54), by the code the service gives beside
 * its sentence (commands/reports/spec/queryOutcome.ts): the pages (web/queryFailureTexts.ts) and
 * the exported files say these, never the database's own text. A failure stored before the codes
 * existed reads as "the query failed".
 */
import type { QueryFailureCode } from "../../../commands/reports/spec/queryOutcome.ts";

export const QUERY_FAILURES: Record<"zh" | "en", Record<QueryFailureCode, string>> = {
  zh: {
    "query-timeout": "查询运行时间过长，已被停止。请缩小筛选范围后重试。",
    "query-unknown-column": "查询引用了数据源中不存在的列，请报表作者在编辑器中修正该查询。",
    "query-unknown-table": "查询引用了数据源中不存在的表，请报表作者在编辑器中修正该查询。",
    "query-unknown-function": "查询使用了不存在的函数或运算符（或参数类型不符），请报表作者修正该查询。",
    "query-type-mismatch": "查询中的数据类型不匹配，请报表作者修正该查询。",
    "query-syntax": "查询的 SQL 有语法错误，请报表作者在编辑器中修正。",
    "query-invalid": "查询无法运行，请报表作者在编辑器中检查该查询。",
    "query-division-by-zero": "查询在计算时出现除以零，请报表作者修正该查询（例如用 NULLIF 避免除数为零）。",
    "query-bad-value": "数据中有查询无法处理的值（例如无法转换为数字的文本），请报表作者修正该查询。",
    "query-outside-source": "查询读取了数据源以外的内容，请报表作者只使用数据源提供的表。",
    "query-writes": "报表查询只能读取数据，请报表作者去掉写入数据的语句。",
    "query-temp-limit": "查询需要的临时空间超过上限，请缩小筛选范围，或请报表作者在 SQL 中先汇总。",
    "query-refused": "此查询不符合报表查询的规则，请报表作者打开编辑器保存草稿，查看原因。",
    "query-failed": "查询失败，请稍后重试；如仍失败，请联系报表作者。",
    "tenant-busy": "本院的报表查询正忙，请稍后重试。",
    "source-busy": "数据源的连接都在使用中，请稍后重试。",
    "source-unreachable": "暂时无法连接数据源，请稍后重试。",
    "source-not-configured": "此报表的数据源未在本服务上配置，请联系管理员。",
    "caller-left": "请求已取消。",
    "snapshot-other-wards": "此快照包含您无权查看的病区数据，请向报表作者索取动态版本或本病区的快照。",
    "query-rows-too-large":
      "查询结果中的值过大，无法导出。请报表作者省去或缩短这些值（一个单元格最多容纳 32767 个字符）。",
  },
  en: {
    "query-timeout": "The query ran too long and was stopped; narrow the filters and try again.",
    "query-unknown-column":
      "The query names a column its data source does not have; the report's author must correct it.",
    "query-unknown-table":
      "The query names a table its data source does not have; the report's author must correct it.",
    "query-unknown-function":
      "The query uses a function or operator that does not exist for its values; the report's author must correct it.",
    "query-type-mismatch": "The query mixes values of types that do not match; the report's author must correct it.",
    "query-syntax": "The query's SQL has a syntax error; the report's author must correct it.",
    "query-invalid": "The query cannot run; the report's author must check it in the editor.",
    "query-division-by-zero":
      "The query divided by zero; the report's author must correct it (for example with NULLIF).",
    "query-bad-value":
      "The data holds a value the query cannot handle (such as text that is no number); the report's author must correct the query.",
    "query-outside-source":
      "The query reads something outside its data source; the report's author must use the data source's tables only.",
    "query-writes": "Report queries may only read; the report's author must remove the statement that writes.",
    "query-temp-limit":
      "The query needs more temporary space than it may use; narrow the filters, or the author must aggregate more in SQL.",
    "query-refused":
      "The query breaks a rule of report queries; the report's author can see which by saving the draft in the editor.",
    "query-failed": "The query failed; try again later, and if it still fails tell the report's author.",
    "tenant-busy": "This hospital's report queries are all busy; try again shortly.",
    "source-busy": "Every connection of the data source is in use; try again shortly.",
    "source-unreachable": "The data source cannot be reached right now; try again shortly.",
    "source-not-configured": "The report's data source is not configured on this service; tell the administrator.",
    "caller-left": "The request was cancelled.",
    "snapshot-other-wards":
      "This snapshot holds rows of wards you may not see; ask the report's author for a dynamic version or a snapshot of your wards.",
    "query-rows-too-large":
      "The query's rows hold values too large to export; the report's author must leave them out or shorten them (a spreadsheet cell holds at most 32,767 characters).",
  },
};

/** A failed query's words in `lang`: by its code, else the general sentence (never the database's text). */
export function queryFailureWords(failure: { code?: string }, lang: "zh" | "en"): string {
  const words = QUERY_FAILURES[lang];
  return (failure.code && words[failure.code as QueryFailureCode]) || words["query-failed"];
}

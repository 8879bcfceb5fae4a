/**
 * The exported files' own words (the About sheet, the Word document's headings and notes) in the
 * language of the page that asked for them (the optional `lang` of the export body, issue #34
 * item 6). The report's titles, labels and texts are the author's: where the spec gives them per
 * language, the file's language is taken (issue #54). A query's failure is said by its code
 * (queryFailureWords.ts), never by the database's text. A caller that sends no `lang` gets
 * English, as before, and its About sheet keeps the name the contract gives it (A.3).
 */
import { z } from "zod";
import { queryFailureWords } from "./queryFailureWords.ts";

export const EXPORT_LANGS = ["en", "zh"] as const;
export type ExportLang = (typeof EXPORT_LANGS)[number];

/** The body member, as the OpenAPI document describes it and the export routes read it. */
export const exportLangField = z
  .enum(EXPORT_LANGS, {
    error: "lang must be en or zh (the language of the file's own words), or be left out for English.",
  })
  .optional()
  .meta({
    description:
      "The language of the file (en, the default, or zh): its own words (headings, notes, the About sheet's " +
      "labels), and the report's titles, labels and texts where the spec gives them per language.",
  });

export interface ExportWords {
  /** The first sheet's name: "About" in English, as contract A.3 names it; the file's language else. */
  aboutSheet: string;
  report: string;
  version: string;
  mode: string;
  modes: { dynamic: string; snapshot: string; snapshotDrill: string };
  publishedAt: string;
  exportedAt: string;
  datasource: string;
  drill: string;
  filters: string;
  none: string;
  sheetHeadings: [sheet: string, query: string, rows: string, note: string];
  /** A filter's value that restricts nothing; a yes/no filter's values. */
  all: string;
  yes: string;
  no: string;
  cut: (limit: number) => string;
  frozenCut: (limit: number) => string;
  notFrozen: string;
  /** Why a query failed, by its code (a failure without one: "the query failed"). */
  queryFailure: (failure: { code?: string }) => string;
  /** A failure after some rows were written: its words, then how many. */
  queryFailedAfter: (rows: number, reason: string) => string;
  /** The Word document's. */
  drillOf: (reportTitle: string) => string;
  versionLine: (
    version: string,
    kind: "saved" | "snapshot" | "published",
    publishedAt: string,
    exportedAt: string,
  ) => string;
  noRows: string;
  moreRows: (more: number) => string;
  moreRowsCut: (more: number, rowCount: number) => string;
  noResult: (query: string) => string;
  nodeQueryFailed: (query: string, reason: string) => string;
  chartNotDrawn: string;
  noChartRows: (title: string) => string;
  thinnedPie: (kept: number, from: number) => string;
  thinned: (kept: number, from: number) => string;
  notAColumn: (column: string, query: string, columns: string) => string;
  notColumns: (query: string, missing: string, columns: string) => string;
  chartDescription: (kind: string, title: string, y: string, x: string) => string;
}

const en: ExportWords = {
  aboutSheet: "About",
  report: "Report",
  version: "Version",
  mode: "Mode",
  modes: { dynamic: "dynamic", snapshot: "snapshot", snapshotDrill: "snapshot (the drill-through runs live)" },
  publishedAt: "Published at",
  exportedAt: "Exported at",
  datasource: "Data source",
  drill: "Drill-through",
  filters: "Filters",
  none: "(none)",
  sheetHeadings: ["Sheet", "Query", "Rows", "Note"],
  all: "(all)",
  yes: "yes",
  no: "no",
  cut: (limit) => `Only the first ${limit} rows are exported; narrow the filters to see the rest.`,
  frozenCut: (limit) => `Only the first ${limit} rows were frozen when this snapshot was published.`,
  notFrozen: "This query was not frozen with the snapshot; publish the report again to include it.",
  queryFailure: (failure) => queryFailureWords(failure, "en"),
  queryFailedAfter: (rows, reason) => `${reason} (It failed after ${rows} rows.)`,
  drillOf: (reportTitle) => `Drill-through of ${reportTitle}`,
  versionLine: (version, kind, publishedAt, exportedAt) =>
    `Version ${version} (${kind} ${publishedAt}) · exported ${exportedAt}`,
  noRows: "No rows.",
  moreRows: (more) => `${more} more rows.`,
  moreRowsCut: (more, rowCount) =>
    `${more}+ more rows (the result stops at ${rowCount} rows; the xlsx export has them all).`,
  noResult: (query) => `The query ${query} has no result.`,
  nodeQueryFailed: (query, reason) => `Query ${query}: ${reason}`,
  chartNotDrawn: "The chart could not be drawn.",
  noChartRows: (title) => `${title}: no rows to chart.`,
  thinnedPie: (kept, from) =>
    `Thinned: the ${kept} largest of ${from} slices are drawn, the others summed into one slice.`,
  thinned: (kept, from) =>
    `Thinned: drawn from ${kept} of ${from} rows, keeping each series' lowest and highest value in every stretch of rows.`,
  notAColumn: (column, query, columns) =>
    `Column ${column} is not a column of query ${query} (its columns: ${columns || "none"}).`,
  notColumns: (query, missing, columns) =>
    `Not columns of query ${query}: ${missing} (its columns: ${columns || "none"}).`,
  chartDescription: (kind, title, y, x) => `${kind} chart${title ? `: ${title}` : ""} (${y} by ${x})`,
};

const zh: ExportWords = {
  aboutSheet: "报表信息",
  report: "报表",
  version: "版本",
  mode: "模式",
  modes: { dynamic: "实时", snapshot: "快照", snapshotDrill: "快照（下钻为实时查询）" },
  publishedAt: "发布时间",
  exportedAt: "导出时间",
  datasource: "数据源",
  drill: "下钻",
  filters: "筛选条件",
  none: "（无）",
  sheetHeadings: ["工作表", "查询", "行数", "说明"],
  all: "（全部）",
  yes: "是",
  no: "否",
  cut: (limit) => `只导出了前 ${limit} 行；请缩小筛选范围查看其余的行。`,
  frozenCut: (limit) => `发布此快照时只冻结了前 ${limit} 行。`,
  notFrozen: "发布快照时没有冻结此查询；请重新发布报表以包含它。",
  queryFailure: (failure) => queryFailureWords(failure, "zh"),
  queryFailedAfter: (rows, reason) => `${reason}（在 ${rows} 行后失败。）`,
  drillOf: (reportTitle) => `${reportTitle} 的下钻`,
  versionLine: (version, kind, publishedAt, exportedAt) =>
    `版本 ${version}（${{ saved: "保存于", snapshot: "快照发布于", published: "发布于" }[kind]} ${publishedAt}）· 导出于 ${exportedAt}`,
  noRows: "没有数据行。",
  moreRows: (more) => `另有 ${more} 行。`,
  moreRowsCut: (more, rowCount) => `另有 ${more} 行以上（结果在 ${rowCount} 行处截止；Excel 导出包含全部行）。`,
  noResult: (query) => `查询 ${query} 没有结果。`,
  nodeQueryFailed: (query, reason) => `查询 ${query}：${reason}`,
  chartNotDrawn: "无法绘制此图表。",
  noChartRows: (title) => `${title}：没有可绘制的数据行。`,
  thinnedPie: (kept, from) => `已精简：绘制了 ${from} 个扇区中最大的 ${kept} 个，其余合并为一个扇区。`,
  thinned: (kept, from) => `已精简：从 ${from} 行中取 ${kept} 行绘制，每一段保留各系列的最低值和最高值。`,
  notAColumn: (column, query, columns) => `${column} 不是查询 ${query} 的列（它的列：${columns || "无"}）。`,
  notColumns: (query, missing, columns) => `这些不是查询 ${query} 的列：${missing}（它的列：${columns || "无"}）。`,
  chartDescription: (kind, title, y, x) => `${kind} 图${title ? `：${title}` : ""}（${y}，按 ${x}）`,
};

const WORDS: Record<ExportLang, ExportWords> = { en, zh };

export const exportWords = (lang: ExportLang = "en"): ExportWords => WORDS[lang];

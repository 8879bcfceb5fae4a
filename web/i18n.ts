import type { Lang } from "./types.ts";

/** The page's own words (the report's titles and labels are the author's, shown as written). */
export interface Texts {
  /** The page's language, which the exported files' own words follow. */
  lang: Lang;
  apply: string;
  all: string;
  yes: string;
  no: string;
  from: string;
  to: string;
  loading: string;
  loadingOptions: string;
  noData: string;
  truncated: (rows: number) => string;
  exportXlsx: string;
  exportDocx: string;
  exporting: string;
  exportFailed: string;
  close: string;
  filters: string;
  version: (version: string, publishedAt: string) => string;
  draft: (savedAt: string) => string;
  snapshot: (publishedAt: string) => string;
  drillHint: string;
  sortHint: string;
  requestFailed: (status: number) => string;
  networkFailed: string;
  openFailed: string;
  selected: (count: number) => string;
  paramsInvalid: string;
  /** A highlighted value's tone, said after it (screen readers) and in its tooltip. */
  tones: Record<"danger" | "warning" | "ok", string>;
  toneWords: { below: string; above: string; to: string };
  /** The page's words for the service's stable failure codes it meets (an export refused); others show the service's sentence. */
  errorCodes: Partial<Record<string, string>>;
  /** A node whose query the data call did not answer. */
  noResult: (query: string) => string;
  /** A node naming a column its query does not return (an author's slip, said in the page's words). */
  columnMissing: (column: string, columns: readonly string[]) => string;
  /** A node that could not be drawn for another reason. */
  nodeFailed: string;
}

/** Why an export did not start, by the service's code (shared with the staff pages' words). */
export const EXPORT_REFUSALS = {
  zh: {
    "exports-per-address": "您这台电脑已有导出正在进行，请等其中一个完成后再试，或登录后导出。",
    "exports-busy": "正在生成的 Excel 导出过多，请稍后再试。",
  },
  en: {
    "exports-per-address":
      "This computer already has exports under way; wait for one to finish and try again, or sign in to export.",
    "exports-busy": "Too many Excel exports are being written right now; try again shortly.",
  },
} as const;

/** Why a report cannot be opened, by the service's code (issue #54: never the API's sentence on the page). */
export const VIEWING_REFUSALS = {
  zh: {
    "report-version-not-found": "找不到这份报表或这个版本，请检查链接，或请报表作者提供正确的链接。",
    "report-never-published": "这份报表还没有发布，请报表作者先发布。",
  },
  en: {
    "report-version-not-found":
      "There is no such report or version; check the link, or ask the report's author for the right one.",
    "report-never-published": "This report has not been published yet; ask its author to publish it.",
  },
} as const;

const zh: Texts = {
  lang: "zh",
  apply: "查询",
  all: "全部",
  yes: "是",
  no: "否",
  from: "开始",
  to: "结束",
  loading: "加载中…",
  loadingOptions: "选项加载中…",
  noData: "无数据",
  truncated: (rows) => `结果已截断：仅显示前 ${rows.toLocaleString("zh-CN")} 行。`,
  exportXlsx: "导出 Excel",
  exportDocx: "导出 Word",
  exporting: "正在导出…",
  exportFailed: "导出失败",
  close: "关闭",
  filters: "筛选条件",
  version: (version, at) => `版本 ${version} · 发布于 ${at}`,
  draft: (at) => `草稿 · 保存于 ${at}`,
  snapshot: (at) => `快照版本：数据已于 ${at} 冻结，筛选条件不可更改。`,
  drillHint: "点击查看明细",
  sortHint: "点击排序",
  requestFailed: (status) => `请求失败（HTTP ${status}）。`,
  networkFailed: "无法连接服务，请检查网络后重试。",
  openFailed: "报表无法打开",
  selected: (count) => `已选 ${count} 项`,
  paramsInvalid: "筛选条件无效",
  tones: { danger: "异常", warning: "注意", ok: "达标" },
  toneWords: { below: "低于", above: "高于", to: "至" },
  errorCodes: { ...EXPORT_REFUSALS.zh, ...VIEWING_REFUSALS.zh },
  noResult: (query) => `数据中没有查询 ${query} 的结果，请报表作者检查此报表。`,
  columnMissing: (column, columns) =>
    `查询结果中没有列 ${column}（现有的列：${columns.join("、") || "无"}），请报表作者修正此报表。`,
  nodeFailed: "此部分无法显示，请报表作者检查此报表。",
};

const en: Texts = {
  lang: "en",
  apply: "Apply",
  all: "All",
  yes: "Yes",
  no: "No",
  from: "From",
  to: "To",
  loading: "Loading…",
  loadingOptions: "Loading options…",
  noData: "No data",
  truncated: (rows) => `Truncated: only the first ${rows.toLocaleString("en-US")} rows are shown.`,
  exportXlsx: "Export Excel",
  exportDocx: "Export Word",
  exporting: "Exporting…",
  exportFailed: "Export failed",
  close: "Close",
  filters: "Filters",
  version: (version, at) => `Version ${version} · published ${at}`,
  draft: (at) => `Draft · saved ${at}`,
  snapshot: (at) => `Snapshot: the data was frozen at ${at}; the filters cannot be changed.`,
  drillHint: "Click for details",
  sortHint: "Click to sort",
  requestFailed: (status) => `The request failed (HTTP ${status}).`,
  networkFailed: "The service cannot be reached; check the network and try again.",
  openFailed: "The report cannot be opened",
  selected: (count) => `${count} selected`,
  paramsInvalid: "The filters are not valid",
  tones: { danger: "Danger", warning: "Warning", ok: "OK" },
  toneWords: { below: "below", above: "above", to: "to" },
  errorCodes: { ...EXPORT_REFUSALS.en, ...VIEWING_REFUSALS.en },
  noResult: (query) => `The data holds no result for query ${query}; the report's author must check the report.`,
  columnMissing: (column, columns) =>
    `The query returns no column ${column} (its columns: ${columns.join(", ") || "none"}); the report's author must correct the report.`,
  nodeFailed: "This part cannot be shown; the report's author must check the report.",
};

export function textsFor(lang: Lang): Texts {
  return lang === "en" ? en : zh;
}

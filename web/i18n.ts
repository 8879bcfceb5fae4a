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
  errorCodes: EXPORT_REFUSALS.zh,
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
  errorCodes: EXPORT_REFUSALS.en,
};

export function textsFor(lang: Lang): Texts {
  return lang === "en" ? en : zh;
}

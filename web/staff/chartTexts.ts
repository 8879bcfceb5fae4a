import { shownLabel } from "./itemLabel.ts";

/**
 * A dictionary item as the answers name it: its Chinese name, and its English name and short
 * clinical label (null for an alert's item the dictionary lacks).
 */
export interface NamedItem {
  name: string;
  nameEn?: string | null;
  label?: string | null;
}

/**
 * The words of choosing what the patient chart draws, of the result an alert opens it on, and of
 * a report shown as a laboratory prints it (issue #34, items 1 and 7); and how every page names a
 * dictionary item, so that it is found by the label staff know it by in both languages (item 5).
 */
export interface ChartTexts {
  /** English: "spKt/V · Single-pool Kt/V"; Chinese: "尿素清除指数 (spKt/V)", "透析前尿素" (a label of words left out). */
  itemTitle: (item: NamedItem) => string;
  itemsShown: (shown: number, offered: number) => string;
  itemsLegend: string;
  itemsHint: (max: number) => string;
  coreItems: string;
  otherItems: string;
  itemOption: (title: string, results: number, lastAt: string | null) => string;
  markedResult: string;
  /** Contract F.2: a value the service derived, not one a laboratory sent. */
  derived: string;
  /** The formula a derived value was computed by, as the legend and the tooltip say it. */
  derivedBy: (formula: { name: string; version: number; expression: string }) => string;
  derivedFrom: (externalIds: readonly string[]) => string;
  markedMissing: (externalId: string) => string;
  markedPointOf: (value: string, at: string) => string;
  openPointHint: string;
  viewReport: string;
  viewReportFor: (externalId: string) => string;
  reportTitle: (externalId: string) => string;
  /** The button that prints the report shown (issue #54), and what it says to a screen reader. */
  printReport: string;
  printReportOf: (externalId: string) => string;

  labReportHeading: string;
  examReportHeading: string;
  reportVersionOf: (version: number, current: number, receivedAt: string, by: string) => string;
  reportFacts: {
    patientName: string;
    idCard: string;
    hisPatientId: string;
    reportNo: string;
    externalId: string;
    specimen: string;
    collectedAt: string;
    examinedAt: string;
    reportedAt: string;
    department: string;
    reporter: string;
    reviewer: string;
  };
  reportCols: { item: string; result: string; flag: string; unit: string; range: string };
  reportItems: string;
  noReportItems: string;
  reportFindings: string;
  reportConclusion: string;
  flagNames: Record<string, string>;
  reportStatuses: Record<string, string>;
  specimens: Record<string, string>;
  recordAsReceived: string;
  reportAsSent: string;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export const chartZh: ChartTexts = {
  // One language (issue #54): a label of English words is left out, the Chinese name says it.
  itemTitle: ({ name, label }) => {
    const shown = shownLabel(label, "zh");
    return shown && !same(shown, name) ? `${name} (${shown})` : name;
  },
  itemsShown: (shown, offered) => `检验项目：显示 ${shown} 个，可选 ${offered} 个`,
  itemsLegend: "选择要绘制的检验项目",
  itemsHint: (max) => `列出核心透析指标和该患者有结果的所有项目；一次最多显示 ${max} 个。`,
  coreItems: "核心透析指标",
  otherItems: "该患者的其他项目",
  itemOption: (title, results, lastAt) => `${title} · ${results > 0 ? `${results} 个结果，最新 ${lastAt}` : "无结果"}`,
  markedResult: "标记的结果",
  derived: "计算值",
  derivedBy: ({ name, version, expression }) => `本系统计算：${name}（第 ${version} 版）${expression}`,
  derivedFrom: (externalIds) => `来自报告 ${externalIds.join("、")}`,
  markedMissing: (externalId) => `报告 ${externalId} 的这个结果不在所选时间范围内，请选更长的时间范围。`,
  markedPointOf: (value, at) => `，标记的结果 ${value}（${at}）`,
  openPointHint: "点击图中的点，查看该结果所在的报告。",
  viewReport: "查看报告",
  viewReportFor: (externalId) => `查看报告 ${externalId}`,
  reportTitle: (externalId) => `报告 ${externalId}`,
  printReport: "打印",
  printReportOf: (externalId) => `打印报告 ${externalId}`,

  labReportHeading: "检验报告单",
  examReportHeading: "检查报告单",
  reportVersionOf: (version, current, receivedAt, by) =>
    `第 ${version} 版（共 ${current} 版）· ${receivedAt} 收到 · 来自 ${by}`,
  reportFacts: {
    patientName: "姓名",
    idCard: "身份证号",
    hisPatientId: "HIS 号",
    reportNo: "报告单号",
    externalId: "报告编号",
    specimen: "标本",
    collectedAt: "采集时间",
    examinedAt: "检查时间",
    reportedAt: "报告时间",
    department: "科室",
    reporter: "报告者",
    reviewer: "审核者",
  },
  reportCols: { item: "项目", result: "结果", flag: "提示", unit: "单位", range: "参考范围" },
  reportItems: "检验结果",
  noReportItems: "报告没有结构化的结果项目。",
  reportFindings: "检查所见",
  reportConclusion: "结论",
  flagNames: { L: "偏低", H: "偏高", LL: "危急低", HH: "危急高", N: "正常", A: "异常" },
  reportStatuses: { FINAL: "正式报告", PRELIMINARY: "初步报告", CORRECTED: "更正报告", CANCELLED: "已作废" },
  specimens: {
    SERUM: "血清",
    PLASMA: "血浆",
    WHOLE_BLOOD: "全血",
    BLOOD: "血液",
    URINE: "尿液",
    DIALYSATE: "透析液",
    STOOL: "粪便",
  },
  recordAsReceived: "收到时的原始记录（JSON）",
  reportAsSent: "报告内容",
};

export const chartEn: ChartTexts = {
  // An item the dictionary lacks has no English name: it is shown by the name it was sent with.
  itemTitle: ({ name, nameEn, label }) =>
    nameEn ? (label && !same(label, nameEn) ? `${label} · ${nameEn}` : nameEn) : name,
  itemsShown: (shown, offered) => `Items: ${shown} shown of ${offered}`,
  itemsLegend: "Choose the items to draw",
  itemsHint: (max) => `The core dialysis items and every item this patient has results of; at most ${max} at a time.`,
  coreItems: "Core dialysis items",
  otherItems: "This patient's other items",
  itemOption: (title, results, lastAt) =>
    `${title} · ${results > 0 ? `${results} result${results === 1 ? "" : "s"}, latest ${lastAt}` : "no results"}`,
  markedResult: "Marked result",
  derived: "Derived",
  derivedBy: ({ name, version, expression }) => `Derived by the service: ${name} (version ${version}) ${expression}`,
  derivedFrom: (externalIds) => `from report${externalIds.length === 1 ? "" : "s"} ${externalIds.join(", ")}`,
  markedMissing: (externalId) =>
    `This result of report ${externalId} is outside the period shown; choose a longer period.`,
  markedPointOf: (value, at) => `, marked result ${value} (${at})`,
  openPointHint: "Click a point of a chart to open the report it comes from.",
  viewReport: "View report",
  viewReportFor: (externalId) => `View report ${externalId}`,
  reportTitle: (externalId) => `Report ${externalId}`,
  printReport: "Print",
  printReportOf: (externalId) => `Print report ${externalId}`,

  labReportHeading: "Laboratory report",
  examReportHeading: "Examination report",
  reportVersionOf: (version, current, receivedAt, by) =>
    `Version ${version} of ${current} · received ${receivedAt} · from ${by}`,
  reportFacts: {
    patientName: "Name",
    idCard: "ID card",
    hisPatientId: "HIS id",
    reportNo: "Report no.",
    externalId: "Report id",
    specimen: "Specimen",
    collectedAt: "Collected",
    examinedAt: "Examined",
    reportedAt: "Reported",
    department: "Department",
    reporter: "Reported by",
    reviewer: "Reviewed by",
  },
  reportCols: { item: "Item", result: "Result", flag: "Flag", unit: "Unit", range: "Reference range" },
  reportItems: "Results",
  noReportItems: "The report has no structured result items.",
  reportFindings: "Findings",
  reportConclusion: "Conclusion",
  flagNames: { L: "low", H: "high", LL: "critically low", HH: "critically high", N: "normal", A: "abnormal" },
  reportStatuses: { FINAL: "Final", PRELIMINARY: "Preliminary", CORRECTED: "Corrected", CANCELLED: "Cancelled" },
  specimens: {
    SERUM: "serum",
    PLASMA: "plasma",
    WHOLE_BLOOD: "whole blood",
    BLOOD: "blood",
    URINE: "urine",
    DIALYSATE: "dialysate",
    STOOL: "stool",
  },
  recordAsReceived: "The record as received (JSON)",
  reportAsSent: "The report",
};

import type { Place } from "../../queries/quality/monthFigures.ts";

/**
 * The words of the quality page (contract G.2, issue #55): the month's figures against last month
 * and the same month a year before, who is not at target, the close and the restatement.
 */
export interface QualityTexts {
  quality: string;
  qualityTitle: string;
  qualityIntro: string;
  qualityHelp: string;
  qualityChoose: string;
  qualityMonth: string;
  qualityMonthHint: string;
  qualityWard: string;
  qualityAllWards: string;
  qualityShow: string;
  /** "2026-11 · ward A": the month and the ward the figures are of. */
  qualityOf: (month: string, ward: string | null) => string;
  qualityOpen: string;
  qualityClosedBy: (at: string, who: string) => string;
  qualityCloseButton: string;
  qualityCloseTitle: (month: string, ward: string | null) => string;
  qualityCloseIntro: string;
  qualityClosing: string;
  qualityClosed: (month: string, ward: string | null) => string;
  qualityNotEnded: string;
  colIndicator: string;
  colThisMonth: string;
  colLastMonth: string;
  colYearBefore: string;
  colBand: string;
  /** A rate and its counts: "86.4% (127/147)". */
  rateOf: (rate: string, numerator: number, denominator: number) => string;
  noneCounted: string;
  /** The change of a rate against another month, in percentage points. */
  changeOn: (against: "lastMonth" | "yearBefore", points: string) => string;
  bandAtLeast: (low: string, unit: string) => string;
  bandAtMost: (high: string, unit: string) => string;
  bandBetween: (low: string, high: string, unit: string) => string;
  /** A tested indicator: the item measured within the months of its window. */
  bandTested: (months: number) => string;
  bandMinutes: (minutes: string) => string;
  source: string;
  /** The heading of those not at target. */
  notAtTarget: string;
  notAtTargetIntro: string;
  /** "Haemoglobin at target: 12 not at target". */
  notAtTargetOf: (indicator: string, count: number) => string;
  untestedOf: (indicator: string, count: number) => string;
  everyoneAtTarget: string;
  qualityColPatient: string;
  colLastValue: string;
  colCollected: string;
  notMeasured: (months: number) => string;
  openChart: (patient: string) => string;
  /** Beside a closed month's list: the values are as known now. */
  valuesNow: string;
  /** Beside a closed month's patient whose value known now is at target. */
  nowAtTarget: string;
  restatement: string;
  restatementIntro: string;
  restatementNone: string;
  /** "As closed 80/100 (80.0%), now 81/101 (80.2%)". */
  closedAndNow: (closed: string, now: string) => string;
  places: Record<Place | "none", string>;
  placeChange: (before: string, after: string) => string;
  because: string;
  /** The reasons, worded: never the event's type. */
  restatedBecause: {
    lateResult: (report: string, at: string) => string;
    correctedReport: (report: string, at: string) => string;
    claim: (report: string, at: string) => string;
    mappingAdded: (at: string) => string;
    mappingRemoved: (at: string) => string;
    release: (at: string) => string;
    wardMove: (at: string) => string;
    other: (at: string) => string;
  };
}

export const qualityZh: QualityTexts = {
  quality: "质量",
  qualityTitle: "月度质量指标",
  qualityIntro:
    "本单位每月的透析质量指标：各项达标率、检测率与上月、去年同月对比，以及未达标的患者和他们最近一次的结果。月末之后由管理员关账，关账后的数字不再变化，之后到达的结果显示在“关账后的变化”中。",
  qualityHelp: "这些指标如何计算、标准来自哪里",
  qualityChoose: "选择月份和病区",
  qualityMonth: "月份",
  qualityMonthHint: "默认为上个月；可选最近三年。",
  qualityWard: "病区",
  qualityAllWards: "全部病区",
  qualityShow: "显示",
  qualityOf: (month, ward) => `${monthWords(month, "zh")} · ${ward === null ? "全部病区" : `${ward} 病区`}`,
  qualityOpen: "未关账：按目前已知的结果计算，新结果到达后会变化。",
  qualityClosedBy: (at, who) => `已关账：${at} 由 ${who} 关账，以下数字为关账时冻结的数字。`,
  qualityCloseButton: "关账",
  qualityCloseTitle: (month, ward) =>
    `关账：${monthWords(month, "zh")}（${ward === null ? "全部病区" : `${ward} 病区`}）`,
  qualityCloseIntro:
    "关账会冻结本月的指标数字（连同指标版本），用于上报质控中心。关账后不能撤销，也不能再次关账；之后到达的迟到结果、更正报告、认领、项目映射或字典发布只会显示在“关账后的变化”中。",
  qualityClosing: "正在关账…",
  qualityClosed: (month, ward) =>
    `${monthWords(month, "zh")}（${ward === null ? "全部病区" : `${ward} 病区`}）已关账。`,
  qualityNotEnded: "本月尚未结束，月末之后才能关账。",
  colIndicator: "指标",
  colThisMonth: "本月",
  colLastMonth: "上月",
  colYearBefore: "去年同月",
  colBand: "标准",
  rateOf: (rate, numerator, denominator) => `${rate}（${numerator}/${denominator}）`,
  noneCounted: "无数据",
  changeOn: (against, points) => `${against === "lastMonth" ? "较上月" : "较去年同月"} ${points} 个百分点`,
  bandAtLeast: (low, unit) => `≥ ${low} ${unit}`.trim(),
  bandAtMost: (high, unit) => `≤ ${high} ${unit}`.trim(),
  bandBetween: (low, high, unit) => `${low}–${high} ${unit}`.trim(),
  bandTested: (months) => (months === 1 ? "当月有检测" : `${months} 个月内有检测`),
  bandMinutes: (minutes) => `${minutes} 分钟内确认`,
  source: "依据",
  notAtTarget: "未达标的患者",
  notAtTargetIntro:
    "展开一项指标，列出未达标（或未检测）的患者及其本月最近一次结果；点击患者打开其检验趋势，定位到该项目。",
  notAtTargetOf: (indicator, count) => `${indicator}：${count} 位未达标`,
  untestedOf: (indicator, count) => `${indicator}：${count} 位未检测`,
  everyoneAtTarget: "本月所有已检测的患者都已达标。",
  qualityColPatient: "患者",
  colLastValue: "最近一次结果",
  colCollected: "采样时间",
  notMeasured: (months) => (months === 1 ? "本月未检测" : `${months} 个月内未检测`),
  openChart: (patient) => `打开 ${patient} 的检验趋势`,
  valuesNow: "名单为关账时冻结的名单，结果为目前已知的最近一次结果。",
  nowAtTarget: "现已达标",
  restatement: "关账后的变化",
  restatementIntro: "关账时冻结的数字与按目前已知结果重新计算的数字对比；列出位置发生变化的患者，以及导致变化的原因。",
  restatementNone: "关账之后没有任何变化。",
  closedAndNow: (closed, now) => `关账时 ${closed}，现在 ${now}`,
  places: { met: "达标", notMet: "未达标", untested: "未检测", none: "未计入" },
  placeChange: (before, after) => `${before} → ${after}`,
  because: "原因",
  restatedBecause: {
    lateResult: (report, at) => `迟到的结果：报告 ${report} 于 ${at} 收到（关账之后）`,
    correctedReport: (report, at) => `更正的报告：报告 ${report} 于 ${at} 被检验科更正`,
    claim: (report, at) => `认领：报告 ${report} 于 ${at} 认领给该患者`,
    mappingAdded: (at) => `项目映射：${at} 新建的项目映射使结果计入`,
    mappingRemoved: (at) => `项目映射：${at} 撤销了一项项目映射`,
    release: (at) => `字典发布：${at} 发布的新版字典改变了指标或公式`,
    wardMove: (at) => `病区变动：患者于 ${at} 转入或转出本病区`,
    other: (at) => `${at} 的其他变化`,
  },
};

export const qualityEn: QualityTexts = {
  quality: "Quality",
  qualityTitle: "Monthly quality figures",
  qualityIntro:
    "The unit's dialysis quality figures for a month: each indicator's rate against last month and the same month a year before, and the patients not at target with their last value. After the month ends an administrator closes it: the closed figures never change, and what arrives later shows under “Changes since the close”.",
  qualityHelp: "What each indicator counts, and where its band comes from",
  qualityChoose: "Choose the month and the ward",
  qualityMonth: "Month",
  qualityMonthHint: "Last month unless you choose another of the last three years.",
  qualityWard: "Ward",
  qualityAllWards: "All wards",
  qualityShow: "Show",
  qualityOf: (month, ward) => `${monthWords(month, "en")} · ${ward === null ? "all wards" : `ward ${ward}`}`,
  qualityOpen: "Open: counted from the results known now; it changes as results arrive.",
  qualityClosedBy: (at, who) => `Closed on ${at} by ${who}: these are the figures frozen at the close.`,
  qualityCloseButton: "Close the month",
  qualityCloseTitle: (month, ward) =>
    `Close ${monthWords(month, "en")} (${ward === null ? "all wards" : `ward ${ward}`})`,
  qualityCloseIntro:
    "Closing freezes the month's figures (with the indicators' versions) for the quality-control centre. It cannot be undone or done again; a late result, a corrected report, a claim, an item mapping or a dictionary release after it shows only under “Changes since the close”.",
  qualityClosing: "Closing…",
  qualityClosed: (month, ward) =>
    `${monthWords(month, "en")} (${ward === null ? "all wards" : `ward ${ward}`}) is closed.`,
  qualityNotEnded: "This month has not ended yet; close it from the first day of the next month.",
  colIndicator: "Indicator",
  colThisMonth: "This month",
  colLastMonth: "Last month",
  colYearBefore: "A year before",
  colBand: "Target",
  rateOf: (rate, numerator, denominator) => `${rate} (${numerator}/${denominator})`,
  noneCounted: "no data",
  changeOn: (against, points) => `${points} points on ${against === "lastMonth" ? "last month" : "a year before"}`,
  bandAtLeast: (low, unit) => `≥ ${low} ${unit}`.trim(),
  bandAtMost: (high, unit) => `≤ ${high} ${unit}`.trim(),
  bandBetween: (low, high, unit) => `${low}–${high} ${unit}`.trim(),
  bandTested: (months) => (months === 1 ? "measured in the month" : `measured within ${months} months`),
  bandMinutes: (minutes) => `acknowledged within ${minutes} min`,
  source: "Source",
  notAtTarget: "Patients not at target",
  notAtTargetIntro:
    "Open an indicator to list the patients not at target (or not measured) with their last value of the month; a patient opens their chart at that item.",
  notAtTargetOf: (indicator, count) => `${indicator}: ${count} not at target`,
  untestedOf: (indicator, count) => `${indicator}: ${count} not measured`,
  everyoneAtTarget: "Every patient measured this month is at target.",
  qualityColPatient: "Patient",
  colLastValue: "Last value",
  colCollected: "Collected",
  notMeasured: (months) => (months === 1 ? "not measured this month" : `not measured within ${months} months`),
  openChart: (patient) => `Open the chart of ${patient}`,
  valuesNow: "The list is as frozen at the close; the values are the last ones known now.",
  nowAtTarget: "at target now",
  restatement: "Changes since the close",
  restatementIntro:
    "The figures frozen at the close beside the same month counted from what is known now; each patient whose place changed, and what moved them.",
  restatementNone: "Nothing has changed since the close.",
  closedAndNow: (closed, now) => `as closed ${closed}, now ${now}`,
  places: { met: "at target", notMet: "not at target", untested: "not measured", none: "not counted" },
  placeChange: (before, after) => `${before} → ${after}`,
  because: "Why",
  restatedBecause: {
    lateResult: (report, at) => `Late result: report ${report} arrived on ${at}, after the close`,
    correctedReport: (report, at) => `Corrected report: the laboratory corrected report ${report} on ${at}`,
    claim: (report, at) => `Claim: report ${report} was claimed for the patient on ${at}`,
    mappingAdded: (at) => `Item mapping: a mapping made on ${at} brought a result in`,
    mappingRemoved: (at) => `Item mapping: a mapping was withdrawn on ${at}`,
    release: (at) => `Dictionary release: the release of ${at} changed the indicator or a formula`,
    wardMove: (at) => `Ward change: the patient moved into or out of the ward on ${at}`,
    other: (at) => `Another change on ${at}`,
  },
};

/** `2026-11` as a month is read: 2026年11月, November 2026. */
export function monthWords(month: string, lang: "zh" | "en"): string {
  const [year, number] = month.split("-").map(Number) as [number, number];
  if (lang === "zh") return `${year}年${number}月`;
  return new Date(year, number - 1, 1).toLocaleDateString("en-GB", { month: "long", year: "numeric" });
}

/**
 * The words of the month's export files (contract G.2), in the file's language: every word a
 * reader meets in the workbook or the document, sheet names included, so that a Chinese file
 * holds no English sentence. Shared by the event loop (the workbook) and the worker threads (the
 * document): plain data and functions, no imports of Node.
 */
import { monthText } from "../../reports/charts/formatValue.ts";
import type { Place } from "../../../queries/quality/monthFigures.ts";

export const QUALITY_EXPORT_LANGS = ["zh", "en"] as const;
export type QualityExportLang = (typeof QUALITY_EXPORT_LANGS)[number];

export interface QualityExportWords {
  /** The file's title, and its name's first part. */
  title: (month: string, ward: string | null) => string;
  sheets: { about: string; indicators: string; patients: string; trend: string };
  month: string;
  ward: string;
  wholeTenant: string;
  state: string;
  states: { open: string; closed: string };
  /** A state as the trend's rows say it. */
  shortStates: { open: string; closed: string };
  closedAt: string;
  closedBy: string;
  exportedAt: string;
  notes: string;
  ratesNote: string;
  valuesNote: string;
  closedValuesNote: string;
  timelinessNote: (names: string) => string;
  trendNote: string;
  indicatorHeadings: [
    code: string,
    indicator: string,
    numerator: string,
    denominator: string,
    rate: string,
    band: string,
    version: string,
    source: string,
  ];
  patientRef: string;
  name: string;
  lastValue: (indicator: string, unit: string) => string;
  withUnit: (indicator: string, unit: string) => string;
  places: Record<Place, string>;
  changedSinceClose: string;
  noPatients: string;
  /** A band's unit as the reader writes it. */
  unit: (unit: string) => string;
  noBand: string;
  /** The document's. */
  labelled: (label: string, value: string) => string;
  headerLine: (state: string, closed: string | null, exportedAt: string) => string;
  closedLine: (at: string, by: string) => string;
  indicatorsHeading: string;
  patientsHeading: string;
  trendHeading: (month: string) => string;
  targetChart: string;
  testedChart: string;
  chartDescription: (title: string, from: string, to: string) => string;
  chartNotDrawn: string;
  monthLabel: (month: string) => string;
}

const en: QualityExportWords = {
  title: (month, ward) => `Quality figures ${month}${ward === null ? "" : ` ward ${ward}`}`,
  sheets: { about: "About", indicators: "Indicators", patients: "Patients", trend: "Trend" },
  month: "Month",
  ward: "Ward",
  wholeTenant: "All wards",
  state: "State",
  states: { open: "open: counted from what is known now", closed: "closed: the figures frozen at the close" },
  shortStates: { open: "open", closed: "closed" },
  closedAt: "Closed at",
  closedBy: "Closed by",
  exportedAt: "Exported at",
  notes: "Notes",
  ratesNote: "Rate: numerator ÷ denominator as a percentage; empty when the denominator is 0.",
  valuesNote:
    "Last value: a target's value counted (the patient's last of the month); a tested indicator's last value of each item within its window.",
  closedValuesNote:
    "Places are as frozen at the close; the last values are as known now. Where a patient's place has changed since the close, the cell says so: the month's restatement names what changed it.",
  timelinessNote: (names) => `${names}: counts critical values, not patients; it has no column in the patient sheet.`,
  trendNote: "The 12 months up to this one: a closed month's frozen figures, an open month's counted now.",
  indicatorHeadings: ["Code", "Indicator", "Numerator", "Denominator", "Rate", "Band", "Version", "Source"],
  patientRef: "Patient ref",
  name: "Name",
  lastValue: (indicator, unit) => `${indicator}: last value${unit ? ` (${unit})` : ""}`,
  withUnit: (indicator, unit) => (unit ? `${indicator} (${unit})` : indicator),
  places: { met: "met", notMet: "not met", untested: "untested" },
  changedSinceClose: "changed since the close",
  noPatients: "No patient was under care in this month.",
  unit: (unit) => unit,
  noBand: "—",
  labelled: (label, value) => `${label}: ${value}`,
  headerLine: (state, closed, exportedAt) => `${state}${closed ? ` · ${closed}` : ""} · exported ${exportedAt}`,
  closedLine: (at, by) => `closed ${at} by ${by}`,
  indicatorsHeading: "Indicators",
  patientsHeading: "Patients",
  trendHeading: (month) => `The 12 months up to ${month}`,
  targetChart: "Patients at target (%)",
  testedChart: "Patients tested (%)",
  chartDescription: (title, from, to) => `Line chart: ${title}, by month from ${from} to ${to}`,
  chartNotDrawn: "The chart could not be drawn.",
  monthLabel: (month) => monthText(month, "en"),
};

const zh: QualityExportWords = {
  title: (month, ward) => `质量指标 ${monthText(month, "zh")}${ward === null ? "" : ` ${ward} 病区`}`,
  sheets: { about: "说明", indicators: "指标", patients: "患者", trend: "趋势" },
  month: "月份",
  ward: "病区",
  wholeTenant: "全部病区",
  state: "状态",
  states: { open: "未关闭：按目前已知的结果计算", closed: "已关闭：关闭时冻结的数字" },
  shortStates: { open: "未关闭", closed: "已关闭" },
  closedAt: "关闭时间",
  closedBy: "关闭人",
  exportedAt: "导出时间",
  notes: "说明",
  ratesNote: "比率：分子 ÷ 分母，以百分比表示；分母为 0 时为空。",
  valuesNote: "最近值：达标率指标为计入的数值（患者当月最后一次结果）；检测率指标为时间窗内各项目的最后一次结果。",
  closedValuesNote:
    "各患者的归类为关闭时冻结的结果；最近值为目前已知的数值。患者的归类在关闭后发生变化的，单元格中会注明：原因见该月的重述。",
  timelinessNote: (names) => `${names}：统计的是危急值而不是患者，患者表中没有这一列。`,
  trendNote: "截至本月的 12 个月：已关闭的月份为冻结的数字，未关闭的月份按目前已知的结果计算。",
  indicatorHeadings: ["代码", "指标", "分子", "分母", "比率", "目标范围", "版本", "依据"],
  patientRef: "患者编号",
  name: "姓名",
  lastValue: (indicator, unit) => `${indicator}：最近值${unit ? `（${unit}）` : ""}`,
  withUnit: (indicator, unit) => (unit ? `${indicator}（${unit}）` : indicator),
  places: { met: "达标", notMet: "未达标", untested: "未检测" },
  changedSinceClose: "关闭后已变化",
  noPatients: "本月没有在治患者。",
  unit: (unit) => (unit === "min" ? "分钟" : unit),
  noBand: "—",
  labelled: (label, value) => `${label}：${value}`,
  headerLine: (state, closed, exportedAt) => `${state}${closed ? ` · ${closed}` : ""} · 导出于 ${exportedAt}`,
  closedLine: (at, by) => `${by} 关闭于 ${at}`,
  indicatorsHeading: "指标",
  patientsHeading: "患者",
  trendHeading: (month) => `截至 ${month} 的 12 个月`,
  targetChart: "达标率（%）",
  testedChart: "检测率（%）",
  chartDescription: (title, from, to) => `折线图：${title}，按月份，${from} 至 ${to}`,
  chartNotDrawn: "无法绘制此图表。",
  monthLabel: (month) => monthText(month, "zh"),
};

const WORDS: Record<QualityExportLang, QualityExportWords> = { en, zh };

export const qualityExportWords = (lang: QualityExportLang): QualityExportWords => WORDS[lang];

/** A band as a reader writes it: `110–130 g/L`, `≥ 1.2`, `≤ 30 min`; a dash for none. */
export function bandText(
  band: { low?: number | null; high?: number | null } | null | undefined,
  unit: string,
  words: QualityExportWords,
): string {
  const low = band?.low ?? null;
  const high = band?.high ?? null;
  const shownUnit = unit ? ` ${words.unit(unit)}` : "";
  if (low !== null && high !== null) return `${low}–${high}${shownUnit}`;
  if (low !== null) return `≥ ${low}${shownUnit}`;
  if (high !== null) return `≤ ${high}${shownUnit}`;
  return words.noBand;
}

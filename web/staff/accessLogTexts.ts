import type { AlertNotice } from "./alertStream.ts";

/**
 * The words of the access log page (contract E.4, issue #54: the records of a period, filtered by
 * who, patient, action and time, and exported), and of a new alert said without its patient (the
 * alert stream names no patient since decision 0078; the alert is said with its patient once the
 * list, a recorded look, shows it).
 */
export interface AccessLogTexts {
  accessLogPage: string;
  accessLogPageIntro: string;
  accessFilters: string;
  accessFilterWho: string;
  accessFilterWhoHint: string;
  accessFilterPatient: string;
  accessFilterPatientHint: string;
  accessFilterAction: string;
  accessAnyAction: string;
  accessFilterPeriod: string;
  accessPeriods: Record<AccessPeriodChoice, string>;
  accessFilterFrom: string;
  accessFilterTo: string;
  accessApply: string;
  accessClear: string;
  accessExportXlsx: string;
  accessExportCsv: string;
  accessExporting: string;
  accessExported: (file: string) => string;
  accessExportFailed: (why: string) => string;
  accessPeriodInvalid: string;
  accessColPatients: string;
  accessNone: string;
  accessRecordsShown: (shown: number, more: boolean) => string;
  accessNoMatch: string;
  accessFilterAndExport: string;
  /** A new alert of a kind the list on screen does not show: said without its patient. */
  newAlertElsewhere: Record<AlertNotice["kind"], string>;
}

/** The periods offered at once; `custom` keeps the from and to typed in. */
export const ACCESS_PERIOD_CHOICES = ["hour", "day", "week", "month", "any", "custom"] as const;
export type AccessPeriodChoice = (typeof ACCESS_PERIOD_CHOICES)[number];

export const accessLogZh: AccessLogTexts = {
  accessLogPage: "访问日志",
  accessLogPageIntro:
    "每一次向人员或系统显示患者身份或结果的应答：谁、何时、通过什么操作、显示了哪些患者。按访问者、患者、操作和时间筛选，再导出筛选出的记录。",
  accessFilters: "筛选",
  accessFilterWho: "访问者",
  accessFilterWhoHint: "与记录中的名称完全一致，可从列表中选择。",
  accessFilterPatient: "患者编号",
  accessFilterPatientHint: "只看显示过该患者的记录，例如 P001。",
  accessFilterAction: "操作",
  accessAnyAction: "全部操作",
  accessFilterPeriod: "时间范围",
  accessPeriods: {
    hour: "最近 1 小时",
    day: "最近 24 小时",
    week: "最近 7 天",
    month: "最近 30 天",
    any: "不限",
    custom: "自定义",
  },
  accessFilterFrom: "开始时间",
  accessFilterTo: "结束时间",
  accessApply: "筛选",
  accessClear: "清除筛选",
  accessExportXlsx: "导出 Excel",
  accessExportCsv: "导出 CSV",
  accessExporting: "正在导出…",
  accessExported: (file) => `已导出 ${file}。`,
  accessExportFailed: (why) => `导出失败：${why}`,
  accessPeriodInvalid: "开始时间须早于结束时间。",
  accessColPatients: "显示的患者",
  accessNone: "—",
  accessRecordsShown: (shown, more) => (more ? `已显示最新的 ${shown} 条，还有更早的记录` : `共 ${shown} 条记录`),
  accessNoMatch: "没有符合筛选条件的记录。",
  accessFilterAndExport: "在访问日志中筛选和导出",
  newAlertElsewhere: {
    CRITICAL: "收到新的危急值提醒，请在“危急值”标签下查看。",
    DELTA: "收到新的差值核查提醒，请在“差值核查”标签下查看。",
  },
};

export const accessLogEn: AccessLogTexts = {
  accessLogPage: "Access log",
  accessLogPageIntro:
    "Every answer that showed a patient's identity or results to a person or a system: who, when, by which action, which patients. Filter by who, patient, action and time, then export the records you filtered.",
  accessFilters: "Filters",
  accessFilterWho: "Who",
  accessFilterWhoHint: "Exactly as the records name them; pick from the list.",
  accessFilterPatient: "Patient reference",
  accessFilterPatientHint: "Only the records that showed this patient, e.g. P001.",
  accessFilterAction: "Action",
  accessAnyAction: "Any action",
  accessFilterPeriod: "Period",
  accessPeriods: {
    hour: "Last hour",
    day: "Last 24 hours",
    week: "Last 7 days",
    month: "Last 30 days",
    any: "Any time",
    custom: "Custom",
  },
  accessFilterFrom: "From",
  accessFilterTo: "To",
  accessApply: "Filter",
  accessClear: "Clear filters",
  accessExportXlsx: "Export Excel",
  accessExportCsv: "Export CSV",
  accessExporting: "Exporting…",
  accessExported: (file) => `${file} was exported.`,
  accessExportFailed: (why) => `The export failed: ${why}`,
  accessPeriodInvalid: "The start must come before the end.",
  accessColPatients: "Patients shown",
  accessNone: "—",
  accessRecordsShown: (shown, more) =>
    more ? `The latest ${shown} records; older ones follow` : `${shown} ${shown === 1 ? "record" : "records"}`,
  accessNoMatch: "No record matches these filters.",
  accessFilterAndExport: "Filter and export in the access log",
  newAlertElsewhere: {
    CRITICAL: "A new critical result alert: see the Critical results tab.",
    DELTA: "A new delta check alert: see the Delta checks tab.",
  },
};

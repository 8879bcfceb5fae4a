/** The words of delta checks (contract F.3): DELTA alerts, shown apart from critical results, and flagged chart points. */
export interface DeltaTexts {
  /** The tabs that keep the two kinds of alert apart. */
  alertKinds: Record<"CRITICAL" | "DELTA", string>;
  alertKindTabs: string;
  /** The badge's name when some of the standing alerts are delta alerts. */
  openAlertsBadgeWithDelta: (critical: number, delta: number) => string;
  deltaIntro: string;
  /** What the critical results tab holds (the page's title names both kinds). */
  criticalIntro: string;
  noDeltaAlerts: Record<"open" | "acknowledged" | "closed" | "info", string>;
  /** A kind tab's name with how many of its alerts wait to be acknowledged (the badge adds them up). */
  kindTabWithCount: (kind: string, count: number) => string;
  /** What the "For information" tab holds (decision 0073). */
  infoIntro: string;
  /** An information row's label: the value came back inside the reference range. */
  backInRange: string;
  /** A critical alert whose result also moved beyond its delta limit: the heading of the change it carries. */
  alsoDelta: string;
  /** History entries of changes that are no alert of their own: carried by the critical alert, or information. */
  handledDeltaEvents: Record<"critical" | "info", Record<"ALERT_RAISED" | "ALERT_CLOSED", string>>;
  colPrevious: string;
  colChange: string;
  /** A labelled part of a delta alert's cell: "Change: +1.8 mmol/L". */
  labelled: (label: string, value: string) => string;
  /** A previous result: its value, and when it was collected. */
  previousResult: (value: string, at: string) => string;
  /** The limit the change exceeded. */
  deltaLimit: (limit: string, days: number) => string;
  newDeltaAlert: (patient: string, item: string, change: string) => string;
  /** A chart point's note: it moved beyond the limit from the previous result. */
  pointDelta: (change: string, previous: string, at: string) => string;
  /** History entries of delta alerts. */
  deltaEvents: Record<"ALERT_RAISED" | "ALERT_ACKNOWLEDGED" | "ALERT_CLOSED", string>;
  /** The service's sentences about delta alerts (the English is the service's own). */
  deltaReasons: (reason: string) => string;
}

export const deltaZh: DeltaTexts = {
  alertKinds: { CRITICAL: "危急值", DELTA: "差值核查" },
  alertKindTabs: "提醒类别",
  criticalIntro: "检验结果被实验室标为 LL/HH，或超出字典的危急界限时，在此提醒。更新后的报告不再危急时，提醒自动关闭。",
  openAlertsBadgeWithDelta: (critical, delta) => `${critical} 条危急值、${delta} 条差值提醒待确认`,
  deltaIntro:
    "同一患者同一项目的结果与其前次结果（30 天内采样的最近一次）相差超过字典的差值界限时，在此提醒：可能是标本混淆，也可能是病情突变。较早采样、较晚送达的结果会成为其后结果的前次结果。",
  noDeltaAlerts: {
    open: "没有待确认的差值提醒。",
    acknowledged: "还没有确认过的差值提醒。",
    closed: "没有未经确认即关闭的差值提醒。",
    info: "没有回到参考范围内的变化。",
  },
  kindTabWithCount: (kind, count) => `${kind}，${count} 条待确认`,
  infoIntro:
    "与前次结果相差超出差值界限、但已从参考范围外回到范围内的结果（例如治疗后的复查）：仅供参考，无需确认，也不计入待确认数。若患者并未接受相应处理，请当作差值提醒核查标本。",
  backInRange: "已回到参考范围内",
  alsoDelta: "同时超出差值界限",
  handledDeltaEvents: {
    critical: { ALERT_RAISED: "变化（随危急值确认）", ALERT_CLOSED: "变化（随危急值）关闭" },
    info: { ALERT_RAISED: "变化（仅供参考）", ALERT_CLOSED: "变化（仅供参考）关闭" },
  },
  colPrevious: "前次结果",
  colChange: "变化",
  labelled: (label, value) => `${label}：${value}`,
  previousResult: (value, at) => `${value}（${at}）`,
  deltaLimit: (limit, days) => `界限 ${limit}，${days} 天内`,
  newDeltaAlert: (patient, item, change) => `新差值提醒：${patient} ${item} 变化 ${change}`,
  pointDelta: (change, previous, at) => `较 ${at} 的 ${previous} 变化 ${change}，超出差值界限`,
  deltaEvents: { ALERT_RAISED: "差值提醒", ALERT_ACKNOWLEDGED: "差值确认", ALERT_CLOSED: "差值关闭" },
  deltaReasons: (reason) =>
    reason
      .replace(
        /^changed by (.+?) from (.+) on (\d{4}-\d\d-\d\d), beyond the delta limit (.+) within (\d+) days$/,
        "较 $3 的 $2 变化 $1，超出 $5 天内差值界限 $4",
      )
      .replace(
        /^the result no longer differs from the previous one by more than the delta limit$/,
        "与前次结果之差已不超出差值界限",
      )
      .replace(
        /^the result is critical as well: its critical alert carries the change$/,
        "结果同时是危急值：变化随其危急值提醒确认",
      )
      .replace(
        /^the value is back inside the reference range: the change is shown as information$/,
        "结果已回到参考范围内：变化仅供参考",
      )
      .replace(/^the change is an alert of its own now$/, "变化现在单独提醒"),
};

export const deltaEn: DeltaTexts = {
  alertKinds: { CRITICAL: "Critical results", DELTA: "Delta checks" },
  alertKindTabs: "Kinds of alert",
  criticalIntro:
    "A result the laboratory flagged LL or HH, or beyond the dictionary's critical limits, shows here; an update of the report that no longer holds the value closes it.",
  openAlertsBadgeWithDelta: (critical, delta) =>
    `${critical} critical ${critical === 1 ? "result" : "results"} and ${delta} delta ${delta === 1 ? "alert" : "alerts"} to acknowledge`,
  deltaIntro:
    "A result that differs from the same patient's previous result of the item (the most recent one collected within 30 days before it) by more than the dictionary's delta limit shows here: a specimen mix-up, or a sudden change in the patient. A result collected earlier but arriving later becomes the previous result of those after it.",
  noDeltaAlerts: {
    open: "No delta alert waits to be acknowledged.",
    acknowledged: "No delta alert has been acknowledged yet.",
    closed: "No delta alert was closed before anyone acknowledged it.",
    info: "No change back inside the reference range.",
  },
  kindTabWithCount: (kind, count) => `${kind}, ${count} to acknowledge`,
  infoIntro:
    "Results that moved beyond their delta limit but came back inside the reference range from a previous result outside it (a repeat after treatment, say): shown for information, with nothing to acknowledge and not counted among the alerts waiting. If the patient had no such treatment, check the sample as for a delta alert.",
  backInRange: "Back inside the reference range",
  alsoDelta: "Also beyond the delta limit",
  handledDeltaEvents: {
    critical: {
      ALERT_RAISED: "Change noted on the critical alert",
      ALERT_CLOSED: "Change on the critical alert closed",
    },
    info: { ALERT_RAISED: "Change noted for information", ALERT_CLOSED: "Change for information closed" },
  },
  colPrevious: "Previous result",
  colChange: "Change",
  labelled: (label, value) => `${label}: ${value}`,
  previousResult: (value, at) => `${value} (${at})`,
  deltaLimit: (limit, days) => `limit ${limit} within ${days} days`,
  newDeltaAlert: (patient, item, change) => `New delta alert: ${patient} ${item} changed by ${change}`,
  pointDelta: (change, previous, at) => `changed by ${change} from ${previous} on ${at}, beyond the delta limit`,
  deltaEvents: {
    ALERT_RAISED: "Delta alert raised",
    ALERT_ACKNOWLEDGED: "Delta alert acknowledged",
    ALERT_CLOSED: "Delta alert closed",
  },
  deltaReasons: (reason) => reason,
};

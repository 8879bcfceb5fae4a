/** The words of checking, before claiming a report, that it is about the patient chosen (issue #34 item 2). */
export interface ClaimTexts {
  claimCheckHeading: string;
  claimCheckChoose: string;
  claimChecking: string;
  colFact: string;
  colReportSays: string;
  colChosenPatient: string;
  factBirthDate: string;
  factSex: string;
  sexNames: Record<"M" | "F", string>;
  /** A fact the report does not give. */
  notOnReport: string;
  /** The birth date or sex of a report whose id card is not valid. */
  unreadable: string;
  /** The chosen patient's birth date when it is not the report's: it is part of the id card's hidden digits. */
  birthDateHidden: string;
  checkSame: string;
  checkDiffers: string;
  reportWithoutIdCard: string;
  reportIdCardInvalid: string;
  nothingDiffers: string;
  differsVerdict: (facts: string[]) => string;
  confirmClaim: (name: string, patientRef: string) => string;
  confirmFirst: (name: string) => string;
  /** What last happened to a report that changed since the queue was read (issue #51): who did what, when. */
  queueChange: (change: QueueChangeWords) => string;
  /** Said after a refused decision: the queue behind the dialog shows the report as it is now. */
  queueRefreshed: string;
}

/** A history entry, as queueChange tells it. */
export interface QueueChangeWords {
  event: "RECEIVED" | "CLAIMED" | "DISMISSED" | "REQUEUED";
  by: string;
  at: string;
  reason: string | null;
}

export const claimZh: ClaimTexts = {
  claimCheckHeading: "核对患者",
  claimCheckChoose: "请在上方选择患者：报告所写的患者信息会与其并列显示，以便核对。",
  claimChecking: "正在与报告核对…",
  colFact: "项目",
  colReportSays: "报告所写",
  colChosenPatient: "所选患者",
  factBirthDate: "出生日期",
  factSex: "性别",
  sexNames: { M: "男", F: "女" },
  notOnReport: "报告未提供",
  unreadable: "无法读取（身份证号无效）",
  birthDateHidden: "不显示（属身份证号隐藏位）",
  checkSame: "一致",
  checkDiffers: "不一致",
  reportWithoutIdCard: "报告没有身份证号：无法核对出生日期和性别。",
  reportIdCardInvalid: "报告中的身份证号不是有效的居民身份证号：无法从中读取出生日期和性别。",
  nothingDiffers: "报告所写与此患者没有不一致之处。",
  differsVerdict: (facts) => `与报告不一致：${facts.join("、")}。请确认这份报告确实属于所选患者。`,
  confirmClaim: (name, patientRef) => `我已核对：这份报告属于 ${name}（${patientRef}）。`,
  confirmFirst: (name) => `报告与 ${name} 的信息不一致：请勾选“我已核对”后再认领，或选择其他患者。`,
  queueChange: ({ event, by, at, reason }) =>
    ({
      RECEIVED: `最近一次变更：${by} 于 ${at} 重新发送了这份报告。`,
      REQUEUED: `最近一次变更：${by} 于 ${at} 重新发送了这份报告，它再次等待认领。`,
      CLAIMED: `最近一次变更：${by} 于 ${at} 认领了这份报告。`,
      DISMISSED: `最近一次变更：${by} 于 ${at} 搁置了这份报告（原因：${reason ?? "—"}）。`,
    })[event],
  queueRefreshed: "待认领列表已刷新，显示报告的最新状态；如仍需处理，请关闭此窗口后重新打开这份报告。",
};

export const claimEn: ClaimTexts = {
  claimCheckHeading: "Check the patient",
  claimCheckChoose: "Choose a patient above: what the report says about its patient is set beside them here.",
  claimChecking: "Comparing with the report…",
  colFact: "Fact",
  colReportSays: "Report says",
  colChosenPatient: "Chosen patient",
  factBirthDate: "Birth date",
  factSex: "Sex",
  sexNames: { M: "Male", F: "Female" },
  notOnReport: "Not on the report",
  unreadable: "Cannot be read (id card not valid)",
  birthDateHidden: "Not shown (hidden digits of the id card)",
  checkSame: "Same",
  checkDiffers: "Differs",
  reportWithoutIdCard: "The report has no id card: its birth date and sex cannot be checked.",
  reportIdCardInvalid:
    "The report's id card is not a valid national id number: no birth date or sex can be read from it.",
  nothingDiffers: "Nothing the report says differs from this patient.",
  differsVerdict: (facts) =>
    `Differs from the report: ${facts.join(", ")}. Make sure this report is the chosen patient's.`,
  confirmClaim: (name, patientRef) => `I have checked: this report belongs to ${name} (${patientRef}).`,
  confirmFirst: (name) =>
    `The report does not match ${name}: tick “I have checked” to claim it anyway, or choose another patient.`,
  queueChange: ({ event, by, at, reason }) =>
    ({
      RECEIVED: `Last change: ${by} sent the report again at ${at}.`,
      REQUEUED: `Last change: ${by} sent the report again at ${at}, and it waits for a patient again.`,
      CLAIMED: `Last change: ${by} claimed the report at ${at}.`,
      DISMISSED: `Last change: ${by} dismissed the report at ${at} (reason: ${reason ?? "—"}).`,
    })[event],
  queueRefreshed:
    "The queue behind this dialog now shows the report as it is; close this dialog and open the report again if it still needs you.",
};

/**
 * The words of issue #56 on the alerts page (contract G.3): the read-back in the acknowledge
 * dialog, the overdue mark, each alert's notifications, and the link to the help article on
 * who is told and when.
 */

/** The roles a nurse most often tells; the stored role is this key, shown in the reader's language. */
export const NOTIFIED_ROLES = ["doctor-on-call", "attending-doctor", "head-nurse"] as const;
export type NotifiedRole = (typeof NOTIFIED_ROLES)[number];

type Outcome = "sent" | "retrying" | "failed";

export interface EscalationTexts {
  /** The link beside the alerts page's introduction to docs/critical-value-escalation.md. */
  escalationHelp: string;
  readBackLegend: string;
  readBackIntro: string;
  readBackValue: string;
  readBackHint: (value: string) => string;
  readBackMissing: string;
  notifiedName: string;
  notifiedNameHint: string;
  notifiedNameMissing: string;
  notifiedRole: string;
  notifiedRoles: Record<NotifiedRole | "other", string>;
  notifiedOtherRole: string;
  notifiedOtherRoleMissing: string;
  /** Shown on the acknowledged tab: whom the nurse told, and the value read back. */
  toldWho: (name: string, role: string) => string;
  readBackAs: (value: string) => string;
  overdue: string;
  overdueHint: string;
  notificationsSummary: (count: number) => string;
  notificationLine: (step: number, channel: string, to: string) => string;
  notificationChannels: Record<"email" | "webhook", string>;
  notificationOutcomes: Record<Outcome, string>;
  notificationWhen: (at: string, attempts: number) => string;
}

export const escalationZh: EscalationTexts = {
  escalationHelp: "危急值通知谁、何时通知，以及如何复述",
  readBackLegend: "复述",
  readBackIntro: "本科室要求复述：填写通话中复述的数值，以及您通知的人。",
  readBackValue: "复述的数值",
  readBackHint: (value) => `按报告的单位填写，例如 ${value}。`,
  readBackMissing: "请填写复述的数值。",
  notifiedName: "通知的人",
  notifiedNameHint: "姓名，例如 李医生。",
  notifiedNameMissing: "请填写您通知的人的姓名。",
  notifiedRole: "职务",
  notifiedRoles: {
    "doctor-on-call": "值班医生",
    "attending-doctor": "主管医生",
    "head-nurse": "护士长",
    other: "其他",
  },
  notifiedOtherRole: "其他职务",
  notifiedOtherRoleMissing: "请填写通知的人的职务。",
  toldWho: (name, role) => `已通知：${name}（${role}）`,
  readBackAs: (value) => `复述：${value}，与结果一致`,
  overdue: "已超时",
  overdueHint: "最后一级通知的时间已到，仍无人确认。",
  notificationsSummary: (count) => `通知记录（${count}）`,
  notificationLine: (step, channel, to) => `第 ${step} 级 · ${channel} · ${to}`,
  notificationChannels: { email: "邮件", webhook: "Webhook" },
  notificationOutcomes: { sent: "已发送", retrying: "发送失败，正在重试", failed: "发送失败" },
  notificationWhen: (at, attempts) => `${at}，第 ${attempts} 次尝试`,
};

export const escalationEn: EscalationTexts = {
  escalationHelp: "Who is told of a critical value, when, and how to read back",
  readBackLegend: "Read-back",
  readBackIntro: "This unit asks for a read-back: enter the value as it was read back on the call, and whom you told.",
  readBackValue: "Value read back",
  readBackHint: (value) => `In the report's unit, e.g. ${value}.`,
  readBackMissing: "Enter the value as it was read back.",
  notifiedName: "Person told",
  notifiedNameHint: "Their name, e.g. Dr. Li.",
  notifiedNameMissing: "Enter the name of the person you told.",
  notifiedRole: "Role",
  notifiedRoles: {
    "doctor-on-call": "Doctor on call",
    "attending-doctor": "Attending doctor",
    "head-nurse": "Head nurse",
    other: "Other",
  },
  notifiedOtherRole: "Other role",
  notifiedOtherRoleMissing: "Enter the role of the person you told.",
  toldWho: (name, role) => `Told: ${name} (${role})`,
  readBackAs: (value) => `Read back: ${value}, matching`,
  overdue: "Overdue",
  overdueHint: "The last escalation step is due and nobody has acknowledged it.",
  notificationsSummary: (count) => `Notifications (${count})`,
  notificationLine: (step, channel, to) => `Step ${step} · ${channel} · ${to}`,
  notificationChannels: { email: "Mail", webhook: "Webhook" },
  notificationOutcomes: { sent: "Sent", retrying: "Not delivered, retrying", failed: "Failed" },
  notificationWhen: (at, attempts) => `${at}, attempt ${attempts}`,
};

/** A role as the reader's language names it: one of the listed roles by its words, another as it was written. */
export function roleText(texts: EscalationTexts, role: string): string {
  return (NOTIFIED_ROLES as readonly string[]).includes(role) ? texts.notifiedRoles[role as NotifiedRole] : role;
}

import { readFileSync, statSync } from "node:fs";
import nodemailer, { type Transporter } from "nodemailer";
import type { Alert } from "../../queries/alerts/alerts.ts";

/*
 * Contract G.3: a critical value by mail, through SMTP_URL (smtp:// or smtps://, with user and
 * password) from MAIL_FROM, in Chinese and English: the patient, the item, value, unit and flag,
 * the collection time and a link to the chart. The password comes from the URL (the environment)
 * or an owner-only file (SMTP_PASSWORD_FILE); it is never logged, and a failure is told by the SMTP
 * server's answer alone.
 */

export interface MailSettings {
  smtpUrl: string;
  /** An owner-only file holding the SMTP password (replacing the URL's). */
  passwordFile?: string;
  from: string;
  /** The service's external base URL, for the chart's link. */
  publicUrl?: string;
}

/** How long a mail may take: connecting, the server's greeting, and any later answer. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

/** The password of an owner-only file; a file others may read is refused, as a key would be. */
export function readPasswordFile(file: string): string {
  const mode = statSync(file).mode & 0o077;
  if (mode !== 0)
    throw new Error(
      `SMTP_PASSWORD_FILE: ${file} may be read by others (mode ${(statSync(file).mode & 0o777).toString(8)}); chmod 600 it`,
    );
  return readFileSync(file, "utf8").replace(/\r?\n$/, "");
}

export function createMailer(settings: MailSettings): Transporter {
  const url = new URL(settings.smtpUrl);
  if (settings.passwordFile) url.password = encodeURIComponent(readPasswordFile(settings.passwordFile));
  return nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === "smtps:" ? 465 : 587,
    secure: url.protocol === "smtps:",
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    ...TIMEOUTS,
    // Nothing of the conversation in the service's log: it would hold the patient and the password.
    logger: false,
    debug: false,
  });
}

/** Why a mail was not taken, in the SMTP server's words (or the connection's fault): never a credential. */
export function smtpReason(error: unknown): string {
  const { response, code, message } = error as { response?: string; code?: string; message?: string };
  if (response) return response.slice(0, 300);
  return `${code ?? "error"}: ${(message ?? String(error)).slice(0, 200)}`;
}

/** The staff pages' chart of the patient, on the alert's item and report. */
export function chartLink(publicUrl: string | undefined, alert: Pick<Alert, "patientRef" | "code" | "externalId">) {
  const query = new URLSearchParams({ code: alert.code, report: alert.externalId });
  return `${(publicUrl ?? "").replace(/\/$/, "")}/staff#chart/${encodeURIComponent(alert.patientRef)}?${query}`;
}

export interface EscalationMail {
  subject: string;
  text: string;
  headers: Record<string, string>;
  messageId: string;
}

/** The mail of a step of an alert's escalation: Chinese first, then English. */
export function escalationMail(alert: Alert, step: number, publicUrl: string | undefined): EscalationMail {
  const patient = alert.patientName ? `${alert.patientName} (${alert.patientRef})` : alert.patientRef;
  const value = `${alert.value}${alert.unit ? ` ${alert.unit}` : ""}`;
  const item = `${alert.name}${alert.label ? ` ${alert.label}` : ""}`;
  const itemEn = `${alert.nameEn ?? alert.name}${alert.label ? ` (${alert.label})` : ""}`;
  const collected = alert.collectedAt ? alert.collectedAt.replace("T", " ").slice(0, 16) : null;
  const link = chartLink(publicUrl, alert);
  const flag = alert.flag ?? "—";
  const zh = [
    `危急值通知（第 ${step} 级）：尚无人确认。`,
    `患者：${patient}`,
    `项目：${item}`,
    `结果：${value}，标志：${flag}`,
    `原因：${reasonZh(alert.reason)}`,
    `采集时间：${collected ?? "未提供"}`,
    `查看病历：${link}`,
    "请立即处理，并在系统中确认：复述结果，注明已通知的医生。",
  ];
  const en = [
    `Critical value (step ${step}): not acknowledged yet.`,
    `Patient: ${patient}`,
    `Item: ${itemEn}`,
    `Result: ${value}  Flag: ${flag}`,
    `Why: ${alert.reason}`,
    `Collected: ${collected ?? "not given"}`,
    `Chart: ${link}`,
    "Act now, and acknowledge it in the service: read the value back and name the doctor you told.",
  ];
  return {
    subject: `危急值 Critical value: ${alert.patientName ?? alert.patientRef} ${alert.label ?? alert.code} ${value}${alert.flag ? ` ${alert.flag}` : ""}`,
    text: `${zh.join("\n")}\n\n${en.join("\n")}\n`,
    // The same id for the same alert and step: a mail client shows a repeat as one.
    messageId: `<${alert.alertId}.${step}@dialysis-hub.invalid>`,
    headers: { "X-Dialysis-Hub-Alert": alert.alertId, "X-Dialysis-Hub-Step": String(step) },
  };
}

/** The reactor's reasons in Chinese ("above the critical limit 6.2 mmol/L" → "高于危急值上限 6.2 mmol/L"). */
function reasonZh(reason: string): string {
  return reason
    .replace(/^above the critical limit /, "高于危急值上限 ")
    .replace(/^below the critical limit /, "低于危急值下限 ")
    .replace(/^flagged (\w+) by the laboratory$/, "检验科标记为 $1");
}

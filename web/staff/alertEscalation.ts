import { el, localTime } from "./dom.ts";
import { roleText } from "./escalationTexts.ts";
import type { StaffTexts } from "./texts.ts";
import type { Alert } from "./types.ts";

/**
 * What the alerts page shows of an alert's escalation (contract G.3): overdue alerts first and
 * marked in words, each notification (who was told, when, and whether it reached them), and on
 * the acknowledged tab whom the nurse told and the value read back.
 */

/** Overdue alerts before the others, each group in the list's own order (newest first). */
export const overdueFirst = (alerts: Alert[]): Alert[] =>
  [...alerts].sort((a, b) => Number(b.overdue) - Number(a.overdue));

/** The mark of an overdue alert: a word and why, not a colour alone. */
export function overdueMark(texts: StaffTexts, alert: Alert): HTMLElement | null {
  if (!alert.overdue) return null;
  return el(
    "span",
    { class: "overdue-mark" },
    el("strong", {}, texts.overdue),
    el("span", { class: "sub" }, texts.overdueHint),
  );
}

/** Each notification of the alert's escalation, folded away under how many there are; nothing when nobody was notified. */
export function notificationsDetail(texts: StaffTexts, alert: Alert): HTMLElement | null {
  if (alert.notifications.length === 0) return null;
  return el(
    "details",
    { class: "notifications" },
    el("summary", {}, texts.notificationsSummary(alert.notifications.length)),
    el(
      "ul",
      {},
      ...alert.notifications.map((notification) =>
        el(
          "li",
          { "data-outcome": notification.outcome, "data-step": String(notification.step) },
          el(
            "span",
            { class: "notification-to" },
            texts.notificationLine(
              notification.step,
              texts.notificationChannels[notification.channel],
              notification.to,
            ),
          ),
          el(
            "span",
            { class: "sub" },
            el("strong", { class: "outcome-word" }, texts.notificationOutcomes[notification.outcome]),
            " · ",
            texts.notificationWhen(localTime(notification.at), notification.attempts),
          ),
          notification.reason ? el("span", { class: "sub muted reason-text" }, notification.reason) : null,
        ),
      ),
    ),
  );
}

/** On the acknowledged tab: whom the nurse told and the value she read back, when she gave them. */
export function toldAndReadBack(texts: StaffTexts, alert: Alert): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (alert.notified)
    parts.push(
      el("span", { class: "sub notified" }, texts.toldWho(alert.notified.name, roleText(texts, alert.notified.role))),
    );
  if (alert.readBack)
    parts.push(
      el(
        "span",
        { class: "sub read-back-value" },
        texts.readBackAs(`${alert.readBack.value}${alert.unit ? ` ${alert.unit}` : ""}`),
      ),
    );
  return parts;
}

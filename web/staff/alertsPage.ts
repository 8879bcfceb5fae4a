import type { AlertNotice, LiveState } from "./alertStream.ts";
import { chartHref } from "./chartLink.ts";
import { el, localTime } from "./dom.ts";
import { historyDialog } from "./historyDialog.ts";
import { acknowledgeDialog } from "./acknowledgeDialog.ts";
import { notificationsDetail, overdueFirst, overdueMark, toldAndReadBack } from "./alertEscalation.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { cardTable } from "./tables.ts";
import type { Alert, AlertState } from "./types.ts";

/** "For information" only under Delta checks: a critical result is never back inside its range. */
const STATES: AlertState[] = ["open", "info", "acknowledged", "closed"];
type AlertKind = Alert["kind"];
const KINDS: AlertKind[] = ["CRITICAL", "DELTA"];
/** GET /api/alerts/count: the alerts waiting to be acknowledged, in all and of each kind. */
type AlertCounts = Record<"open" | "critical" | "delta", number>;

/**
 * Critical-result alerts (contract D.7): the standing ones to acknowledge, with the acknowledged
 * and closed ones a tab away; delta alerts (F.3) under a tab of their own, apart from critical
 * ones, with the changes back inside the reference range "for information" (decision 0073). Each
 * kind's tab says how many of its alerts wait, as the badge adds them up. The list follows the
 * service's alert stream: a new alert shows without a reload, and one acknowledged elsewhere
 * leaves the list.
 */
export function alertsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  let state: AlertState = "open";
  let kind: AlertKind = "CRITICAL";
  /** Alerts that arrived while the page was open, highlighted until the next reload without news. */
  const fresh = new Set<string>();
  const count = el("p", { class: "count muted", "aria-live": "polite" });
  const live = el("p", { class: "live muted" });
  const showLive = (state: LiveState) => {
    live.dataset.live = String(state === "live");
    live.dataset.liveState = state;
    live.textContent = texts.liveStates[state];
  };
  // The stream is the session's: reached from another page, it is most likely open already.
  showLive(ctx.alerts.state());
  const box = el("div", { class: "page-body alerts-body" });
  const kindIntro = el("p", { class: "intro kind-intro" });
  const showIntro = () =>
    (kindIntro.textContent =
      state === "info" ? texts.infoIntro : kind === "DELTA" ? texts.deltaIntro : texts.criticalIntro);
  const tabs = alertTabs(ctx, {
    kind: () => kind,
    state: () => state,
    chooseKind: (name) => {
      kind = name;
      if (kind === "CRITICAL" && state === "info") state = "open";
      fresh.clear();
      void reload();
    },
    chooseState: (name) => {
      state = name;
      fresh.clear();
      void reload();
    },
  });
  /** The alerts the list shows now: a new alert is announced from here, as the person sees it. */
  let listed: Alert[] = [];
  const reload = loader(box, texts, async () => {
    tabs.show();
    showIntro();
    const [alerts, counts] = await Promise.all([
      ctx.api.get<Alert[]>(`/api/alerts?state=${state}&kind=${kind}&limit=500`),
      ctx.api.get<AlertCounts>("/api/alerts/count"),
    ]);
    listed = overdueFirst(alerts);
    tabs.showCounts(counts);
    count.textContent = texts.alertCount(alerts.length);
    if (alerts.length === 0)
      return el("p", { class: "empty" }, (kind === "DELTA" ? texts.noDeltaAlerts : texts.noAlerts)[state]);
    return alertTable(ctx, state, listed, fresh, reload);
  });
  /**
   * A new alert said in the live region: with its patient and value once the list (a recorded
   * look, decision 0078) shows it, else only its kind (it is under the other tab).
   */
  const announceRaised = (notice: AlertNotice) => {
    const alert = listed.find((one) => one.alertId === notice.alertId);
    if (!alert) return ctx.announce(texts.newAlertElsewhere[notice.kind]);
    const patient = alert.patientName ?? alert.patientRef;
    ctx.announce(
      alert.kind === "DELTA"
        ? texts.newDeltaAlert(patient, texts.itemTitle(alert), changeText(alert))
        : texts.newAlert(patient, texts.itemTitle(alert), valueText(alert)),
    );
  };

  ctx.onLeave(
    ctx.alerts.subscribe((change, notice) => {
      if (change === "raised") fresh.add(notice.alertId);
      void reload().then(() => change === "raised" && announceRaised(notice));
    }),
  );
  ctx.onLeave(
    ctx.alerts.onConnected((connected) => {
      showLive(connected ? "live" : "lost");
      if (connected) void reload();
    }),
  );
  void reload();
  const kinds = el(
    "div",
    { class: "state-tabs kind-tabs", role: "group", "aria-label": texts.alertKindTabs },
    ...tabs.kinds,
  );
  const toolbar = el(
    "div",
    { class: "toolbar" },
    el("div", { class: "state-tabs", role: "group", "aria-label": texts.alertStateTabs }, ...tabs.states),
    live,
  );
  // Who is told by mail and when, and how to read back: the wards' article (contract G.3).
  const help = el(
    "p",
    { class: "escalation-help" },
    el("a", { href: `/help/critical-value-escalation${ctx.lang === "en" ? "?lang=en" : ""}` }, texts.escalationHelp),
  );
  return pageFrame("alerts", texts.alerts, texts.alertsIntro, help, kinds, kindIntro, toolbar, count, box);
}

/**
 * The kind tabs, each with how many of its alerts wait to be acknowledged (the badge's number is
 * their sum: one result, one alert), and the state tabs, "For information" among them only under
 * Delta checks.
 */
function alertTabs(
  ctx: PageContext,
  page: {
    kind: () => AlertKind;
    state: () => AlertState;
    chooseKind: (kind: AlertKind) => void;
    chooseState: (state: AlertState) => void;
  },
) {
  const { texts } = ctx;
  const kinds = pressedTabs(KINDS, "kind", page.kind, (name) => texts.alertKinds[name], page.chooseKind);
  const counters = kinds.map((tab) => {
    const counter = el("span", { class: "tab-count", "data-count": "0" }, "0");
    tab.append(" ", counter);
    return counter;
  });
  const states = pressedTabs(STATES, "state", page.state, (name) => texts.alertStates[name], page.chooseState);
  return {
    kinds,
    states,
    /** Shows the page's kind and state as pressed, and the information tab where it belongs. */
    show() {
      kinds.forEach((tab, i) => tab.setAttribute("aria-pressed", String(KINDS[i] === page.kind())));
      states.forEach((tab, i) => {
        tab.setAttribute("aria-pressed", String(STATES[i] === page.state()));
        if (STATES[i] === "info") tab.hidden = page.kind() !== "DELTA";
      });
    },
    showCounts(counts: AlertCounts) {
      KINDS.forEach((name, i) => {
        const waiting = name === "DELTA" ? counts.delta : counts.critical;
        counters[i]!.textContent = String(waiting);
        counters[i]!.dataset.count = String(waiting);
        kinds[i]!.setAttribute("aria-label", texts.kindTabWithCount(texts.alertKinds[name], waiting));
      });
    },
  };
}

/** Buttons of which one is pressed: choosing one presses it alone and calls `choose`. */
function pressedTabs<T extends string>(
  names: readonly T[],
  key: string,
  current: () => T,
  label: (name: T) => string,
  choose: (name: T) => void,
): HTMLButtonElement[] {
  const tabs: HTMLButtonElement[] = names.map((name) =>
    el(
      "button",
      {
        type: "button",
        class: "state-tab",
        [`data-${key}-tab`]: name,
        "aria-pressed": name === current() ? "true" : "false",
        onclick: () => {
          tabs.forEach((tab, index) => tab.setAttribute("aria-pressed", names[index] === name ? "true" : "false"));
          choose(name);
        },
      },
      label(name),
    ),
  );
  return tabs;
}

const inUnit = (value: number | string, unit: string | null) => `${value}${unit ? ` ${unit}` : ""}`;
const valueText = (alert: Alert) => `${inUnit(alert.value, alert.unit)}${alert.flag ? ` (${alert.flag})` : ""}`;
const changeText = (alert: Alert) =>
  alert.delta ? `${alert.delta.change > 0 ? "+" : ""}${inUnit(alert.delta.change, alert.unit)}` : "";

/** A change from the previous result: how far, from what and when, and the limit it passed. */
function deltaParts(ctx: PageContext, alert: Alert): HTMLElement[] {
  const { texts } = ctx;
  const delta = alert.delta!;
  const limit = delta.limit.percent ? `${delta.limit.limit} %` : inUnit(delta.limit.limit, alert.unit);
  return [
    el("span", { class: "delta-change" }, texts.labelled(texts.colChange, changeText(alert))),
    el(
      "span",
      { class: "sub" },
      texts.labelled(
        texts.colPrevious,
        texts.previousResult(inUnit(delta.previous, alert.unit), localTime(delta.previousAt)),
      ),
    ),
    el("span", { class: "sub muted" }, texts.deltaLimit(limit, delta.limit.days)),
  ];
}

/**
 * Why the result is listed: a critical result's reason, with the change it carries when it also
 * moved beyond its delta limit (one alert for the result); a delta alert's change; information's
 * return inside the reference range and its change.
 */
function whyCell(ctx: PageContext, alert: Alert): HTMLElement {
  const { texts } = ctx;
  if (alert.kind === "CRITICAL" && !alert.delta) return el("td", { class: "reason" }, texts.reasons(alert.reason));
  if (alert.kind === "CRITICAL")
    return el(
      "td",
      { class: "reason delta also-delta" },
      el("span", { class: "critical-reason" }, texts.reasons(alert.reason)),
      el("span", { class: "also-delta-label" }, texts.alsoDelta),
      ...deltaParts(ctx, alert),
    );
  return el(
    "td",
    { class: "reason delta" },
    alert.severity === "info" ? el("span", { class: "back-in-range" }, texts.backInRange) : null,
    ...deltaParts(ctx, alert),
  );
}

/** The last cell: what can be done (acknowledge and history; history alone for information), or how it ended. */
function outcomeCell(ctx: PageContext, state: AlertState, alert: Alert, reload: () => Promise<void>): HTMLElement {
  const { texts } = ctx;
  const patient = alert.patientName ?? alert.patientRef;
  const item = texts.itemTitle(alert);
  if (state === "acknowledged")
    return el(
      "td",
      { class: "outcome" },
      `${localTime(alert.acknowledgedAt!)} · ${alert.acknowledgedBy}`,
      el("span", { class: "sub note" }, alert.note ?? ""),
      ...toldAndReadBack(texts, alert),
    );
  if (state === "closed")
    return el(
      "td",
      { class: "outcome" },
      localTime(alert.closedAt!),
      el("span", { class: "sub muted" }, texts.reasons(alert.closedReason ?? "")),
    );
  return el(
    "td",
    { class: "actions" },
    state === "open"
      ? el(
          "button",
          {
            type: "button",
            class: "primary acknowledge",
            "aria-label": texts.acknowledgeFor(patient, item),
            onclick: () => void acknowledgeDialog(ctx, alert, reload),
          },
          texts.acknowledge,
        )
      : null,
    el(
      "button",
      {
        type: "button",
        class: "history",
        "aria-label": texts.historyFor(alert.externalId),
        onclick: () => historyDialog(ctx, "lab", alert.externalId),
      },
      texts.history,
    ),
  );
}

function alertTable(
  ctx: PageContext,
  state: AlertState,
  alerts: Alert[],
  fresh: ReadonlySet<string>,
  reload: () => Promise<void>,
): HTMLElement {
  const { texts } = ctx;
  const last =
    state === "acknowledged" ? texts.colAcknowledged : state === "closed" ? texts.colClosed : texts.colActions;
  const columns = [texts.colRaised, texts.colPatient, texts.colResult, texts.colWhy, last];
  const rows = alerts.map((alert) => {
    const patient = alert.patientName ?? alert.patientRef;
    const info = alert.severity === "info";
    return el(
      "tr",
      {
        "data-alert-id": alert.alertId,
        "data-external-id": alert.externalId,
        "data-severity": alert.severity,
        "data-reasons": alert.reasons.join(" "),
        "data-overdue": String(alert.overdue),
        class: [fresh.has(alert.alertId) ? "fresh" : "", alert.overdue ? "overdue" : ""].join(" ").trim() || null,
      },
      el("td", { class: "raised" }, overdueMark(texts, alert), localTime(alert.raisedAt)),
      el(
        "th",
        { scope: "row" },
        el(
          "a",
          {
            href: chartHref(alert.patientRef, { code: alert.code, externalId: alert.externalId }),
            "aria-label": texts.chartFor(patient),
          },
          patient,
        ),
        el("span", { class: "sub muted" }, alert.patientRef),
      ),
      el(
        "td",
        { class: "result" },
        el("strong", {}, texts.itemTitle(alert)),
        " ",
        el("span", { class: info ? "info-value" : "critical-value" }, valueText(alert)),
      ),
      withNotifications(whyCell(ctx, alert), notificationsDetail(texts, alert)),
      outcomeCell(ctx, state, alert, reload),
    );
  });
  return cardTable(
    el(
      "table",
      { class: `data alerts alerts-${state}` },
      el("caption", { class: "visually-hidden" }, texts.alertStates[state]),
      el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows),
    ),
  );
}

/** The why cell with the alert's notifications beneath (contract G.3), when anybody was notified. */
function withNotifications(cell: HTMLElement, notifications: HTMLElement | null): HTMLElement {
  if (notifications) cell.append(notifications);
  return cell;
}

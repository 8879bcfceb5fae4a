import type { LiveState } from "./alertStream.ts";
import { chartHref } from "./chartLink.ts";
import { el, localTime } from "./dom.ts";
import { historyDialog } from "./historyDialog.ts";
import { noteDialog } from "./noteDialog.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import type { Alert, AlertState } from "./types.ts";

const STATES: AlertState[] = ["open", "acknowledged", "closed"];
type AlertKind = Alert["kind"];
const KINDS: AlertKind[] = ["CRITICAL", "DELTA"];

/**
 * Critical-result alerts (contract D.7): the standing ones to acknowledge, with the acknowledged
 * and closed ones a tab away; delta alerts (F.3) under a tab of their own, apart from critical
 * ones. The list follows the service's alert stream: a new alert shows without a reload, and one
 * acknowledged elsewhere leaves the list.
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
  const reload = loader(box, texts, async () => {
    const alerts = await ctx.api.get<Alert[]>(`/api/alerts?state=${state}&kind=${kind}&limit=500`);
    count.textContent = texts.alertCount(alerts.length);
    if (alerts.length === 0)
      return el("p", { class: "empty" }, (kind === "DELTA" ? texts.noDeltaAlerts : texts.noAlerts)[state]);
    return alertTable(ctx, state, alerts, fresh, reload);
  });
  const kindIntro = el("p", { class: "intro kind-intro" });
  const showKindIntro = () => (kindIntro.textContent = kind === "DELTA" ? texts.deltaIntro : texts.criticalIntro);
  showKindIntro();
  const kindTabs = pressedTabs(
    KINDS,
    "kind",
    () => kind,
    (name) => texts.alertKinds[name],
    (name) => {
      kind = name;
      showKindIntro();
      fresh.clear();
      void reload();
    },
  );

  const tabs = pressedTabs(
    STATES,
    "state",
    () => state,
    (name) => texts.alertStates[name],
    (name) => {
      state = name;
      fresh.clear();
      void reload();
    },
  );

  ctx.onLeave(
    ctx.alerts.subscribe((change, alert) => {
      if (change === "raised") {
        fresh.add(alert.alertId);
        const patient = alert.patientName ?? alert.patientRef;
        ctx.announce(
          alert.delta
            ? texts.newDeltaAlert(patient, texts.itemTitle(alert), changeText(alert))
            : texts.newAlert(patient, texts.itemTitle(alert), valueText(alert)),
        );
      }
      void reload();
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
    ...kindTabs,
  );
  const toolbar = el(
    "div",
    { class: "toolbar" },
    el("div", { class: "state-tabs", role: "group", "aria-label": texts.alertStateTabs }, ...tabs),
    live,
  );
  return pageFrame("alerts", texts.alerts, texts.alertsIntro, kinds, kindIntro, toolbar, count, box);
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

/** A delta alert's why: the previous result, the change from it, and the limit it passed. */
function deltaCell(ctx: PageContext, alert: Alert): HTMLElement {
  const { texts } = ctx;
  const delta = alert.delta!;
  const limit = delta.limit.percent ? `${delta.limit.limit} %` : inUnit(delta.limit.limit, alert.unit);
  return el(
    "td",
    { class: "reason delta" },
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
  const last = state === "open" ? texts.colActions : state === "acknowledged" ? texts.colAcknowledged : texts.colClosed;
  const columns = [texts.colRaised, texts.colPatient, texts.colResult, texts.colWhy, last];
  const rows = alerts.map((alert) => {
    const patient = alert.patientName ?? alert.patientRef;
    const item = texts.itemTitle(alert);
    const outcome =
      state === "open"
        ? el(
            "td",
            { class: "actions" },
            el(
              "button",
              {
                type: "button",
                class: "primary acknowledge",
                "aria-label": texts.acknowledgeFor(patient, item),
                onclick: () => acknowledgeDialog(ctx, alert, reload),
              },
              texts.acknowledge,
            ),
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
          )
        : state === "acknowledged"
          ? el(
              "td",
              { class: "outcome" },
              `${localTime(alert.acknowledgedAt!)} · ${alert.acknowledgedBy}`,
              el("span", { class: "sub note" }, alert.note ?? ""),
            )
          : el(
              "td",
              { class: "outcome" },
              localTime(alert.closedAt!),
              el("span", { class: "sub muted" }, texts.reasons(alert.closedReason ?? "")),
            );
    return el(
      "tr",
      {
        "data-alert-id": alert.alertId,
        "data-external-id": alert.externalId,
        class: fresh.has(alert.alertId) ? "fresh" : null,
      },
      el("td", {}, localTime(alert.raisedAt)),
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
        el("strong", {}, item),
        " ",
        el("span", { class: "critical-value" }, valueText(alert)),
      ),
      alert.delta ? deltaCell(ctx, alert) : el("td", { class: "reason" }, texts.reasons(alert.reason)),
      outcome,
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

function acknowledgeDialog(ctx: PageContext, alert: Alert, reload: () => Promise<void>): void {
  const { texts } = ctx;
  const patient = alert.patientName ?? alert.patientRef;
  const item = texts.itemTitle(alert);
  noteDialog(ctx, {
    title: texts.acknowledgeTitle(patient, item),
    about: [
      el(
        "p",
        { class: alert.delta ? "critical-summary delta-summary" : "critical-summary" },
        el("strong", {}, `${item} ${valueText(alert)}`),
        " · ",
        texts.reasons(alert.reason),
        " · ",
        localTime(alert.raisedAt),
      ),
      el("p", { class: "intro" }, texts.acknowledgeIntro),
    ],
    formClass: "acknowledge-form",
    fieldId: "acknowledge-note",
    label: texts.note,
    hint: texts.noteHint,
    missing: texts.noteMissing,
    maxLength: 1000,
    submit: { text: texts.acknowledge, busy: texts.acknowledging },
    send: (note) => ctx.api.post(`/api/alerts/${segment(alert.alertId)}/acknowledge`, { note }),
    done: async () => {
      ctx.announce(texts.acknowledged(patient, item));
      await reload();
    },
  });
}

import { el, localTime } from "./dom.ts";
import { accessLogDialog } from "./accessLogDialog.ts";
import { chartAddressOf, type ChartFocus } from "./chartLink.ts";
import { deltaNote } from "./deltaNote.ts";
import { historyDialog } from "./historyDialog.ts";
import { reportDialog } from "./labReportView.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { valueInUnit } from "./valueText.ts";
import { seriesChart, type Series, type SeriesPoint } from "./seriesChart.ts";
import { patientCopyButton } from "./patientCopyButton.ts";
import { may } from "./session.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import type { PatientResults, ResultItem } from "./types.ts";

const PERIODS = ["1", "3", "5"] as const;
type Period = (typeof PERIODS)[number];
/** The results route answers at most this many items at a time. */
const MAX_ITEMS = 20;

const pad = (n: number) => String(n).padStart(2, "0");
const day = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/**
 * One patient's chart (`GET /api/patients/{ref}/results`, contract D.7): a small chart per item
 * with its reference range, target band and critical limits, the latest value and flag; the same
 * numbers as a table; and the reports of the period, each readable as printed and with its history.
 * It draws the core items and any other the patient has results of, as staff choose
 * (`GET /api/patients/{ref}/result-items`). Opened from an alert (`#chart/<ref>?code=K&report=<id>`),
 * it draws that item first and marks the value that raised the alert.
 */
export function chartPage(ctx: PageContext, routed: string): HTMLElement {
  const { texts } = ctx;
  const { patientRef, focus } = chartAddressOf(location.hash, routed);
  let period: Period = "1";
  let view: "charts" | "table" = "charts";
  let disposers: Array<() => void> = [];
  const disposeCharts = () => {
    disposers.forEach((dispose) => dispose());
    disposers = [];
  };
  ctx.onLeave(disposeCharts);

  const periodSelect = el(
    "select",
    { id: "chart-period", name: "period" },
    ...PERIODS.map((years) => el("option", { value: years, selected: years === period }, texts.periods[years])),
  );
  const viewButton = el("button", { type: "button", class: "view-toggle", "aria-pressed": "false" }, texts.tableView);
  const box = el("div", { class: "page-body chart-body" });
  const reports = el("section", { class: "patient-reports", "aria-labelledby": "patient-reports-title" });
  const picker = itemPicker(ctx, () => void reload());
  let results: PatientResults | null = null;

  const reload = loader(box, texts, async () => {
    if (!picker.ready())
      picker.offer(await ctx.api.get<ResultItem[]>(`/api/patients/${segment(patientRef)}/result-items`), focus);
    const to = new Date();
    const from = new Date(to.getFullYear() - Number(period), to.getMonth(), to.getDate());
    const codes = picker.chosen().map(encodeURIComponent).join(",");
    results = await ctx.api.get<PatientResults>(
      `/api/patients/${segment(patientRef)}/results?from=${day(from)}&to=${day(to)}&codes=${codes}`,
    );
    const heading = frame.querySelector("h1");
    if (heading) heading.textContent = texts.chartTitle(results.patient.name, results.patient.patientRef);
    document.title = `${texts.chartFor(results.patient.name)} · ${texts.appTitle}`;
    reports.replaceChildren(...reportList(ctx, results, focus));
    return render(results);
  });
  const render = (answer: PatientResults): Node => {
    disposeCharts();
    if (view === "table") return resultTable(ctx, answer, focus);
    const cards = answer.series.map((series) => {
      const card = seriesCard(ctx, series, focus?.code === series.code ? focus : null);
      disposers.push(card.dispose);
      return card.element;
    });
    return el(
      "div",
      {},
      el("p", { class: "hint chart-hint" }, texts.openPointHint),
      el("div", { class: "series-grid" }, ...cards),
    );
  };

  periodSelect.addEventListener("change", () => {
    period = periodSelect.value as Period;
    void reload();
  });
  viewButton.addEventListener("click", () => {
    view = view === "charts" ? "table" : "charts";
    viewButton.setAttribute("aria-pressed", String(view === "table"));
    viewButton.textContent = view === "table" ? texts.chartView : texts.tableView;
    if (results) box.replaceChildren(render(results));
  });
  void reload();

  const toolbar = el(
    "div",
    { class: "toolbar" },
    el("a", { href: "#patients", class: "back" }, texts.backToPatients),
    el("div", { class: "form-field inline" }, el("label", { for: periodSelect.id }, texts.period), periodSelect),
    viewButton,
    // Administrators see who was shown this patient (contract E.4); the server refuses it to others.
    may(ctx.session, "admin")
      ? el(
          "button",
          {
            type: "button",
            class: "access-log-button",
            onclick: () => accessLogDialog(ctx, patientRef, results?.patient.name ?? patientRef),
          },
          texts.accessLog,
        )
      : null,
    // And hand a patient who asks the copy of their own data (contract G.1).
    may(ctx.session, "admin") ? patientCopyButton(ctx, patientRef) : null,
  );
  const frame = pageFrame("chart", texts.chart, texts.chartIntro, toolbar, picker.element, box, reports);
  frame.dataset.patientRef = patientRef;
  if (focus) frame.dataset.focusCode = focus.code;
  return frame;
}

interface ItemPicker {
  element: HTMLElement;
  ready(): boolean;
  /** The items the patient has; the chart starts on the core ones, the focused item first. */
  offer(items: ResultItem[], focus: ChartFocus | null): void;
  chosen(): string[];
}

/**
 * Which items the chart draws: the core ones to start with (and the item an alert opened it on),
 * any other the patient has results of a click away. Folded, so the charts stay at the top.
 */
function itemPicker(ctx: PageContext, changed: () => void): ItemPicker {
  const { texts } = ctx;
  let offered: ResultItem[] | null = null;
  let chosen: string[] = [];
  const summary = el("summary", {});
  const groups = el("div", { class: "item-groups" });
  const element = el(
    "details",
    { class: "item-picker" },
    summary,
    el(
      "fieldset",
      {},
      el("legend", {}, texts.itemsLegend),
      el("p", { class: "hint", id: "item-picker-hint" }, texts.itemsHint(MAX_ITEMS)),
      groups,
    ),
  );
  const boxes = () => [...groups.querySelectorAll<HTMLInputElement>("input[type=checkbox]")];
  const settle = () => {
    summary.textContent = texts.itemsShown(chosen.length, offered?.length ?? 0);
    // At most MAX_ITEMS, and at least one: no codes at all would ask for the core items again.
    for (const box of boxes()) box.disabled = box.checked ? chosen.length === 1 : chosen.length >= MAX_ITEMS;
  };
  const option = (item: ResultItem) => {
    const box = el("input", {
      type: "checkbox",
      name: "item",
      value: item.code,
      checked: chosen.includes(item.code),
      "aria-describedby": "item-picker-hint",
    });
    box.addEventListener("change", () => {
      chosen = box.checked ? [...chosen, item.code] : chosen.filter((code) => code !== item.code);
      settle();
      changed();
    });
    return el(
      "label",
      { class: "item-option", "data-code": item.code },
      box,
      texts.itemOption(texts.itemTitle(item), item.results, item.lastAt ? localTime(item.lastAt) : null),
    );
  };
  const group = (legend: string, items: ResultItem[]) =>
    items.length === 0 ? null : el("fieldset", { class: "item-group" }, el("legend", {}, legend), ...items.map(option));
  return {
    element,
    ready: () => offered !== null,
    offer(items, focus) {
      offered = items;
      const core = items.filter((item) => item.core).map((item) => item.code);
      // An item the patient has no value of to draw is not asked for (the route refuses what it cannot chart).
      const first = focus && items.some((item) => item.code === focus.code) ? focus.code : null;
      chosen = (first ? [first, ...core.filter((code) => code !== first)] : core).slice(0, MAX_ITEMS);
      groups.replaceChildren(
        ...[
          group(
            texts.coreItems,
            items.filter((item) => item.core),
          ),
          group(
            texts.otherItems,
            items.filter((item) => !item.core),
          ),
        ].filter((node): node is HTMLFieldSetElement => node !== null),
      );
      settle();
    },
    chosen: () => chosen,
  };
}

const shown = (series: Series, value: number) => valueInUnit(series, value);
const pointText = (series: Series, point: SeriesPoint) =>
  `${shown(series, point.value)}${point.flag ? ` ${point.flag}` : ""}`;
/** A derived value's formula and the reports it read (contract F.2), as the tooltip and the table say them; null for a sent value. */
const derivedNote = (ctx: PageContext, point: SeriesPoint) =>
  point.formula ? `${ctx.texts.derivedBy(point.formula)} · ${ctx.texts.derivedFrom(point.formula.inputs)}` : null;
const band = (low: number | null, high: number | null) =>
  low !== null && high !== null ? `${low}–${high}` : low !== null ? `≥ ${low}` : high !== null ? `≤ ${high}` : "—";
const flagClass = (flag: string | null) => (flag ? ` flag-${flag.toLowerCase()}` : "");

/** The result an alert opened the chart on: its value, when, and its report a click away; or why it is not drawn. */
function markedNote(ctx: PageContext, series: Series, focus: ChartFocus): HTMLElement | null {
  const { texts } = ctx;
  if (!focus.externalId) return null;
  const externalId = focus.externalId;
  const point = series.points.find((one) => one.externalId === externalId);
  const open = el(
    "button",
    {
      type: "button",
      class: "view-report",
      "aria-label": texts.viewReportFor(externalId),
      onclick: () => reportDialog(ctx, "lab", externalId),
    },
    texts.viewReport,
  );
  if (!point) return el("p", { class: "marked-result missing" }, texts.markedMissing(externalId), " ", open);
  return el(
    "p",
    { class: `marked-result${flagClass(point.flag)}`, "data-external-id": externalId },
    el("span", { class: "marked-label" }, texts.markedResult),
    " ",
    el("strong", {}, pointText(series, point)),
    ` · ${localTime(point.at)} · ${externalId} `,
    open,
  );
}

/** Cards drawn on this page so far: each legend's id is its own. */
let seriesCards = 0;

function seriesCard(
  ctx: PageContext,
  series: Series,
  focus: ChartFocus | null,
): { element: HTMLElement; dispose: () => void } {
  const { texts } = ctx;
  const latest = series.points.at(-1);
  const latestText = latest ? `${pointText(series, latest)} · ${localTime(latest.at)}` : "";
  const marked = focus?.externalId ? series.points.find((point) => point.externalId === focus.externalId) : undefined;
  const derivedFormula = series.points.findLast((point) => point.formula)?.formula;
  const legendId = `bands-${++seriesCards}`;
  const hint = el("p", { class: "visually-hidden", id: `${legendId}-hint` }, texts.chartTableHint);
  const legend = el(
    "ul",
    { class: "bands", id: legendId },
    series.refLow !== null || series.refHigh !== null
      ? el("li", { class: "band-reference" }, `${texts.refRange} ${band(series.refLow, series.refHigh)}`)
      : null,
    series.target
      ? el(
          "li",
          { class: "band-target", title: (ctx.lang === "zh" && series.target.sourceZh) || series.target.source },
          `${texts.targetBand} ${band(series.target.low, series.target.high)}`,
        )
      : null,
    series.critical
      ? el(
          "li",
          { class: "band-critical", title: (ctx.lang === "zh" && series.critical.sourceZh) || series.critical.source },
          `${texts.criticalLimits} ${band(series.critical.low, series.critical.high)}`,
        )
      : null,
    // The formula in words beside the chart, not only in a tooltip a keyboard or a screen reader cannot reach.
    derivedFormula ? el("li", { class: "band-derived" }, texts.derivedBy(derivedFormula)) : null,
  );
  const title = texts.itemTitle(series);
  const label =
    texts.seriesSummary(title, series.points.length, latestText) +
    (marked ? texts.markedPointOf(pointText(series, marked), localTime(marked.at)) : "");
  const chart = series.points.length
    ? seriesChart(series, {
        title,
        label,
        describedBy: `${legendId} ${hint.id}`,
        marked: marked?.externalId ?? null,
        onPoint: (point) => reportDialog(ctx, "lab", point.externalId),
        pointNote: (point) => derivedNote(ctx, point),
      })
    : null;
  const element = el(
    "article",
    { class: `series-card${focus ? " focused" : ""}`, "data-code": series.code, "data-points": series.points.length },
    el("h2", {}, title, el("span", { class: "unit muted" }, series.unit ? ` ${series.unit}` : "")),
    latest
      ? el(
          "p",
          { class: `latest${flagClass(latest.flag)}` },
          `${texts.latest} `,
          el("strong", { "data-latest": latest.value }, latestText),
          latest.derived ? el("span", { class: "badge derived-badge" }, texts.derived) : null,
        )
      : el("p", { class: "latest muted" }, texts.noResults),
    focus ? markedNote(ctx, series, focus) : null,
    legend,
    chart ? chart.element : null,
    chart ? hint : null,
  );
  return { element, dispose: () => chart?.dispose() };
}

const viewReportButton = (ctx: PageContext, externalId: string, text: string) =>
  el(
    "button",
    {
      type: "button",
      class: "view-report",
      "aria-label": ctx.texts.viewReportFor(externalId),
      onclick: () => reportDialog(ctx, "lab", externalId),
    },
    text,
  );
const isMarked = (focus: ChartFocus | null, externalId: string, code?: string) =>
  focus?.externalId === externalId && (code === undefined || focus.code === code);

function resultTable(ctx: PageContext, answer: PatientResults, focus: ChartFocus | null): HTMLElement {
  const { texts } = ctx;
  const rows = answer.series.flatMap((series) =>
    [...series.points].reverse().map((point) =>
      el(
        "tr",
        {
          "data-code": series.code,
          "data-external-id": point.externalId,
          class: isMarked(focus, point.externalId, series.code) ? "marked" : null,
        },
        el("th", { scope: "row" }, texts.itemTitle(series)),
        el("td", {}, localTime(point.at)),
        el("td", { class: "number" }, shown(series, point.value)),
        point.derived
          ? el(
              "td",
              { class: "flag derived" },
              el("span", { class: "badge derived-badge" }, texts.derived),
              " ",
              el("span", { class: "formula" }, derivedNote(ctx, point)),
            )
          : el(
              "td",
              { class: point.flag ? `flag flag-${point.flag.toLowerCase()}` : "flag" },
              point.flag ?? "",
              deltaNote(ctx, series, point),
            ),
        el("td", {}, viewReportButton(ctx, point.externalId, point.externalId)),
      ),
    ),
  );
  if (rows.length === 0) return el("p", { class: "empty" }, texts.noResults);
  const head = el(
    "tr",
    {},
    ...[texts.colResult, texts.colWhen, texts.colValue, texts.colFlag, texts.colReport].map((c) =>
      el("th", { scope: "col" }, c),
    ),
  );
  // A card per result on a phone (issue #54: squeezed into five columns, a report's id broke a letter a line).
  return cardTable(el("table", { class: "data results" }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

/** The reports whose results the period shows, newest first, each to read as printed and with its history. */
function reportList(ctx: PageContext, answer: PatientResults, focus: ChartFocus | null): Node[] {
  const { texts } = ctx;
  const reports = new Map<string, string>();
  for (const series of answer.series)
    for (const point of series.points)
      if ((reports.get(point.externalId) ?? "") < point.at) reports.set(point.externalId, point.at);
  const items = [...reports].sort((a, b) => b[1].localeCompare(a[1]));
  return [
    el("h2", { id: "patient-reports-title" }, texts.patientReports),
    items.length === 0
      ? el("p", { class: "empty" }, texts.noPatientReports)
      : el(
          "ul",
          { class: "patient-report-list" },
          ...items.map(([externalId, at]) =>
            el(
              "li",
              { "data-external-id": externalId, class: isMarked(focus, externalId) ? "marked" : null },
              `${localTime(at)} · ${externalId} `,
              isMarked(focus, externalId) ? el("span", { class: "badge marked-badge" }, texts.markedResult) : null,
              el(
                "span",
                { class: "actions" },
                viewReportButton(ctx, externalId, texts.viewReport),
                el(
                  "button",
                  {
                    type: "button",
                    class: "history",
                    "aria-label": texts.historyFor(externalId),
                    onclick: () => historyDialog(ctx, "lab", externalId),
                  },
                  texts.history,
                ),
              ),
            ),
          ),
        ),
  ];
}

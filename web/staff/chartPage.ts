import { el, localTime } from "./dom.ts";
import { accessLogDialog } from "./accessLogDialog.ts";
import { historyDialog } from "./historyDialog.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { seriesChart, type Series } from "./seriesChart.ts";
import { may } from "./session.ts";
import { segment } from "./staffApi.ts";
import type { PatientResults } from "./types.ts";

const PERIODS = ["1", "3", "5"] as const;
type Period = (typeof PERIODS)[number];

const pad = (n: number) => String(n).padStart(2, "0");
const day = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/**
 * One patient's chart (`GET /api/patients/{ref}/results`, contract D.7): a small chart per core
 * item with its reference range, target band and critical limits, the latest value and flag; the
 * same numbers as a table; and the reports of the period, each with its history.
 */
export function chartPage(ctx: PageContext, patientRef: string): HTMLElement {
  const { texts } = ctx;
  let period: Period = "1";
  let view: "charts" | "table" = "charts";
  let disposers: Array<() => void> = [];
  const disposeCharts = () => {
    disposers.forEach((dispose) => dispose());
    disposers = [];
  };
  ctx.onLeave(disposeCharts);

  const periodSelect = el("select", { id: "chart-period", name: "period" }, ...PERIODS.map((years) => el("option", { value: years, selected: years === period }, texts.periods[years])));
  const viewButton = el("button", { type: "button", class: "view-toggle", "aria-pressed": "false" }, texts.tableView);
  const box = el("div", { class: "page-body chart-body" });
  const reports = el("section", { class: "patient-reports", "aria-labelledby": "patient-reports-title" });
  let results: PatientResults | null = null;

  const reload = loader(box, texts, async () => {
    const to = new Date();
    const from = new Date(to.getFullYear() - Number(period), to.getMonth(), to.getDate());
    results = await ctx.api.get<PatientResults>(`/api/patients/${segment(patientRef)}/results?from=${day(from)}&to=${day(to)}`);
    const heading = frame.querySelector("h1");
    if (heading) heading.textContent = texts.chartTitle(results.patient.name, results.patient.patientRef);
    document.title = `${texts.chartFor(results.patient.name)} · ${texts.appTitle}`;
    reports.replaceChildren(...reportList(ctx, results));
    return render(results);
  });
  const render = (answer: PatientResults): Node => {
    disposeCharts();
    if (view === "table") return resultTable(ctx, answer);
    const cards = answer.series.map((series) => {
      const card = seriesCard(ctx, series);
      disposers.push(card.dispose);
      return card.element;
    });
    return el("div", { class: "series-grid" }, ...cards);
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
      ? el("button", { type: "button", class: "access-log-button", onclick: () => accessLogDialog(ctx, patientRef, results?.patient.name ?? patientRef) }, texts.accessLog)
      : null,
  );
  const frame = pageFrame("chart", texts.chart, texts.chartIntro, toolbar, box, reports);
  frame.dataset.patientRef = patientRef;
  return frame;
}

const shown = (series: Series, value: number) => `${value}${series.unit ? ` ${series.unit}` : ""}`;
const band = (low: number | null, high: number | null) => (low !== null && high !== null ? `${low}–${high}` : low !== null ? `≥ ${low}` : high !== null ? `≤ ${high}` : "—");

function seriesCard(ctx: PageContext, series: Series): { element: HTMLElement; dispose: () => void } {
  const { texts } = ctx;
  const latest = series.points.at(-1);
  const latestText = latest ? `${shown(series, latest.value)}${latest.flag ? ` ${latest.flag}` : ""} · ${localTime(latest.at)}` : "";
  const legend = el(
    "ul",
    { class: "bands" },
    series.refLow !== null || series.refHigh !== null ? el("li", { class: "band-reference" }, `${texts.refRange} ${band(series.refLow, series.refHigh)}`) : null,
    series.target ? el("li", { class: "band-target", title: series.target.source }, `${texts.targetBand} ${band(series.target.low, series.target.high)}`) : null,
    series.critical ? el("li", { class: "band-critical", title: series.critical.source }, `${texts.criticalLimits} ${band(series.critical.low, series.critical.high)}`) : null,
  );
  const chart = series.points.length ? seriesChart(series, texts.seriesSummary(series.name, series.points.length, latestText)) : null;
  const element = el(
    "article",
    { class: "series-card", "data-code": series.code, "data-points": series.points.length },
    el("h2", {}, series.name, el("span", { class: "unit muted" }, series.unit ? ` ${series.unit}` : "")),
    latest
      ? el("p", { class: `latest${latest.flag ? ` flag-${latest.flag.toLowerCase()}` : ""}` }, `${texts.latest} `, el("strong", { "data-latest": latest.value }, latestText))
      : el("p", { class: "latest muted" }, texts.noResults),
    legend,
    chart ? chart.element : null,
  );
  return { element, dispose: () => chart?.dispose() };
}

function resultTable(ctx: PageContext, answer: PatientResults): HTMLElement {
  const { texts } = ctx;
  const rows = answer.series.flatMap((series) =>
    [...series.points].reverse().map((point) =>
      el(
        "tr",
        { "data-code": series.code, "data-external-id": point.externalId },
        el("th", { scope: "row" }, series.name),
        el("td", {}, localTime(point.at)),
        el("td", { class: "number" }, shown(series, point.value)),
        el("td", { class: point.flag ? `flag flag-${point.flag.toLowerCase()}` : "flag" }, point.flag ?? ""),
        el("td", {}, point.externalId),
      ),
    ),
  );
  if (rows.length === 0) return el("p", { class: "empty" }, texts.noResults);
  const head = el("tr", {}, ...[texts.colResult, texts.colWhen, texts.colValue, texts.colFlag, texts.colReport].map((c) => el("th", { scope: "col" }, c)));
  return el("div", { class: "table-wrap" }, el("table", { class: "data results" }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

/** The reports whose results the period shows, newest first, each with its history. */
function reportList(ctx: PageContext, answer: PatientResults): Node[] {
  const { texts } = ctx;
  const reports = new Map<string, string>();
  for (const series of answer.series) for (const point of series.points) if ((reports.get(point.externalId) ?? "") < point.at) reports.set(point.externalId, point.at);
  const items = [...reports].sort((a, b) => b[1].localeCompare(a[1]));
  return [
    el("h2", { id: "patient-reports-title" }, texts.patientReports),
    items.length === 0
      ? el("p", { class: "empty" }, texts.noPatientReports)
      : el(
          "ul",
          { class: "patient-report-list" },
          ...items.map(([externalId, at]) =>
            el("li", { "data-external-id": externalId }, `${localTime(at)} · ${externalId} `, el("button", { type: "button", class: "history", "aria-label": texts.historyFor(externalId), onclick: () => historyDialog(ctx, "lab", externalId) }, texts.history)),
          ),
        ),
  ];
}

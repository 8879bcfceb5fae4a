import type { IndicatorAnswer } from "../../queries/quality/indicators.ts";
import type { MonthAnswer } from "../../queries/quality/months.ts";
import type { OffTargetAnswer } from "../../queries/quality/offTargetPatients.ts";
import { chartHref } from "./chartLink.ts";
import { confirmDialog } from "./confirmDialog.ts";
import { el, field, localTime } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import {
  bandText,
  chartItemOf,
  indicatorName,
  monthBefore,
  pointsChange,
  rateText,
  thisMonth,
} from "./qualityFormat.ts";
import { restatementSection } from "./qualityRestatement.ts";
import { monthWords } from "./qualityTexts.ts";
import { may } from "./session.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import type { PatientListEntry } from "./types.ts";

/** The month and ward the page shows, as its address keeps them (`#quality?month=2026-11&ward=A`). */
interface Choice {
  month: string;
  /** null: the whole tenant (a caller who sees every ward). */
  ward: string | null;
}

type Figures = MonthAnswer["indicators"][number];

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;
/** The months the choice offers, this one and those before it; an older one is reached by the address. */
const MONTHS_OFFERED = 37;

/** The choice the address names, else last month and the caller's first ward (or all, for one who sees every ward). */
function choiceInAddress(ctx: PageContext): Choice {
  const query = new URLSearchParams(location.hash.split("?")[1] ?? "");
  const month = query.get("month") ?? "";
  const wards = ctx.session.caller.wards;
  const ward = query.get("ward");
  return {
    month: MONTH_PATTERN.test(month) && month <= thisMonth() ? month : monthBefore(thisMonth(), 1),
    ward: ward && (wards === null || wards.includes(ward)) ? ward : (wards?.[0] ?? null),
  };
}

const addressOf = (choice: Choice) =>
  `#quality?${new URLSearchParams({ month: choice.month, ...(choice.ward === null ? {} : { ward: choice.ward }) })}`;

/**
 * The month's quality figures (contract G.2, issue #55) for a unit director and the clinicians:
 * each indicator's rate against last month and the same month a year before, with its band and
 * source; who is not at target with their last value (each opening the chart at the item); for an
 * administrator, the close; for a closed month, what changed since, and why.
 */
export function qualityPage(ctx: PageContext): HTMLElement {
  const { texts, lang } = ctx;
  let choice = choiceInAddress(ctx);
  const indicators = ctx.api.get<IndicatorAnswer[]>("/api/quality/indicators");
  const box = el("div", { class: "page-body quality-body" });
  const load = loader(box, texts, () => monthView(ctx, choice, indicators, () => void load()));
  const form = choiceForm(ctx, choice, (chosen) => {
    choice = chosen;
    history.replaceState(null, "", addressOf(choice));
    void load();
  });
  const help = el(
    "p",
    { class: "quality-help" },
    el("a", { href: `/help/quality-figures${lang === "en" ? "?lang=en" : ""}` }, texts.qualityHelp),
  );
  void load();
  return pageFrame("quality", texts.qualityTitle, texts.qualityIntro, help, form, box);
}

/** The month (not after this one) and the ward: the caller's wards, or all and each for one who sees every ward. */
function choiceForm(ctx: PageContext, initial: Choice, show: (choice: Choice) => void): HTMLElement {
  const { texts } = ctx;
  // A list of months in the page's words, not <input type=month>: that one speaks the browser's language, and some browsers show a bare text field.
  const offered = Array.from({ length: MONTHS_OFFERED }, (_, back) => monthBefore(thisMonth(), back));
  if (!offered.includes(initial.month)) offered.push(initial.month);
  const month = el("select", {}, ...offered.map((value) => el("option", { value }, monthWords(value, ctx.lang))));
  month.value = initial.month;
  const ward = el("select", {});
  const own = ctx.session.caller.wards;
  const fill = (wards: readonly string[]) => {
    ward.replaceChildren(
      ...(own === null ? [el("option", { value: "" }, texts.qualityAllWards)] : []),
      ...wards.map((name) => el("option", { value: name }, name)),
    );
    ward.value = initial.ward ?? "";
  };
  fill(own ?? (initial.ward ? [initial.ward] : []));
  if (own === null)
    void ctx.api
      .get<string[]>("/api/quality/wards")
      .then((wards) => fill([...new Set([...wards, ...(initial.ward ? [initial.ward] : [])])].sort()))
      .catch(() => {});
  const form = el(
    "form",
    { class: "access-filters quality-choice", novalidate: true, "aria-label": texts.qualityChoose },
    el(
      "div",
      { class: "filter-fields" },
      field("quality-month", texts.qualityMonth, month, texts.qualityMonthHint),
      field("quality-ward", texts.qualityWard, ward),
    ),
    el("div", { class: "form-actions" }, el("button", { type: "submit", class: "primary" }, texts.qualityShow)),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    show({ month: month.value, ward: ward.value || null });
  });
  return form;
}

/** The month, last month and the same month a year before, then what the page shows of them. */
async function monthView(
  ctx: PageContext,
  choice: Choice,
  indicatorsLoaded: Promise<IndicatorAnswer[]>,
  reload: () => void,
): Promise<Node> {
  const query = choice.ward === null ? "" : `?${new URLSearchParams({ ward: choice.ward })}`;
  const monthOf = (month: string) => ctx.api.get<MonthAnswer>(`/api/quality/months/${month}${query}`);
  const [indicators, answer, lastMonth, yearBefore] = await Promise.all([
    indicatorsLoaded,
    monthOf(choice.month),
    monthOf(monthBefore(choice.month, 1)),
    monthOf(monthBefore(choice.month, 12)),
  ]);
  const names = patientNames(ctx);
  const view = el(
    "div",
    { class: "quality-month", "data-month": choice.month, "data-state": answer.state },
    monthState(ctx, answer, reload),
    figuresTable(ctx, indicators, answer, lastMonth, yearBefore),
    notAtTargetSection(ctx, indicators, answer),
  );
  if (answer.state === "closed")
    view.append(await restatementSection(ctx, indicators, choice.month, choice.ward, names));
  return view;
}

/** Open or closed (when, by whom), and for an administrator the close of an ended open month. */
function monthState(ctx: PageContext, answer: MonthAnswer, reload: () => void): HTMLElement {
  const { texts } = ctx;
  const state = el(
    "div",
    { class: "quality-state" },
    el("h2", {}, texts.qualityOf(answer.month, answer.ward)),
    el(
      "p",
      { class: `state-line ${answer.state}` },
      answer.state === "closed"
        ? texts.qualityClosedBy(localTime(answer.closedAt ?? ""), answer.closedBy ?? "")
        : texts.qualityOpen,
    ),
  );
  if (answer.state === "open" && may(ctx.session, "admin")) {
    if (answer.month >= thisMonth()) state.append(el("p", { class: "muted" }, texts.qualityNotEnded));
    else
      state.append(
        el(
          "button",
          { type: "button", class: "close-month", onclick: () => closeDialog(ctx, answer, reload) },
          texts.qualityCloseButton,
        ),
      );
  }
  return state;
}

/** Asks before a month is closed: it cannot be undone. A refusal (409) is said in the dialog, in the page's words. */
function closeDialog(ctx: PageContext, answer: MonthAnswer, reload: () => void): void {
  const { texts } = ctx;
  confirmDialog(ctx, {
    title: texts.qualityCloseTitle(answer.month, answer.ward),
    intro: texts.qualityCloseIntro,
    button: texts.qualityCloseButton,
    busy: texts.qualityClosing,
    formClass: "close-month-form",
    act: async (modal) => {
      await ctx.api.post(
        `/api/quality/months/${answer.month}/close`,
        answer.ward === null ? {} : { ward: answer.ward },
      );
      modal.close();
      ctx.announce(texts.qualityClosed(answer.month, answer.ward));
      reload();
    },
  });
}

/** Each indicator: this month's rate with its change on last month and a year before, the two others, the band and its source. */
function figuresTable(
  ctx: PageContext,
  indicators: readonly IndicatorAnswer[],
  answer: MonthAnswer,
  lastMonth: MonthAnswer,
  yearBefore: MonthAnswer,
): HTMLElement {
  const { texts, lang } = ctx;
  const of = (month: MonthAnswer, code: string) => month.indicators.find((figures) => figures.code === code);
  const rows = answer.indicators.map((figures) => {
    const indicator = indicators.find((entry) => entry.code === figures.code);
    const before = of(lastMonth, figures.code);
    const yearAgo = of(yearBefore, figures.code);
    const changes = [
      ["lastMonth", pointsChange(figures, before)],
      ["yearBefore", pointsChange(figures, yearAgo)],
    ] as const;
    const counted = (cls: string, counts: Figures | undefined, ...more: Node[]) =>
      el(
        "td",
        {
          class: `rate ${cls}`,
          "data-numerator": counts?.numerator ?? null,
          "data-denominator": counts?.denominator ?? null,
        },
        el("span", { class: "rate-value" }, rateText(texts, lang, counts)),
        ...more,
      );
    return el(
      "tr",
      { "data-code": figures.code },
      el("th", { scope: "row" }, indicator ? indicatorName(indicator, lang) : figures.code),
      counted(
        "this-month",
        figures,
        ...changes.flatMap(([against, points]) =>
          points === null
            ? []
            : [el("span", { class: "change", "data-against": against }, texts.changeOn(against, points))],
        ),
      ),
      counted("last-month", before),
      counted("year-before", yearAgo),
      el(
        "td",
        { class: "band" },
        indicator ? bandText(texts, indicator) : "",
        indicator
          ? el(
              "details",
              { class: "source" },
              el("summary", {}, texts.source),
              el("p", { lang: "en" }, indicator.source),
            )
          : null,
      ),
    );
  });
  const table = el(
    "table",
    { class: "data quality-figures" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ...[texts.colIndicator, texts.colThisMonth, texts.colLastMonth, texts.colYearBefore, texts.colBand].map(
          (name) => el("th", { scope: "col" }, name),
        ),
      ),
    ),
    el("tbody", {}, ...rows),
  );
  return cardTable(table);
}

/** The patients' names, each asked for once (the month's answer names patients by reference only). */
function patientNames(ctx: PageContext): (patientRef: string) => Promise<string | null> {
  const known = new Map<string, Promise<string | null>>();
  return (patientRef) => {
    let name = known.get(patientRef);
    if (!name) {
      name = ctx.api
        .get<PatientListEntry>(`/api/patients/${segment(patientRef)}`)
        .then((patient) => patient.name)
        .catch(() => null);
      known.set(patientRef, name);
    }
    return name;
  };
}

/**
 * An indicator each (those with patients off target): a target's patients measured outside the
 * band, a tested indicator's patients not measured. The list is read when opened, in one call
 * (their names and last values).
 */
function notAtTargetSection(
  ctx: PageContext,
  indicators: readonly IndicatorAnswer[],
  answer: MonthAnswer,
): HTMLElement {
  const { texts, lang } = ctx;
  const choice: Choice = { month: answer.month, ward: answer.ward };
  const lists = answer.indicators.flatMap((figures) => {
    const indicator = indicators.find((entry) => entry.code === figures.code);
    if (!indicator || indicator.kind === "timeliness") return [];
    const refs = indicator.kind === "target" ? figures.patients.notMet : figures.patients.untested;
    if (refs.length === 0) return [];
    const name = indicatorName(indicator, lang);
    const body = el("div", { class: "page-body off-target-body" });
    const load = loader(body, texts, () => offTargetTable(ctx, indicator, choice));
    const details = el(
      "details",
      { class: "off-target", "data-code": indicator.code },
      el(
        "summary",
        {},
        indicator.kind === "target" ? texts.notAtTargetOf(name, refs.length) : texts.untestedOf(name, refs.length),
      ),
      body,
    );
    details.addEventListener("toggle", () => {
      if (details.open && !body.dataset.state) void load();
    });
    return [details];
  });
  return el(
    "section",
    { class: "quality-off-target", "aria-labelledby": "quality-off-target-title" },
    el("h2", { id: "quality-off-target-title" }, texts.notAtTarget),
    el("p", { class: "muted" }, texts.notAtTargetIntro, answer.state === "closed" ? ` ${texts.valuesNow}` : ""),
    ...(lists.length ? lists : [el("p", { class: "empty" }, texts.everyoneAtTarget)]),
  );
}

/** The patients of one indicator's list: who (opening the chart at the item and report), their last value, when it was collected. */
async function offTargetTable(ctx: PageContext, indicator: IndicatorAnswer, choice: Choice): Promise<Node> {
  const { texts } = ctx;
  const item = chartItemOf(indicator);
  const query = new URLSearchParams({ code: indicator.code, ...(choice.ward === null ? {} : { ward: choice.ward }) });
  const answer = await ctx.api.get<OffTargetAnswer>(`/api/quality/months/${choice.month}/patients?${query}`);
  const rows = answer.patients.map((patient) => {
    const who = patient.name ? `${patient.name} · ${patient.patientRef}` : patient.patientRef;
    const focus = item ? { code: patient.item ?? item, externalId: patient.externalIds[0] ?? null } : undefined;
    // A closed month's list is as frozen; the value is the one known now, which may have moved the patient since.
    const movedSince = patient.now === "met" ? ` · ${texts.nowAtTarget}` : "";
    const value =
      patient.value !== null
        ? `${patient.value} ${patient.unit ?? ""}${patient.item !== indicator.item ? ` (${patient.item})` : ""}`.trim()
        : texts.notMeasured(indicator.windowMonths);
    return el(
      "tr",
      { "data-patient-ref": patient.patientRef },
      el(
        "th",
        { scope: "row" },
        el(
          "a",
          { class: "patient-link", href: chartHref(patient.patientRef, focus), "aria-label": texts.openChart(who) },
          who,
        ),
      ),
      el("td", { class: "last-value" }, value, movedSince),
      el("td", { class: "collected" }, patient.at ? localTime(patient.at) : ""),
    );
  });
  const table = el(
    "table",
    { class: "data off-target-patients" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ...[texts.qualityColPatient, texts.colLastValue, texts.colCollected].map((name) =>
          el("th", { scope: "col" }, name),
        ),
      ),
    ),
    el("tbody", {}, ...rows),
  );
  return cardTable(table);
}

import type { IndicatorAnswer } from "../../queries/quality/indicators.ts";
import type { Because, RestatementAnswer } from "../../queries/quality/restatement.ts";
import { chartHref } from "./chartLink.ts";
import { el, localTime } from "./dom.ts";
import type { PageContext } from "./page.ts";
import { chartItemOf, indicatorName, mapLimited, percent } from "./qualityFormat.ts";
import { segment } from "./staffApi.ts";
import type { ReportHistory } from "./types.ts";

type Change = RestatementAnswer["indicators"][number]["changes"][number];
type Counted = RestatementAnswer["indicators"][number]["closed"];

/**
 * A closed month's restatement (contract G.2): for each indicator whose figures or patients moved
 * since the close, the figures as closed and now, and each patient whose place changed with what
 * moved them, in words: a late result, a corrected report, a claim, an item mapping, a dictionary
 * release, a move between wards. The service names a report's arrival by its event alone; whether
 * it was the report's first version (a late result) or a later one (a correction) is read from the
 * report's history (contract D.1).
 */
export async function restatementSection(
  ctx: PageContext,
  indicators: readonly IndicatorAnswer[],
  month: string,
  ward: string | null,
  names: (patientRef: string) => Promise<string | null>,
): Promise<HTMLElement> {
  const { texts, lang } = ctx;
  const query = ward === null ? "" : `?${new URLSearchParams({ ward })}`;
  const answer = await ctx.api.get<RestatementAnswer>(`/api/quality/months/${month}/restatement${query}`);
  const moved = answer.indicators.filter(
    (row) =>
      row.changes.length > 0 ||
      row.closed.numerator !== row.now.numerator ||
      row.closed.denominator !== row.now.denominator,
  );
  const section = el(
    "section",
    { class: "quality-restatement", "aria-labelledby": "quality-restatement-title" },
    el("h2", { id: "quality-restatement-title" }, texts.restatement),
    el("p", { class: "muted" }, texts.restatementIntro),
  );
  if (moved.length === 0) {
    section.append(el("p", { class: "empty" }, texts.restatementNone));
    return section;
  }
  const words = reasonWords(ctx);
  const cards = await mapLimited(moved, 2, async (row) => {
    const indicator = indicators.find((entry) => entry.code === row.code);
    const item = indicator ? chartItemOf(indicator) : null;
    const changes = await mapLimited(row.changes, 4, async (change) => {
      const [name, reasons] = await Promise.all([names(change.patientRef), mapLimited(change.because, 2, words)]);
      return changeItem(ctx, change, name, reasons, item);
    });
    return el(
      "div",
      { class: "card restated", "data-code": row.code },
      el("h3", {}, indicator ? indicatorName(indicator, lang) : row.code),
      el("p", { class: "closed-and-now" }, texts.closedAndNow(countedText(ctx, row.closed), countedText(ctx, row.now))),
      changes.length ? el("ul", { class: "restated-patients" }, ...changes) : null,
    );
  });
  section.append(...cards);
  return section;
}

function countedText(ctx: PageContext, counted: Counted): string {
  return counted.rate === null
    ? `${counted.numerator}/${counted.denominator}`
    : ctx.texts.rateOf(percent(counted.rate, ctx.lang), counted.numerator, counted.denominator);
}

/** A patient whose place changed: who (opening their chart at the item and the report that moved them), from where to where, and why. */
function changeItem(
  ctx: PageContext,
  change: Change,
  name: string | null,
  reasons: string[],
  item: string | null,
): HTMLElement {
  const { texts } = ctx;
  const who = name ? `${name} · ${change.patientRef}` : change.patientRef;
  const report = change.because.find((because) => because.externalId)?.externalId ?? null;
  const place = (value: Change["closed"]) => texts.places[value ?? "none"];
  return el(
    "li",
    { "data-patient-ref": change.patientRef },
    el(
      "a",
      {
        class: "patient-link",
        href: chartHref(change.patientRef, item ? { code: item, externalId: report } : undefined),
        "aria-label": texts.openChart(who),
      },
      who,
    ),
    " ",
    el("span", { class: "place-change" }, texts.placeChange(place(change.closed), place(change.now))),
    reasons.length
      ? el(
          "ul",
          { class: "reasons", "aria-label": texts.because },
          ...reasons.map((reason, i) => el("li", { "data-event": change.because[i]!.event }, reason)),
        )
      : null,
  );
}

/** Words for the events that moved a patient; a report's arrival is told apart by its history (cached per report). */
function reasonWords(ctx: PageContext): (because: Because) => Promise<string> {
  const reasons = ctx.texts.restatedBecause;
  const histories = new Map<string, Promise<ReportHistory | null>>();
  const historyOf = (externalId: string) => {
    let pending = histories.get(externalId);
    if (!pending) {
      pending = ctx.api.get<ReportHistory>(`/api/history/lab/${segment(externalId)}`).catch(() => null);
      histories.set(externalId, pending);
    }
    return pending;
  };
  return async (because) => {
    const at = localTime(because.at);
    const report = because.externalId ?? "";
    switch (because.event) {
      case "LabReportReceived":
        return (await correctedBy(because, historyOf))
          ? reasons.correctedReport(report, at)
          : reasons.lateResult(report, at);
      case "LabReportClaimed":
        return reasons.claim(report, at);
      case "ItemMappingAdded":
        return reasons.mappingAdded(at);
      case "ItemMappingRemoved":
        return reasons.mappingRemoved(at);
      case "DictionaryReleased":
        return reasons.release(at);
      case "PatientRegistered":
      case "PatientUpdated":
        return reasons.wardMove(at);
      default:
        return reasons.other(at);
    }
  };
}

/**
 * Whether a report's arrival was a correction: a version after its first. The history's entry
 * recorded at the same second says so; failing that, any earlier arrival of the report does.
 */
async function correctedBy(
  because: Because,
  historyOf: (externalId: string) => Promise<ReportHistory | null>,
): Promise<boolean> {
  if (!because.externalId) return false;
  const history = await historyOf(because.externalId);
  if (!history) return false;
  const at = because.at.replace("T", " ");
  const arrivals = history.entries.filter((entry) => entry.event === "RECEIVED");
  const same = arrivals.find((entry) => entry.at.replace("T", " ") === at);
  if (same) return same.status === "UPDATED" || (same.version ?? 1) > 1;
  return arrivals.some((entry) => entry.at.replace("T", " ") < at);
}

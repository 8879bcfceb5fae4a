import { historyActorName } from "./actorTexts.ts";
import { openModal } from "./dialog.ts";
import { el, localTime } from "./dom.ts";
import { versionSheet, type ReportKind } from "./labReportView.ts";
import { loader, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import type { StaffTexts } from "./texts.ts";
import type { HistoryEntry, ReportDiff, ReportHistory, ReportVersion } from "./types.ts";
import { valueInUnit } from "./valueText.ts";

/**
 * A report's history (`GET /api/history/…`, contract D.1) in a dialog: what happened to it, by
 * whom and when; each version as received (printed as the laboratory prints it, the record
 * beneath), and what changed from the version before.
 */
export function historyDialog(ctx: PageContext, kind: ReportKind, externalId: string): void {
  const { texts } = ctx;
  const base = `/api/history/${segment(kind)}/${segment(externalId)}`;
  openModal(texts.historyTitle(externalId), texts.close, () => {
    const timeline = el("div", { class: "history-timeline" });
    const detail = el("section", { class: "history-detail", "aria-live": "polite" });
    const show = (title: string, load: () => Promise<Node>) => {
      detail.replaceChildren(el("h3", {}, title), el("div", { class: "history-detail-body" }));
      void loader(detail.lastElementChild as HTMLElement, texts, load)();
    };
    let current = 0;
    const actions = (entry: HistoryEntry) => {
      if (entry.event !== "RECEIVED" || entry.version === undefined) return null;
      const n = entry.version;
      return el(
        "span",
        { class: "actions" },
        el(
          "button",
          {
            type: "button",
            class: "view-version",
            onclick: () =>
              show(texts.versionTitle(n), async () =>
                versionSheet(texts, kind, await ctx.api.get<ReportVersion>(`${base}/versions/${n}`), current, {
                  level: 4,
                  record: true,
                  printable: true,
                }),
              ),
          },
          texts.viewVersion(n),
        ),
        n > 1
          ? el(
              "button",
              {
                type: "button",
                class: "view-changes",
                onclick: () =>
                  show(texts.changesTitle(n - 1, n), async () =>
                    changesView(ctx, await ctx.api.get<ReportDiff>(`${base}/diff?from=${n - 1}&to=${n}`)),
                  ),
              },
              texts.changesOf(n),
            )
          : null,
      );
    };
    void loader(timeline, texts, async () => {
      const history = await ctx.api.get<ReportHistory>(base);
      current = history.current;
      return timelineTable(ctx, history, actions);
    })();
    return [timeline, detail];
  });
}

function timelineTable(
  ctx: PageContext,
  history: ReportHistory,
  actions: (entry: HistoryEntry) => Node | null,
): HTMLElement {
  const { texts } = ctx;
  const details = (entry: HistoryEntry) =>
    [
      entry.version !== undefined ? texts.versionNo(entry.version) : null,
      entry.status ? texts.statuses[entry.status] : null,
      entry.patientRef ? texts.patientOf(entry.patientRef) : null,
      entry.code ?? null,
      entry.reason ? texts.reasons(entry.reason) : null,
      entry.note ?? null,
    ]
      .filter(Boolean)
      .join(" · ");
  const detailCell = (entry: HistoryEntry) =>
    entry.event === "REMAPPED" ? remapLines(texts, entry) : [details(entry)];
  const rows = history.entries.map((entry) =>
    el(
      "tr",
      { "data-event": entry.event, "data-seq": entry.seq },
      el("td", {}, localTime(entry.at)),
      el(
        "th",
        { scope: "row" },
        (entry.handledAs
          ? texts.handledDeltaEvents[entry.handledAs][entry.event as "ALERT_RAISED" | "ALERT_CLOSED"]
          : undefined) ??
          (entry.kind === "DELTA" ? texts.deltaEvents[entry.event as keyof typeof texts.deltaEvents] : undefined) ??
          texts.events[entry.event] ??
          entry.event,
      ),
      el("td", { "data-by": entry.by }, historyActorName(entry.by, ctx.lang)),
      el("td", {}, ...detailCell(entry), actions(entry)),
    ),
  );
  const head = el(
    "tr",
    {},
    ...[texts.colWhen, texts.colEvent, texts.colBy, texts.colDetails].map((c) => el("th", { scope: "col" }, c)),
  );
  // On a phone each entry is a card (web/staff/tables.ts), not a column squeezed to a character.
  return cardTable(el("table", { class: "data history" }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

/**
 * What a REMAPPED entry is about (issue #54: it read a bare `REMAPPED`): each item of the report it
 * re-mapped, as sent, and what it now counts as, with the conversion applied, `L-UREA · 本院尿素 88
 * mg/dL → Urea (pre) 31.4 mmol/L (mg/dL × 0.357015 → mmol/L)`; or that undoing left it unmapped.
 */
function remapLines(texts: StaffTexts, entry: HistoryEntry): HTMLElement[] {
  const standard = entry.standardItem ?? null;
  return (entry.items ?? []).map((item) => {
    const name = [item.itemCode, item.itemName].filter(Boolean).join(" · ");
    const sent = [name, item.value === null ? null : `${item.value}${item.unit ? ` ${item.unit}` : ""}`]
      .filter(Boolean)
      .join(" ");
    const text = !standard
      ? texts.remapUnmapped(sent)
      : texts.remapItem(
          sent,
          texts.itemTitle(standard),
          item.stdValue === null ? null : valueInUnit(standard, item.stdValue),
          item.conversion ? texts.conversion({ ...item.conversion, unitStatus: "converted" }, standard.unit) : null,
        );
    return el("span", { class: "remap-line", "data-item-code": item.itemCode ?? "" }, text);
  });
}

function changesView(ctx: PageContext, diff: ReportDiff): HTMLElement {
  const { texts } = ctx;
  if (diff.changes.length === 0) return el("p", { class: "empty" }, texts.noChanges);
  const shown = (value: unknown) =>
    value === null || value === undefined
      ? texts.absent
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
  const head = el(
    "tr",
    {},
    ...[texts.colField, texts.colBefore, texts.colAfter].map((c) => el("th", { scope: "col" }, c)),
  );
  const rows = diff.changes.map((change) =>
    el(
      "tr",
      { "data-path": change.path },
      el("th", { scope: "row" }, el("code", {}, change.path)),
      el("td", { class: "before" }, shown(change.before)),
      el("td", { class: "after" }, shown(change.after)),
    ),
  );
  return el("table", { class: "data changes" }, el("thead", {}, head), el("tbody", {}, ...rows));
}

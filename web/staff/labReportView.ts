import type { ExamReport, LabReport } from "../../commands/ingestion/reportSchemas.ts";
import { maskIdCard } from "../../commands/patients/nationalId.ts";
import { openModal } from "./dialog.ts";
import { el, localTime, type Child } from "./dom.ts";
import { loader, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import type { StaffTexts } from "./texts.ts";
import type { ReportHistory, ReportVersion } from "./types.ts";

/*
 * A report as a laboratory prints it (issue #34, item 7): who it is about, when the sample was
 * taken and the report signed, and each item with its value, unit, reference range and flag. The
 * history, the unmatched queue's claim dialog and the patient chart show reports through this one
 * module. What it shows is the version as accepted (contract D.1), never re-mapped or converted:
 * the values and units the laboratory sent. The id card is masked as every answer masks it. Under
 * the laboratory's own item name, the standard item it was mapped to, by its label and name in the
 * page's language (issue #34, item 5): a Kt/V sent as "尿素清除指数" reads spKt/V too.
 */

export type ReportKind = "lab" | "exam";
type SentItem = Partial<LabReport["items"][number]>;
/** A stored version's report: a lab or an exam report as accepted (either one's fields may be there). */
type SentReport = Partial<Omit<LabReport, "items">> & Partial<Omit<ExamReport, "items">> & { items?: SentItem[] };
/** The standard item each sent item was mapped to, in the same order (null: not mapped). */
type StandardItems = ReportVersion["standardItems"];

const ARROWS: Record<string, string> = { H: "↑", HH: "↑↑", L: "↓", LL: "↓↓", A: "*" };
const range = (low: number | undefined, high: number | undefined) =>
  low !== undefined && high !== undefined
    ? `${low}–${high}`
    : low !== undefined
      ? `≥ ${low}`
      : high !== undefined
        ? `≤ ${high}`
        : "";
const dateTime = (value: string | undefined) => (value ? localTime(value) : null);
/** Whether `title` says more than the texts printed already: a letter or digit left once they are taken out (in any case). */
const addsTo = (title: string, printed: Array<string | undefined>) =>
  /[\p{L}\p{N}]/u.test(
    printed.reduce<string>(
      (rest, text) => (text ? rest.split(text.toLowerCase()).join("") : rest),
      title.toLowerCase(),
    ),
  );

/** `<dl>` of the facts given (term, value); those without a value are left out. */
function facts(className: string, pairs: Array<[string, string | null | undefined]>): HTMLElement | null {
  const shown = pairs.filter((pair): pair is [string, string] => Boolean(pair[1]));
  if (shown.length === 0) return null;
  return el(
    "dl",
    { class: className },
    ...shown.flatMap(([term, value]) => [el("div", {}, el("dt", {}, term), el("dd", {}, value))]),
  );
}

/** The flag as printed (an arrow), with its meaning for a screen reader; nothing for N, as laboratories print it. */
function flagCell(texts: StaffTexts, flag: string | undefined): Child[] {
  if (!flag || flag === "N") return [];
  return [
    el("span", { class: "arrow", "aria-hidden": "true" }, `${ARROWS[flag] ?? ""} `),
    flag,
    el("span", { class: "visually-hidden" }, ` ${texts.flagNames[flag] ?? ""}`),
  ];
}

function itemTable(
  texts: StaffTexts,
  kind: ReportKind,
  items: readonly SentItem[],
  standardItems: StandardItems,
): HTMLElement {
  const cols = texts.reportCols;
  const lab = kind === "lab";
  const head = el(
    "tr",
    {},
    ...(lab ? [cols.item, cols.result, cols.flag, cols.unit, cols.range] : [cols.item, cols.result, cols.unit]).map(
      (c) => el("th", { scope: "col" }, c),
    ),
  );
  const rows = items.map((item, index) => {
    const flag = lab ? item.abnormalFlag : undefined;
    const sentName = item.itemName ?? item.itemCode ?? "";
    const standard = standardItems[index];
    // 钾 sent as K on a Chinese page is 钾 (K) already; on an English one K · Potassium says more.
    const standardTitle = standard ? texts.itemTitle(standard) : null;
    return el(
      "tr",
      {
        "data-item": item.itemCode ?? item.itemName ?? String(index),
        "data-flag": flag ?? null,
        class: flag && flag !== "N" ? `flagged flag-${flag.toLowerCase()}` : null,
      },
      el(
        "th",
        { scope: "row", "data-std-code": standard?.code ?? null },
        sentName,
        item.itemName && item.itemCode ? el("span", { class: "sub muted" }, item.itemCode) : null,
        standardTitle && addsTo(standardTitle, [item.itemName, item.itemCode])
          ? el("span", { class: "sub std-item" }, standardTitle)
          : null,
      ),
      el("td", { class: "value" }, item.value === undefined ? "" : String(item.value)),
      lab ? el("td", { class: "flag" }, ...flagCell(texts, flag)) : null,
      el("td", { class: "unit" }, item.unit ?? ""),
      lab ? el("td", { class: "range" }, range(item.refLow, item.refHigh)) : null,
    );
  });
  return el(
    "div",
    { class: "table-wrap" },
    el(
      "table",
      { class: "data report-items" },
      el("caption", { class: "visually-hidden" }, texts.reportItems),
      el("thead", {}, head),
      el("tbody", {}, ...rows),
    ),
  );
}

/**
 * The printed report. `level` is its heading's level in the page around it; `meta` a line about
 * the stored version (which one, when received, from whom).
 */
export function reportSheet(
  texts: StaffTexts,
  kind: ReportKind,
  report: SentReport,
  options: { level?: 3 | 4; meta?: string; standardItems?: StandardItems } = {},
): HTMLElement {
  const lab = kind === "lab";
  const f = texts.reportFacts;
  const title = lab
    ? [texts.labReportHeading, report.panelName].filter(Boolean).join(" · ")
    : [texts.examReportHeading, report.examName ?? report.examType].filter(Boolean).join(" · ");
  const status = report.status
    ? el(
        "span",
        { class: `badge report-status status-${report.status.toLowerCase()}` },
        texts.reportStatuses[report.status] ?? report.status,
      )
    : null;
  const items = report.items ?? [];
  const level = options.level ?? 3;
  const text = (heading: string, body: string | undefined) =>
    body ? el("section", { class: "report-text" }, el(`h${level + 1}` as "h4", {}, heading), el("p", {}, body)) : null;
  return el(
    "article",
    { class: `report-sheet report-sheet-${kind}`, "data-external-id": report.externalId ?? null },
    el(
      "header",
      { class: "report-sheet-head" },
      lab && report.labName ? el("p", { class: "report-issuer" }, report.labName) : null,
      el(`h${level}` as "h3", {}, title, status),
      options.meta ? el("p", { class: "report-meta muted" }, options.meta) : null,
    ),
    facts("report-facts", [
      [f.patientName, report.patient?.name],
      [f.idCard, report.patient?.idCard ? maskIdCard(report.patient.idCard) : null],
      [f.hisPatientId, report.patient?.hisPatientId],
      [f.reportNo, report.reportNo],
      [f.externalId, report.externalId],
      [f.specimen, report.specimen ? (texts.specimens[report.specimen] ?? report.specimen) : null],
      [lab ? f.collectedAt : f.examinedAt, dateTime(lab ? report.collectedAt : report.examinedAt)],
      [f.reportedAt, dateTime(report.reportedAt)],
      [f.department, lab ? null : report.department],
    ]),
    text(texts.reportFindings, report.findings),
    text(texts.reportConclusion, report.conclusion),
    items.length > 0
      ? itemTable(texts, kind, items, options.standardItems ?? [])
      : lab
        ? el("p", { class: "empty" }, texts.noReportItems)
        : null,
    facts("report-signoff", [
      [f.reporter, report.reporter],
      [f.reviewer, report.reviewer],
    ]),
  );
}

/** The report's newest version and how many there are. */
async function currentVersion(
  ctx: PageContext,
  kind: ReportKind,
  externalId: string,
): Promise<{ version: ReportVersion; current: number }> {
  const base = `/api/history/${segment(kind)}/${segment(externalId)}`;
  const { current } = await ctx.api.get<ReportHistory>(base);
  return { version: await ctx.api.get<ReportVersion>(`${base}/versions/${current}`), current };
}

/**
 * A Print button above a report shown in a dialog (issue #54). The browser prints that report alone,
 * once: web/staff.css's print rules leave out the page behind the dialog and everything in the
 * dialog but the report (a fixed dialog was repeated on every page the page behind it filled).
 */
function printButton(texts: StaffTexts, externalId: string): HTMLElement {
  return el(
    "div",
    { class: "sheet-actions" },
    el(
      "button",
      { type: "button", class: "print-report", "aria-label": texts.printReportOf(externalId), onclick: () => print() },
      texts.printReport,
    ),
  );
}

/**
 * One stored version as printed; in the history (`record`), the record itself a click away, as
 * an audit compares it (it holds the id card as sent, which the printed report masks). `printable`:
 * with a Print button.
 */
export function versionSheet(
  texts: StaffTexts,
  kind: ReportKind,
  version: ReportVersion,
  current: number,
  { level, record = false, printable = false }: { level: 3 | 4; record?: boolean; printable?: boolean },
): HTMLElement {
  const externalId = String((version.report as SentReport).externalId ?? "");
  return el(
    "div",
    { class: "report-version", "data-version": version.version },
    printable ? printButton(texts, externalId) : null,
    reportSheet(texts, kind, version.report as SentReport, {
      level,
      meta: texts.reportVersionOf(version.version, current, localTime(version.receivedAt), version.by),
      standardItems: version.standardItems,
    }),
    record
      ? el(
          "details",
          { class: "report-record" },
          el("summary", {}, texts.recordAsReceived),
          el(
            "pre",
            { class: "report-json", tabindex: "0", role: "region", "aria-label": texts.recordAsReceived },
            JSON.stringify(version.report, null, 2),
          ),
        )
      : null,
  );
}

/** The report's current version in a dialog of its own (from a point or a row of the patient chart). */
export function reportDialog(ctx: PageContext, kind: ReportKind, externalId: string): void {
  const { texts } = ctx;
  openModal(texts.reportTitle(externalId), texts.close, () => {
    const body = el("div", { class: "report-dialog-body" });
    void loader(body, texts, async () => {
      const { version, current } = await currentVersion(ctx, kind, externalId);
      return versionSheet(texts, kind, version, current, { level: 3, printable: true });
    })();
    return [body];
  });
}

/** The report's current version, folded under "The report", for a dialog that acts on it (claiming). */
export function reportPreview(ctx: PageContext, kind: ReportKind, externalId: string): HTMLElement {
  const { texts } = ctx;
  const body = el("div", { class: "report-preview-body" });
  void loader(body, texts, async () => {
    const { version, current } = await currentVersion(ctx, kind, externalId);
    return versionSheet(texts, kind, version, current, { level: 3 });
  })();
  return el("details", { class: "report-preview" }, el("summary", {}, texts.reportAsSent), body);
}

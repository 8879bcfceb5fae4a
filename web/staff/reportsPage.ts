import { el, localTime } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { may } from "./session.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import type { Audit, ReportListEntry, VersionEntry } from "./types.ts";
import { findingText } from "./auditTexts.ts";

/** The embed page of a version, for this tenant and language (opened in a new tab). */
export function embedUrl(ctx: PageContext, reportId: string, version: string): string {
  const query = new URLSearchParams({ version, tenant: ctx.session.tenant, lang: ctx.lang });
  return `/embed/reports/${segment(reportId)}?${query}`;
}

/** The report list (`GET /api/reports`), each report with its versions (`…/versions`) and their audits. */
export function reportsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const box = el("div", { class: "page-body" });
  const load = loader(box, texts, async () => {
    // Titles a report gives per language come in the page's (issue #54).
    const reports = await ctx.api.all<ReportListEntry>(`/api/reports?lang=${ctx.lang}`);
    // Every report's versions at once: a tenant has tens of reports, not thousands.
    const versions = await Promise.all(
      reports.map((report) => ctx.api.all<VersionEntry>(`/api/reports/${segment(report.id)}/versions`)),
    );
    if (reports.length === 0) return el("p", { class: "empty" }, texts.noReports);
    return el("div", { class: "report-list" }, ...reports.map((report, i) => reportCard(ctx, report, versions[i]!)));
  });
  void load();
  // Writing reports is the authors' (contract C.3); the others see the reports and their versions only.
  const create = may(ctx.session, "author")
    ? el(
        "p",
        { class: "page-actions" },
        el("a", { href: "#new", class: "button-link primary", "data-action": "new-report" }, texts.newReport),
      )
    : null;
  return pageFrame("reports", texts.reports, texts.reportsIntro, ...(create ? [create] : []), box);
}

function reportCard(ctx: PageContext, report: ReportListEntry, versions: VersionEntry[]): HTMLElement {
  const { texts } = ctx;
  const titleId = `report-${report.id}`;
  const links = el(
    "p",
    { class: "report-links" },
    may(ctx.session, "author")
      ? el(
          "a",
          {
            href: `#edit/${segment(report.id)}`,
            class: "button-link",
            "data-action": "edit",
            "aria-label": texts.editReport(report.title),
          },
          texts.edit,
        )
      : null,
    report.publishedVersion
      ? el(
          "a",
          { href: embedUrl(ctx, report.id, report.publishedVersion), target: "_blank", rel: "noopener" },
          texts.openCurrent,
        )
      : null,
    report.hasDraft
      ? el("a", { href: embedUrl(ctx, report.id, "draft"), target: "_blank", rel: "noopener" }, texts.openDraft)
      : null,
  );
  return el(
    "section",
    { class: "card report-card", "aria-labelledby": titleId, "data-report-id": report.id },
    el(
      "div",
      { class: "card-head" },
      el("h2", { id: titleId }, report.title),
      el(
        "p",
        { class: "badges" },
        el(
          "span",
          { class: report.publishedVersion ? "badge published" : "badge" },
          report.publishedVersion ? texts.published(report.publishedVersion) : texts.neverPublished,
        ),
        report.hasDraft ? el("span", { class: "badge draft" }, texts.hasDraft) : null,
      ),
    ),
    el("p", { class: "muted" }, texts.reportMeta(report.id, report.datasource, localTime(report.updatedAt))),
    links,
    versions.length ? versionTable(ctx, report, versions) : el("p", { class: "empty" }, texts.noVersions),
  );
}

function versionTable(ctx: PageContext, report: ReportListEntry, versions: VersionEntry[]): HTMLElement {
  const { texts } = ctx;
  const columns = [
    texts.colVersion,
    texts.colTime,
    texts.colWho,
    texts.colNote,
    texts.colMode,
    texts.colAudit,
    texts.colActions,
  ];
  const body = el("tbody");
  for (const version of versions) {
    const row = el(
      "tr",
      { "data-version": version.no, class: version.current ? "current" : null },
      el(
        "th",
        { scope: "row" },
        version.no,
        version.current ? el("span", { class: "badge published" }, texts.current) : null,
      ),
      el("td", {}, localTime(version.time)),
      el("td", {}, version.who),
      el("td", { class: "note" }, version.note),
      el("td", {}, el("span", { class: `mode mode-${version.mode}` }, texts.modes[version.mode] ?? version.mode)),
      el(
        "td",
        { class: "audit" },
        el(
          "span",
          { class: `grade grade-${version.audit.grade}`, "aria-label": `${texts.colAudit} ${version.audit.grade}` },
          version.audit.grade,
        ),
        " ",
        el(
          "span",
          { class: "muted" },
          texts.auditSummary(
            version.audit.score,
            texts.severities[version.audit.highest] ?? version.audit.highest,
            version.audit.findings,
          ),
        ),
      ),
      el("td", { class: "actions" }),
    );
    const actions = row.lastElementChild!;
    actions.append(
      el(
        "a",
        {
          href: embedUrl(ctx, report.id, version.no),
          target: "_blank",
          rel: "noopener",
          class: "button-link",
          "aria-label": texts.openVersion(version.no),
        },
        texts.open,
      ),
    );
    if (version.audit.findings > 0) actions.append(findingsToggle(ctx, report, version, row, columns.length));
    body.append(row);
  }
  return cardTable(
    el(
      "table",
      { class: "data versions" },
      el("caption", { class: "visually-hidden" }, texts.versionsOf(report.title)),
      el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c)))),
      body,
    ),
  );
}

/** A button that shows the version's audit findings (`…/versions/{no}/audit`) in a row beneath it. */
function findingsToggle(
  ctx: PageContext,
  report: ReportListEntry,
  version: VersionEntry,
  row: HTMLTableRowElement,
  span: number,
): HTMLButtonElement {
  const { texts } = ctx;
  const panelId = `findings-${report.id}-${version.no}`;
  const button = el(
    "button",
    { type: "button", class: "findings-toggle", "aria-expanded": "false", "aria-controls": panelId },
    texts.findings,
  );
  let detail: HTMLTableRowElement | null = null;
  button.addEventListener("click", () => {
    if (detail) {
      detail.remove();
      detail = null;
      button.setAttribute("aria-expanded", "false");
      return;
    }
    const box = el("div", {
      class: "findings",
      id: panelId,
      "aria-label": texts.findingsOf(version.no),
      role: "region",
    });
    detail = el("tr", { class: "findings-row" }, el("td", { colspan: span }, box));
    row.after(detail);
    button.setAttribute("aria-expanded", "true");
    void loader(box, texts, async () => {
      const audit = await ctx.api.get<Audit>(
        `/api/reports/${segment(report.id)}/versions/${segment(version.no)}/audit`,
      );
      if (audit.findings.length === 0) return el("p", {}, texts.noFindings);
      return el(
        "ul",
        { class: "finding-list" },
        ...audit.findings.map((finding) =>
          el(
            "li",
            { "data-rule": finding.rule },
            el(
              "span",
              { class: `severity severity-${finding.severity}` },
              texts.severities[finding.severity] ?? finding.severity,
            ),
            " ",
            el("code", {}, finding.where),
            " ",
            findingText(finding, ctx.lang),
          ),
        ),
      );
    })();
  });
  return button;
}

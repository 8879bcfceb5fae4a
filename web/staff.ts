/**
 * The staff pages (`GET /staff`, src/staff/staffRoutes.ts): sign in with an author token, then
 * the reports with their versions and audits, the critical-result alerts (a live badge on every
 * page), the unmatched queue, the patients with their charts and the bulk jobs, all through the
 * `/api` endpoints. The server wrote the tenant and language into `<body data-…>`;
 * the pages are chosen by the fragment (`#reports`, `#alerts`, `#unmatched`, `#patients`,
 * `#chart/<patientRef>`, `#bulk-jobs`, the report editor at `#edit/<reportId>` and `#new`) so
 * the browser's back button and bookmarks work without a server route per page.
 */
import "./staff.css";
import { alertsPage } from "./staff/alertsPage.ts";
import { openAlertHub } from "./staff/alertStream.ts";
import { bulkJobsPage } from "./staff/bulkJobsPage.ts";
import { el } from "./staff/dom.ts";
import { lazyPage } from "./staff/lazyPages.ts";
import type { PageContext } from "./staff/page.ts";
import { patientsPage } from "./staff/patientsPage.ts";
import { reportsPage } from "./staff/reportsPage.ts";
import { clearSession, loadSession, saveSession, tokenHint, type Session } from "./staff/session.ts";
import { rejectionText, signInPage } from "./staff/signIn.ts";
import { createStaffApi } from "./staff/staffApi.ts";
import { staffTextsFor, type StaffTexts } from "./staff/texts.ts";
import { unmatchedPage } from "./staff/unmatchedPage.ts";
import type { Lang } from "./types.ts";

const PAGES = {
  reports: { title: (t: StaffTexts) => t.reports, build: reportsPage },
  alerts: { title: (t: StaffTexts) => t.alerts, build: alertsPage },
  unmatched: { title: (t: StaffTexts) => t.unmatched, build: unmatchedPage },
  patients: { title: (t: StaffTexts) => t.patients, build: patientsPage },
  "bulk-jobs": { title: (t: StaffTexts) => t.bulkJobs, build: bulkJobsPage },
} as const;
type PageName = keyof typeof PAGES;
/** Pages reached from another page, not from the navigation: `#chart/<patientRef>`, `#edit/<reportId>`, `#new`. */
const CHART_PREFIX = "chart/";
const EDIT_PREFIX = "edit/";
const NEW_REPORT = "new";

const body = document.body;
const lang: Lang = body.dataset.lang === "en" ? "en" : "zh";
const texts = staffTextsFor(lang);
const servedTenant = body.dataset.tenant ?? "default";
const tenantFixed = body.dataset.tenantFixed === "true";
const app = document.getElementById("app")!;

function fragment(): string {
  return location.hash.replace(/^#\/?/, "");
}

function pageName(): PageName {
  const name = fragment();
  if (name.startsWith(CHART_PREFIX)) return "patients";
  if (name.startsWith(EDIT_PREFIX) || name === NEW_REPORT) return "reports";
  return name in PAGES ? (name as PageName) : "reports";
}

/** The same page in the other language (the server renders the shell in it), tenant and page kept. */
function otherLanguageUrl(): string {
  const query = new URLSearchParams(location.search);
  query.set("lang", lang === "en" ? "zh" : "en");
  return `?${query}${location.hash}`;
}

function show(view: HTMLElement, title: string): void {
  app.replaceChildren(view);
  document.title = `${title} · ${texts.appTitle}`;
  // Focus follows the page change, so keyboard and screen-reader users land on its heading or first field.
  (view.querySelector<HTMLElement>("[autofocus]") ?? view.querySelector<HTMLElement>("h1"))?.focus();
}

function signIn(message: string | null = null): void {
  clearSession();
  const view = el(
    "div",
    { class: "shell" },
    el("header", { class: "top" }, el("p", { class: "brand" }, texts.appTitle), el("a", { class: "lang", href: otherLanguageUrl(), lang: lang === "en" ? "zh-CN" : "en" }, texts.otherLanguage)),
    signInPage({
      texts,
      tenant: tenantFixed ? servedTenant : (loadSession()?.tenant ?? servedTenant),
      tenantFixed,
      message,
      onSignedIn(session) {
        saveSession(session);
        signedIn(session);
      },
    }),
  );
  show(view, texts.signInTitle);
}

function signedIn(session: Session): void {
  const live = el("p", { class: "status", role: "status", "aria-live": "polite" });
  const announce = (text: string) => {
    live.textContent = text;
  };
  // A token the service stops accepting (revoked, another tenant's) ends the session on any call.
  const alerts = openAlertHub(session);
  const api = createStaffApi(session, texts, (error) => {
    alerts.close();
    signIn(rejectionText(texts, error) || texts.sessionEnded);
  });
  let leaving: Array<() => void> = [];
  let guards: Array<() => boolean> = [];
  const ctx: PageContext = {
    api,
    texts,
    session,
    lang,
    announce,
    alerts,
    onLeave: (cleanup) => void leaving.push(cleanup),
    guardLeave: (mayLeave) => void guards.push(mayLeave),
  };

  // The number of standing alerts beside "Critical results", on every page, kept by the stream.
  const badge = el("span", { class: "alert-badge", "data-open-alerts": "0", hidden: true });
  const refreshBadge = async () => {
    const { open } = await api.get<{ open: number }>("/api/alerts/count").catch(() => ({ open: Number(badge.dataset.openAlerts) }));
    badge.dataset.openAlerts = String(open);
    badge.textContent = String(open);
    badge.hidden = open === 0;
    badge.setAttribute("aria-label", texts.openAlertsBadge(open));
  };
  alerts.subscribe(() => void refreshBadge());
  alerts.onConnected((connected) => {
    if (connected) void refreshBadge();
  });

  const links = (Object.keys(PAGES) as PageName[]).map((name) => el("a", { href: `#${name}`, "data-page-link": name }, PAGES[name].title(texts), name === "alerts" ? badge : null));
  const nav = el("nav", { class: "tabs", "aria-label": texts.nav }, ...links);
  const signOut = el("button", { type: "button", class: "sign-out", onclick: () => (alerts.close(), signIn()) }, texts.signOut);
  const header = el(
    "header",
    { class: "top" },
    el("p", { class: "brand" }, texts.appTitle),
    nav,
    el("p", { class: "who muted", "data-tenant": session.tenant }, texts.signedInAs(session.tenant, tokenHint(session.token))),
    el("a", { class: "lang", href: otherLanguageUrl(), lang: lang === "en" ? "zh-CN" : "en" }, texts.otherLanguage),
    signOut,
  );
  const slot = el("div", { class: "page-slot" });
  // The fragment names the page, so the skip link moves focus itself instead of changing it.
  const skipToContent = (event: Event) => {
    event.preventDefault();
    slot.querySelector<HTMLElement>("h1")?.focus();
  };
  const shell = el("div", { class: "shell" }, el("a", { class: "skip", href: "#main", onclick: skipToContent }, texts.skipToContent), header, live, slot);

  const render = () => {
    const name = pageName();
    for (const link of links) {
      if (link.dataset.pageLink === name) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    for (const anchor of shell.querySelectorAll<HTMLAnchorElement>("a.lang")) anchor.href = otherLanguageUrl();
    announce("");
    leaving.forEach((cleanup) => cleanup());
    leaving = [];
    guards = [];
    const here = fragment();
    const chartOf = here.startsWith(CHART_PREFIX) ? decodeURIComponent(here.slice(CHART_PREFIX.length)) : null;
    const editing = here === NEW_REPORT ? { reportId: null } : here.startsWith(EDIT_PREFIX) ? { reportId: decodeURIComponent(here.slice(EDIT_PREFIX.length)) } : null;
    const page = chartOf
      ? lazyPage("chart", texts, (pages) => pages.chartPage(ctx, chartOf))
      : editing
        ? lazyPage("editor", texts, (pages) => pages.editorPage(ctx, editing.reportId))
        : PAGES[name].build(ctx);
    slot.replaceChildren(page);
    document.title = `${chartOf ? texts.chart : editing ? texts.editor : PAGES[name].title(texts)} · ${texts.appTitle}`;
    page.querySelector<HTMLElement>("h1")?.focus();
  };
  window.onhashchange = (event) => {
    if (!app.contains(shell)) return;
    // The fragment has changed already: a page that must keep the person (unsaved edits) puts it back.
    if (!guards.every((mayLeave) => mayLeave())) return void history.replaceState(null, "", new URL(event.oldURL).hash || "#");
    render();
  };
  app.replaceChildren(shell);
  render();
}

const stored = loadSession();
if (stored && (!tenantFixed || stored.tenant === servedTenant)) signedIn(stored);
else signIn();

/**
 * The staff pages (`GET /staff`, src/staff/staffRoutes.ts): sign in through the hospital's
 * identity provider (when configured) or with an author token, then the reports with their
 * versions and audits, the critical-result alerts (a live badge on every page), the unmatched
 * queue, the patients with their charts, the month's quality figures, the bulk jobs, the item mappings and the tenant's credentials, each offered
 * to the roles that may use it, all through the `/api` endpoints. The server wrote the tenant,
 * language and provider into `<body data-…>`; the pages are chosen by the fragment (`#reports`,
 * `#alerts`, `#unmatched`, `#patients`, `#chart/<patientRef>`, `#bulk-jobs`, `#mappings`, `#credentials`,
 * `#access-log` (its filters may follow: `#access-log?patientRef=P001`), `#quality` (its month and
 * ward may follow: `#quality?month=2026-11&ward=A`), the
 * report editor at `#edit/<reportId>` and `#new`) so the browser's back button and bookmarks work
 * without a server route per page.
 */
import "./staff.css";
import "./staff/queueAndEditor.css";
import { accessLogPage } from "./staff/accessLogPage.ts";
import { alertsPage } from "./staff/alertsPage.ts";
import { openAlertHub, type AlertHub } from "./staff/alertStream.ts";
import { bulkJobsPage } from "./staff/bulkJobsPage.ts";
import { mappingsPage } from "./staff/mappingsPage.ts";
import { credentialsPage } from "./staff/credentialsPage.ts";
import { el } from "./staff/dom.ts";
import { lazyPage } from "./staff/lazyPages.ts";
import type { PageContext } from "./staff/page.ts";
import { patientsPage } from "./staff/patientsPage.ts";
import { qualityPage } from "./staff/qualityPage.ts";
import { reportsPage } from "./staff/reportsPage.ts";
import {
  clearStoredToken,
  loadStoredToken,
  may,
  saveStoredToken,
  tokenHint,
  type Session,
  type StaffRole,
} from "./staff/session.ts";
import { rejectionText, signInPage, signInWithToken } from "./staff/signIn.ts";
import { ApiError, createStaffApi, type StaffApi } from "./staff/staffApi.ts";
import {
  forgetReturn,
  personSession,
  rememberReturn,
  returnAfterSignIn,
  signOutPerson,
} from "./staff/personSession.ts";
import { staffTextsFor, type StaffTexts } from "./staff/texts.ts";
import { tabStrip } from "./staff/tabStrip.ts";
import { unmatchedPage } from "./staff/unmatchedPage.ts";
import type { Lang } from "./types.ts";
import { asyncListener } from "./asyncListener.ts";

/** The pages of the navigation, each with the least role that may use it (contract E.2; the server enforces it). */
const PAGES = {
  // Every role may view reports; a researcher is listed the research ones only (the server filters).
  reports: { title: (t: StaffTexts) => t.reports, build: reportsPage, role: "researcher" },
  alerts: { title: (t: StaffTexts) => t.alerts, build: alertsPage, role: "clinician" },
  unmatched: { title: (t: StaffTexts) => t.unmatched, build: unmatchedPage, role: "clinician" },
  patients: { title: (t: StaffTexts) => t.patients, build: patientsPage, role: "clinician" },
  quality: { title: (t: StaffTexts) => t.quality, build: qualityPage, role: "clinician" },
  "bulk-jobs": { title: (t: StaffTexts) => t.bulkJobs, build: bulkJobsPage, role: "author" },
  mappings: { title: (t: StaffTexts) => t.mappings, build: mappingsPage, role: "author" },
  credentials: { title: (t: StaffTexts) => t.credentials, build: credentialsPage, role: "admin" },
  "access-log": { title: (t: StaffTexts) => t.accessLogPage, build: accessLogPage, role: "admin" },
} satisfies Record<
  string,
  { title: (t: StaffTexts) => string; build: (ctx: PageContext) => HTMLElement; role: StaffRole }
>;
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
/** The hospital's identity provider, when staff sign in through it (the server names it in `data-sign-in-provider`). */
const providerName = body.dataset.signInProvider ?? null;
const app = document.getElementById("app")!;

function fragment(): string {
  return location.hash.replace(/^#\/?/, "");
}

/** The page the fragment names; null when it names none (the person's own page opens then). */
function pageName(): PageName | null {
  // A page's own filters may follow its name (`#access-log?patientRef=P001`).
  const name = fragment().split("?")[0]!;
  if (name.startsWith(CHART_PREFIX)) return "patients";
  if (name.startsWith(EDIT_PREFIX) || name === NEW_REPORT) return "reports";
  return name in PAGES ? (name as PageName) : null;
}

/**
 * The page a person starts on, by the most a role of theirs allows (issue #54): an administrator on
 * the credentials, an author on the reports, a clinician (a ward nurse) on her alerts, a viewer or
 * researcher on the reports.
 */
function landingPage(session: Session): PageName {
  if (may(session, "admin")) return "credentials";
  if (may(session, "author")) return "reports";
  if (may(session, "clinician")) return "alerts";
  return "reports";
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

/** The language links name the page as its address now says (issue #54: the editor after its first save). */
function followAddress(): void {
  for (const anchor of document.querySelectorAll<HTMLAnchorElement>("a.lang")) anchor.href = otherLanguageUrl();
}

/**
 * Help (the articles at /help, in the page's language) from every staff page and the sign-in page
 * (issue #54): a nurse's first question has an answer one click away. It opens in this tab; the
 * help pages lead back, and a token signed in here stays signed in (sessionStorage is the tab's).
 */
function helpLink(): HTMLElement {
  return el("a", { class: "help-link", href: lang === "en" ? "/help?lang=en" : "/help" }, texts.help);
}

/** "English" on the Chinese pages and "中文" on the English ones, in its own language. */
function languageLink(): HTMLElement {
  return el(
    "a",
    { class: "lang", href: otherLanguageUrl(), lang: lang === "en" ? "zh-CN" : "en" },
    texts.otherLanguage,
  );
}

/**
 * Scrolls the navigation (a strip of its own on a phone, web/staff.css) so that the current page's
 * tab is in view, without scrolling the page.
 */
function keepTabInView(nav: HTMLElement, tab: HTMLElement): void {
  const strip = nav.getBoundingClientRect();
  const box = tab.getBoundingClientRect();
  const margin = 40; // clear of the strip's arrow (web/staff/tabStrip.ts), and a little of the neighbour shows
  if (box.left < strip.left) nav.scrollLeft -= strip.left - box.left + margin;
  else if (box.right > strip.right) nav.scrollLeft += box.right - strip.right + margin;
}

/** Where "Sign in with <provider>" goes: the service's /staff/login, for the page's tenant unless the proxy sets it. */
function loginUrl(tenant: string): string {
  return tenantFixed ? "/staff/login" : `/staff/login?${new URLSearchParams({ tenant })}`;
}

function signIn(message: string | null = null): void {
  const stored = loadStoredToken();
  clearStoredToken();
  const tenant = tenantFixed ? servedTenant : (stored?.tenant ?? servedTenant);
  // Back from the provider, the person lands on /staff: the page and language they left from are kept for then.
  if (providerName) rememberReturn();
  const view = el(
    "div",
    { class: "shell" },
    el(
      "header",
      { class: "top" },
      el("div", { class: "top-bar" }, el("p", { class: "brand" }, texts.appTitle), helpLink(), languageLink()),
    ),
    signInPage({
      texts,
      tenant,
      tenantFixed,
      message,
      provider: providerName ? { name: providerName, loginUrl: loginUrl(tenant) } : null,
      onSignedIn(session) {
        if (session.kind === "token") saveStoredToken(session);
        forgetReturn();
        signedIn(session);
      },
    }),
  );
  show(view, texts.signInTitle);
}

/** A hub that never connects, for people whose roles do not reach the alerts: the badge stays hidden. */
const NO_ALERTS: AlertHub = {
  subscribe: () => () => {},
  onConnected: () => () => {},
  state: () => "lost",
  close: () => {},
};

/** "张护士 · Clinician · wards 3A" and, for a token, its tenant and hint. */
function whoLine(session: Session): HTMLElement {
  const { caller } = session;
  const roles = caller.roles.length ? caller.roles.map((role) => texts.roleNames[role]).join(", ") : texts.noRole;
  const wards = caller.wards ? ` · ${texts.wardsOf(caller.wards.join(", "))}` : "";
  const token = session.kind === "token" ? ` · ${texts.signedInAs(session.tenant, tokenHint(session.token))}` : "";
  return el(
    "p",
    { class: "who muted", "data-tenant": session.tenant, "data-roles": caller.roles.join(" ") },
    el("strong", { class: "name" }, caller.who),
    el("span", { class: "roles" }, ` · ${roles}${wards}${token}`),
  );
}

/**
 * The number of alerts waiting to be acknowledged (the open list; the sum of the alerts page's kind
 * tabs), refreshed whenever the stream says something changed.
 */
function alertBadge(api: StaffApi, alerts: AlertHub, afterChange: () => void): HTMLElement {
  const badge = el("span", { class: "alert-badge", "data-open-alerts": "0", hidden: true });
  const refreshBadge = async () => {
    const { open, delta = 0 } = await api
      .get<{ open: number; delta?: number }>("/api/alerts/count")
      .catch(() => ({ open: Number(badge.dataset.openAlerts), delta: Number(badge.dataset.openDeltaAlerts ?? 0) }));
    badge.dataset.openAlerts = String(open);
    badge.dataset.openDeltaAlerts = String(delta);
    // Until the service has answered, its 0 is a placeholder, not a count.
    badge.dataset.counted = "true";
    badge.textContent = String(open);
    badge.hidden = open === 0;
    badge.setAttribute(
      "aria-label",
      delta > 0 ? texts.openAlertsBadgeWithDelta(open - delta, delta) : texts.openAlertsBadge(open),
    );
    afterChange();
  };
  alerts.subscribe(() => void refreshBadge());
  alerts.onConnected((connected) => {
    if (connected) void refreshBadge();
  });

  return badge;
}

/** Signing out ends a token's use in this tab, or the person's session here and at the provider. */
function signOutButton(session: Session, alerts: AlertHub, announce: (text: string) => void): HTMLButtonElement {
  const signOut = el("button", { type: "button", class: "sign-out" }, texts.signOut);
  signOut.addEventListener(
    "click",
    asyncListener(async () => {
      if (session.kind === "token") return void (alerts.close(), signIn());
      signOut.disabled = true;
      signOut.textContent = texts.signingOut;
      try {
        const providerLogout = await signOutPerson(session);
        alerts.close();
        // The provider ends its own session too, then sends the browser back to /staff.
        if (providerLogout) location.assign(providerLogout);
        else signIn();
      } catch {
        signOut.disabled = false;
        signOut.textContent = texts.signOut;
        announce(texts.signOutFailed);
      }
    }),
  );
  return signOut;
}

function signedIn(session: Session): void {
  const live = el("p", { class: "status", role: "status", "aria-live": "polite" });
  const announce = (text: string) => {
    live.textContent = text;
  };
  // Only those who may see the alerts open their stream (it would be refused to the others).
  // Credentials the service stops accepting (a revoked token, an ended session) end the session on
  // any call, and at once when the alert stream says so.
  const rejected = (error: unknown) => {
    alerts.close();
    signIn(rejectionText(texts, error) || texts.sessionEnded);
  };
  const alerts: AlertHub = may(session, "clinician")
    ? openAlertHub(session, (ended) =>
        rejected(
          new ApiError(
            401,
            (ended.code && texts.errorCodes[ended.code as keyof typeof texts.errorCodes]) ||
              ended.error ||
              texts.sessionEnded,
            ended.code,
          ),
        ),
      )
    : NO_ALERTS;
  const api = createStaffApi(session, texts, rejected);
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

  // The number of standing alerts beside "Critical results", on every page, kept by the stream;
  // the badge widens its tab, which may push the current one out of view.
  const badge = alertBadge(api, alerts, () => currentTabInView());

  // Pages the person's roles do not reach are left out of the navigation (the server refuses them anyway).
  const offered = (Object.keys(PAGES) as PageName[]).filter((name) => may(session, PAGES[name].role));
  const links = offered.map((name) =>
    el("a", { href: `#${name}`, "data-page-link": name }, PAGES[name].title(texts), name === "alerts" ? badge : null),
  );
  const nav = el("nav", { class: "tabs", "aria-label": texts.nav }, ...links);
  const currentTabInView = () => {
    const current = links.find((link) => link.hasAttribute("aria-current"));
    if (current) keepTabInView(nav, current);
  };
  const signOut = signOutButton(session, alerts, announce);
  // Who is signed in, the language and the way out above; the pages, as tabs, below (on a phone too, where they scroll sideways in their own strip).
  const header = el(
    "header",
    { class: "top" },
    el(
      "div",
      { class: "top-bar" },
      el("p", { class: "brand" }, texts.appTitle),
      whoLine(session),
      helpLink(),
      languageLink(),
      signOut,
    ),
    tabStrip(nav, texts),
  );
  const slot = el("div", { class: "page-slot" });
  // The fragment names the page, so the skip link moves focus itself instead of changing it.
  const skipToContent = (event: Event) => {
    event.preventDefault();
    slot.querySelector<HTMLElement>("h1")?.focus();
  };
  const shell = el(
    "div",
    { class: "shell" },
    el("a", { class: "skip", href: "#main", onclick: skipToContent }, texts.skipToContent),
    header,
    live,
    slot,
  );

  const landing = landingPage(session);
  const render = () => {
    // No page named (the bare address, or a page that no longer exists): the person's own, named in the address.
    if (pageName() === null) history.replaceState(null, "", `#${landing}`);
    const here = fragment();
    const chartOf = here.startsWith(CHART_PREFIX) ? decodeURIComponent(here.slice(CHART_PREFIX.length)) : null;
    const editing =
      here === NEW_REPORT
        ? { reportId: null }
        : here.startsWith(EDIT_PREFIX)
          ? { reportId: decodeURIComponent(here.slice(EDIT_PREFIX.length)) }
          : null;
    const named = pageName() ?? landing;
    const needed: StaffRole = chartOf ? "clinician" : editing ? "author" : PAGES[named].role;
    // A bookmark or link to a page beyond the person's roles opens their own page, saying why.
    const refused = !may(session, needed);
    const name: PageName = refused ? landing : named;
    for (const link of links) {
      if (link.dataset.pageLink === name) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    currentTabInView();
    followAddress();
    announce(refused ? texts.notForRole(texts.roleNames[needed], PAGES[landing].title(texts)) : "");
    leaving.forEach((cleanup) => cleanup());
    leaving = [];
    guards = [];
    const page =
      chartOf && !refused
        ? lazyPage("chart", texts, (pages) => pages.chartPage(ctx, chartOf))
        : editing && !refused
          ? lazyPage("editor", texts, (pages) => pages.editorPage(ctx, editing.reportId))
          : PAGES[name].build(ctx);
    slot.replaceChildren(page);
    document.title = `${chartOf && !refused ? texts.chart : editing && !refused ? texts.editor : PAGES[name].title(texts)} · ${texts.appTitle}`;
    page.querySelector<HTMLElement>("h1")?.focus();
  };
  // A page that renames its address without a hash change (the editor's first save, #new → #edit/<id>) says so.
  window.addEventListener("dh:address", followAddress);
  window.onhashchange = (event) => {
    if (!app.contains(shell)) return;
    // The fragment has changed already: a page that must keep the person (unsaved edits) puts it back.
    if (!guards.every((mayLeave) => mayLeave()))
      return void history.replaceState(null, "", new URL(event.oldURL).hash || "#");
    render();
  };
  app.replaceChildren(shell);
  render();
}

/**
 * Who is here when the page loads: a token kept in this tab (asked again who it is), else a
 * person's session with the identity provider (its cookie), else nobody: the sign-in page.
 */
async function start(): Promise<void> {
  const stored = loadStoredToken();
  if (stored && (!tenantFixed || stored.tenant === servedTenant)) {
    try {
      return signedIn(await signInWithToken(stored, texts));
    } catch (error) {
      return signIn(
        error instanceof ApiError && error.status === 0 ? texts.networkFailed : rejectionText(texts, error),
      );
    }
  }
  if (providerName) {
    const person = await personSession().catch(() => null);
    if (person && (!tenantFixed || person.tenant === servedTenant)) {
      if (returnAfterSignIn()) return; // the page reloads where the person left from
      return signedIn(person);
    }
  }
  signIn();
}

void start();

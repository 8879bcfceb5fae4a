import type { AccessRecordAnswer } from "../../queries/access/accessLog.ts";
import { isStaffRole } from "../../commands/credentials/staffRoleRanks.ts";
import { failureOf, fileNameOf, saveBlob } from "../api.ts";
import { ACCESS_PERIOD_CHOICES, type AccessPeriodChoice } from "./accessLogTexts.ts";
import { chartHref } from "./chartLink.ts";
import { actorName } from "./actorTexts.ts";
import { alertBox, el, field, localTime, whileSubmitting } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { credentialsOf } from "./session.ts";
import { cardTable } from "./tables.ts";
import type { AuthorListEntry, ClientListEntry } from "./types.ts";

/** The filters of the page, as the API takes them (contract E.4 and issue #54) and the address keeps them. */
export interface AccessFilters {
  who?: string;
  patientRef?: string;
  action?: string;
  /** Local date-times, `yyyy-MM-ddTHH:mm:ss`. */
  from?: string;
  to?: string;
}

const PAGE_SIZE = 50;
const FILTER_NAMES = ["who", "patientRef", "action", "from", "to"] as const;
const HOURS: Record<Exclude<AccessPeriodChoice, "any" | "custom">, number> = {
  hour: 1,
  day: 24,
  week: 24 * 7,
  month: 24 * 30,
};

const pad = (n: number) => String(n).padStart(2, "0");
/** A moment as a `datetime-local` field holds it: `yyyy-MM-ddTHH:mm`, local time. */
const fieldTime = (date: Date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;

/** The filters the address names (`#access-log?patientRef=P001&…`): a chart links here with its patient. */
export function filtersInAddress(hash: string): AccessFilters {
  const query = new URLSearchParams(hash.split("?")[1] ?? "");
  return Object.fromEntries(FILTER_NAMES.flatMap((name) => (query.get(name) ? [[name, query.get(name)!]] : [])));
}

/** `#access-log?…` for these filters. */
export function accessLogHref(filters: AccessFilters): string {
  const query = new URLSearchParams(FILTER_NAMES.flatMap((name) => (filters[name] ? [[name, filters[name]]] : [])));
  return `#access-log${query.size ? `?${query}` : ""}`;
}

/**
 * The tenant's access log for its administrators (contract E.4; issue #54: 35 records in twenty
 * minutes with no filter or export): the newest first, filtered by who, patient, action and
 * period, a page at a time (keyset, "Show more"), and the filtered records exported as Excel or CSV.
 */
export function accessLogPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const fromAddress = filtersInAddress(location.hash);
  const form = filterForm(ctx, fromAddress, () => {
    history.replaceState(null, "", accessLogHref(form.values()));
    void load();
  });
  const count = el("p", { class: "count muted", "aria-live": "polite" });
  const box = el("div", { class: "page-body access-log-body" });
  const load = loader(box, texts, async () => {
    count.textContent = "";
    return recordList(ctx, form.values(), count);
  });
  const exports = exportButtons(ctx, () => form.values());
  void load();
  return pageFrame("access-log", texts.accessLogPage, texts.accessLogPageIntro, form.element, exports, count, box);
}

/** The filter form: who (with the tenant's credentials to pick from), patient, action, period. */
function filterForm(
  ctx: PageContext,
  initial: AccessFilters,
  apply: () => void,
): { element: HTMLElement; values(): AccessFilters } {
  const { texts } = ctx;
  const who = el("input", { type: "text", list: "access-who-names", autocomplete: "off", maxlength: 200 });
  const names = el("datalist", { id: "access-who-names" });
  const patient = el("input", { type: "text", autocomplete: "off", maxlength: 64, spellcheck: "false" });
  const actions = Object.entries(texts.actions).sort(([, a], [, b]) => a.localeCompare(b, ctx.lang));
  const action = el(
    "select",
    {},
    el("option", { value: "" }, texts.accessAnyAction),
    ...actions.map(([route, words]) => el("option", { value: route }, words)),
  );
  const period = el(
    "select",
    {},
    ...ACCESS_PERIOD_CHOICES.map((choice) => el("option", { value: choice }, texts.accessPeriods[choice])),
  );
  const from = el("input", { type: "datetime-local", step: 60 });
  const to = el("input", { type: "datetime-local", step: 60 });
  const problem = alertBox();
  const choosePeriod = () => {
    const choice = period.value as AccessPeriodChoice;
    if (choice === "custom") return;
    to.value = "";
    from.value = choice === "any" ? "" : fieldTime(new Date(Date.now() - HOURS[choice] * 3_600_000));
  };
  period.addEventListener("change", choosePeriod);
  for (const input of [from, to]) input.addEventListener("input", () => (period.value = "custom"));

  who.value = initial.who ?? "";
  patient.value = initial.patientRef ?? "";
  action.value = initial.action ?? "";
  if (initial.from || initial.to) {
    period.value = "custom";
    from.value = initial.from?.slice(0, 16) ?? "";
    to.value = initial.to?.slice(0, 16) ?? "";
  } else {
    // A patient's own log reaches back a month; the tenant's, a day (issue #54: 35 records in 20 minutes).
    period.value = initial.patientRef ? "month" : "day";
    choosePeriod();
  }
  void whoNames(ctx).then((list) => names.replaceChildren(...list.map((name) => el("option", { value: name }))));

  const values = (): AccessFilters => ({
    ...(who.value.trim() ? { who: who.value.trim() } : {}),
    ...(patient.value.trim() ? { patientRef: patient.value.trim() } : {}),
    ...(action.value ? { action: action.value } : {}),
    // A minute typed in is the whole minute: from its first second to its last.
    ...(from.value ? { from: `${from.value}:00` } : {}),
    ...(to.value ? { to: `${to.value}:59` } : {}),
  });
  const element = el(
    "form",
    { class: "access-filters", novalidate: true, "aria-label": texts.accessFilters },
    el(
      "div",
      { class: "filter-fields" },
      field("access-who", texts.accessFilterWho, who, texts.accessFilterWhoHint),
      names,
      field("access-patient", texts.accessFilterPatient, patient, texts.accessFilterPatientHint),
      field("access-action", texts.accessFilterAction, action),
      field("access-period", texts.accessFilterPeriod, period),
      field("access-from", texts.accessFilterFrom, from),
      field("access-to", texts.accessFilterTo, to),
    ),
    problem.element,
    el(
      "div",
      { class: "form-actions" },
      el("button", { type: "submit", class: "primary" }, texts.accessApply),
      el(
        "button",
        {
          type: "button",
          class: "clear-filters",
          onclick: () => {
            who.value = patient.value = action.value = "";
            period.value = "day";
            choosePeriod();
            apply();
          },
        },
        texts.accessClear,
      ),
    ),
  );
  element.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = values();
    if (chosen.from && chosen.to && chosen.from >= chosen.to) {
      from.setAttribute("aria-invalid", "true");
      from.focus();
      return problem.show(texts.accessPeriodInvalid);
    }
    from.removeAttribute("aria-invalid");
    problem.show(null);
    apply();
  });
  return { element, values };
}

/** The names records show as who: the tenant's tokens and laboratory keys, and the operator's `admin`. */
async function whoNames(ctx: PageContext): Promise<string[]> {
  const [authors, clients] = await Promise.all([
    ctx.api.all<AuthorListEntry>("/api/admin/authors").catch(() => []),
    ctx.api.all<ClientListEntry>("/api/admin/clients").catch(() => []),
  ]);
  return [...new Set([...authors.map((one) => one.name), ...clients.map((one) => one.name), "admin"])].sort();
}

const queryOf = (filters: AccessFilters, extra: Record<string, string>) =>
  new URLSearchParams({ ...filters, ...extra } as Record<string, string>).toString();

/** The records the filters choose, the newest first, a page at a time. */
async function recordList(ctx: PageContext, filters: AccessFilters, count: HTMLElement): Promise<Node> {
  const { texts } = ctx;
  const read = (cursor: string | null) =>
    ctx.api.get<{ records: AccessRecordAnswer[]; next: string | null }>(
      `/api/admin/access-log?${queryOf(filters, { order: "newest", limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) })}`,
    );
  let page = await read(null);
  const records = [...page.records];
  if (records.length === 0) return el("p", { class: "empty" }, texts.accessNoMatch);
  const list = el("div", { class: "access-records-list", tabindex: "-1" });
  const problem = alertBox();
  const more = el("button", { type: "button", class: "show-more" }, texts.showMore);
  const show = () => {
    count.textContent = texts.accessRecordsShown(records.length, page.next !== null);
    list.replaceChildren(
      recordTable(ctx, records),
      problem.element,
      page.next ? el("p", { class: "page-actions" }, more) : "",
    );
  };
  more.addEventListener(
    "click",
    () =>
      void whileSubmitting(more, texts.loading, problem, async () => {
        try {
          page = await read(page.next);
          records.push(...page.records);
          show();
          (page.next ? more : list).focus();
        } catch (error) {
          problem.show(error instanceof Error ? error.message : String(error));
        }
      }),
  );
  show();
  return list;
}

/** A card per record on a phone, a row per record on a desk; each patient shown links to their chart. */
function recordTable(ctx: PageContext, records: AccessRecordAnswer[]): HTMLElement {
  const { texts } = ctx;
  const head = [
    texts.accessColWho,
    texts.accessColWhen,
    texts.accessColRoles,
    texts.accessColAction,
    texts.accessColPatients,
    texts.accessColOutcome,
  ];
  const rows = records.map((record) =>
    el(
      "tr",
      { "data-who": record.who, "data-action": record.action, "data-outcome": record.outcome },
      el("th", { scope: "row" }, actorName(record, ctx.lang)),
      el("td", { class: "when" }, localTime(record.at)),
      el("td", {}, record.roles.map((role) => (isStaffRole(role) ? texts.roleNames[role] : role)).join(", ")),
      el("td", { title: record.action }, texts.actions[record.action] ?? el("code", {}, record.action)),
      el(
        "td",
        { class: "patients" },
        ...(record.patientRefs.length
          ? record.patientRefs.flatMap((ref, i) => [i ? ", " : "", el("a", { href: chartHref(ref) }, ref)])
          : [texts.accessNone]),
        record.patientRefsTruncated ? " …" : "",
      ),
      el("td", { class: `outcome outcome-${record.outcome}` }, texts.outcomes[record.outcome]),
    ),
  );
  return cardTable(
    el(
      "table",
      { class: "data access-records tenant-access-records" },
      el("caption", { class: "visually-hidden" }, texts.accessLogPage),
      el("thead", {}, el("tr", {}, ...head.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows),
    ),
  );
}

/** Export Excel and Export CSV: the records the filters choose (all of them, not only the pages shown). */
function exportButtons(ctx: PageContext, filters: () => AccessFilters): HTMLElement {
  const { texts } = ctx;
  const problem = alertBox();
  const button = (format: "xlsx" | "csv", words: string) => {
    const element = el("button", { type: "button", class: `export-${format}` }, words);
    element.addEventListener(
      "click",
      () =>
        void whileSubmitting(element, texts.accessExporting, problem, async () => {
          const own = credentialsOf(ctx.session, "GET");
          try {
            const response = await fetch(
              `/api/admin/access-log/export?${queryOf(filters(), { format, lang: ctx.lang })}`,
              { headers: own.headers, credentials: own.credentials, cache: "no-store" },
            );
            if (!response.ok)
              return problem.show(texts.accessExportFailed((await failureOf(response, texts)).sentence));
            const name = fileNameOf(response.headers.get("content-disposition")) ?? `access-log.${format}`;
            saveBlob(await response.blob(), name);
            ctx.announce(texts.accessExported(name));
          } catch {
            problem.show(texts.accessExportFailed(texts.networkFailed));
          }
        }),
    );
    return element;
  };
  return el(
    "div",
    { class: "toolbar access-exports" },
    button("xlsx", texts.accessExportXlsx),
    button("csv", texts.accessExportCsv),
    problem.element,
  );
}

import { claimCheckView } from "./claimCheck.ts";
import { openModal } from "./dialog.ts";
import { historyDialog } from "./historyDialog.ts";
import { cardTable } from "./tables.ts";
import { reportPreview } from "./labReportView.ts";
import { pendingReasonText } from "./errorTexts.ts";
import { noteDialog, withdraw } from "./noteDialog.ts";
import { decideOnEntry, staleEntryWords } from "./queueDecision.ts";
import { alertBox, el, localTime, whileSubmitting } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { patientPicker } from "./patientPicker.ts";
import { pagedList } from "./pagedList.ts";
import type { UnmatchedEntry } from "./types.ts";

/** How often an open queue asks whether it changed (a count and a tag: no patient is read or logged). */
const WATCH_MS = 4000;

/**
 * The reports awaiting a patient (`GET /api/unmatched`), newest first, searched, each to claim or
 * dismiss (contract C.4); the page follows the queue by itself while it is open (issue #54).
 */
export function unmatchedPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const search = queueSearch(ctx, () => void reload());
  const count = el("p", { class: "count muted", "aria-live": "polite" });
  const box = el("div", { class: "page-body" });
  let tag: string | null = null;
  /** The reports shown, so that those arriving while the page is open are marked as new. */
  let shown: Set<string> | null = null;
  let arrivedHere = false;
  const reload = loader(box, texts, async () => {
    const text = search.text();
    // The newest first page (contract E.6: a queue can hold a day's thousands); more when asked for.
    const [first, summary] = await Promise.all([
      ctx.api.page<UnmatchedEntry>(`/api/unmatched?${search.query()}`),
      ctx.api.get<QueueSummary>("/api/unmatched/summary"),
    ]);
    tag = summary.tag;
    const before = arrivedHere ? shown : null;
    arrivedHere = false;
    shown = new Set(first.items.map(entryKey));
    const arrived = before ? first.items.filter((entry) => !before.has(entryKey(entry))).map(entryKey) : [];
    if (arrived.length > 0 && !text) ctx.announce(texts.queueArrived(arrived.length));
    if (first.items.length === 0) {
      count.textContent = text ? "" : texts.queueCount(0);
      return el("p", { class: "empty" }, text ? texts.queueNoMatches(text) : texts.queueEmpty);
    }
    return pagedList(
      ctx,
      first,
      (queue) => queueTable(ctx, queue, reload, new Set(arrived)),
      (many, more) =>
        (count.textContent = text ? texts.queueFound(many, more) : texts.queueShownOf(many, summary.waiting)),
    );
  });
  void reload();
  watchQueue(
    ctx,
    box,
    () => tag,
    async () => {
      arrivedHere = true;
      await keepingFocus(box, reload);
    },
  );
  return pageFrame(
    "unmatched",
    texts.unmatched,
    texts.unmatchedIntro,
    el("p", { class: "hint live-note" }, texts.queueLive),
    search.element,
    count,
    box,
  );
}

interface QueueSummary {
  waiting: number;
  tag: string;
}

const entryKey = (entry: Pick<UnmatchedEntry, "kind" | "externalId">) => `${entry.kind}/${entry.externalId}`;

/** The search form: a text (name, report, id card) and the kind; typing searches after a pause. */
function queueSearch(ctx: PageContext, search: () => void) {
  const { texts } = ctx;
  const q = el("input", {
    type: "search",
    id: "queue-q",
    name: "q",
    autocomplete: "off",
    maxlength: 100,
    "aria-describedby": "queue-q-hint",
  });
  const kind = el(
    "select",
    { id: "queue-kind", name: "kind", onchange: search },
    el("option", { value: "" }, texts.queueKindAll),
    el("option", { value: "lab" }, texts.kinds.lab ?? "lab"),
    el("option", { value: "exam" }, texts.kinds.exam ?? "exam"),
  );
  const element = el(
    "form",
    { class: "search-form queue-search", role: "search" },
    el(
      "div",
      { class: "search-fields" },
      el("div", { class: "search-text" }, el("label", { for: q.id }, texts.queueSearchLabel), q),
      el("div", { class: "search-kind" }, el("label", { for: kind.id }, texts.queueKindLabel), kind),
      el("button", { type: "submit" }, texts.search),
    ),
    el("p", { class: "hint", id: "queue-q-hint" }, texts.queueSearchHint),
  );
  element.addEventListener("submit", (event) => {
    event.preventDefault();
    search();
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  q.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 300);
  });
  ctx.onLeave(() => clearTimeout(timer));
  return {
    element,
    text: () => q.value.trim(),
    query: () => {
      const params = new URLSearchParams({ order: "newest" });
      if (q.value.trim()) params.set("q", q.value.trim());
      if (kind.value) params.set("kind", kind.value);
      return params.toString();
    },
  };
}

/**
 * Asks every few seconds, while the page is open and seen, whether the queue changed (its summary's
 * tag), and reads it again only then: reports arriving, claimed or dismissed elsewhere show
 * without a Refresh, and the access log records a reading only when there is something new to show.
 */
function watchQueue(ctx: PageContext, box: HTMLElement, shownTag: () => string | null, changed: () => Promise<void>) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let left = false;
  const look = async () => {
    if (left) return;
    try {
      const known = shownTag();
      if (!document.hidden && known !== null && box.dataset.state === "ready") {
        const { tag } = await ctx.api.get<QueueSummary>("/api/unmatched/summary");
        if (!left && tag !== known) await changed();
      }
    } catch {
      // Not reachable for a moment: asked again at the next turn.
    }
    if (!left) timer = setTimeout(() => void look(), WATCH_MS);
  };
  timer = setTimeout(() => void look(), WATCH_MS);
  ctx.onLeave(() => {
    left = true;
    clearTimeout(timer);
  });
}

/** Reads the queue again, the focus (a row's button) kept on the same report's button when it is still there. */
async function keepingFocus(box: HTMLElement, reload: () => Promise<void>): Promise<void> {
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && box.contains(active) ? active : null;
  const row = focused?.closest<HTMLElement>("tr[data-external-id]") ?? null;
  const button = focused?.className.split(" ")[0] ?? "";
  await reload();
  if (!focused) return;
  const again = row
    ? box.querySelector<HTMLElement>(
        `tr[data-kind="${row.dataset.kind}"][data-external-id="${CSS.escape(row.dataset.externalId ?? "")}"] ${button ? `button.${CSS.escape(button)}` : "button"}`,
      )
    : null;
  (again ?? box).focus();
}

function queueTable(
  ctx: PageContext,
  queue: UnmatchedEntry[],
  reload: () => Promise<void>,
  arrived: ReadonlySet<string>,
): HTMLElement {
  const { texts } = ctx;
  const columns = [
    texts.colKind,
    texts.colReport,
    texts.colPatientSent,
    texts.colReason,
    texts.colReceived,
    texts.colActions,
  ];
  const rows = queue.map((entry) => {
    const sent = [
      entry.patient.name,
      entry.patient.idCard,
      entry.patient.hisPatientId ? texts.hisId(entry.patient.hisPatientId) : null,
    ]
      .filter(Boolean)
      .join(" · ");
    const isNew = arrived.has(entryKey(entry));
    return el(
      "tr",
      { "data-kind": entry.kind, "data-external-id": entry.externalId, class: isNew ? "arrived" : "" },
      el("td", {}, texts.kinds[entry.kind] ?? entry.kind),
      el(
        "th",
        { scope: "row" },
        isNew ? el("span", { class: "badge new-badge" }, texts.queueNew) : null,
        entry.externalId,
        entry.reportNo ? el("span", { class: "sub muted" }, texts.reportNo(entry.reportNo)) : null,
      ),
      el("td", {}, sent || "—"),
      el("td", { class: "reason", "data-code": entry.pendingCode ?? "" }, pendingReasonText(texts, entry)),
      el("td", {}, localTime(entry.receivedAt)),
      el(
        "td",
        { class: "actions" },
        el(
          "button",
          {
            type: "button",
            class: "claim",
            "aria-label": texts.claimFor(entry.externalId),
            onclick: () => claimDialog(ctx, entry, reload),
          },
          texts.claim,
        ),
        el(
          "button",
          {
            type: "button",
            class: "dismiss",
            "aria-label": texts.dismissFor(entry.externalId),
            onclick: () => dismissDialog(ctx, entry, reload),
          },
          texts.dismiss,
        ),
        el(
          "button",
          {
            type: "button",
            class: "history",
            "aria-label": texts.historyFor(entry.externalId),
            onclick: () => historyDialog(ctx, entry.kind, entry.externalId),
          },
          texts.history,
        ),
      ),
    );
  });
  // On a phone each waiting report is a card with its buttons whole (web/staff/tables.ts).
  return cardTable(
    el(
      "table",
      { class: "data queue" },
      el("caption", { class: "visually-hidden" }, texts.unmatched),
      el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows),
    ),
  );
}

/** What the report says about its patient: a person checks it against the patient they choose. */
function sentPatient(ctx: PageContext, entry: UnmatchedEntry): HTMLElement {
  const { texts } = ctx;
  const row = (term: string, value: string | null) => (value ? [el("dt", {}, term), el("dd", {}, value)] : []);
  return el(
    "dl",
    { class: "sent-patient" },
    ...row(
      texts.colReport,
      [entry.externalId, entry.reportNo ? texts.reportNo(entry.reportNo) : null].filter(Boolean).join(" · "),
    ),
    ...row(texts.name, entry.patient.name),
    ...row(texts.idCard, entry.patient.idCard),
    ...row(texts.colHisId, entry.patient.hisPatientId),
    ...row(texts.colReason, pendingReasonText(texts, entry)),
  );
}

function claimDialog(ctx: PageContext, entry: UnmatchedEntry, reload: () => Promise<void>): void {
  const { texts } = ctx;
  const problem = alertBox();
  // A choice or a tick answers what the alert asked: it does not stay on screen after.
  const check = claimCheckView(ctx, entry, () => problem.show(null));
  // Start from what the report names: a name finds the patient most often, else the visible id card.
  const picker = patientPicker(
    ctx,
    entry.patient.name ?? entry.patient.idCard ?? entry.patient.hisPatientId ?? "",
    (patient) => {
      problem.show(null);
      check.compare(patient);
    },
  );
  const submit = el("button", { type: "submit", class: "primary" }, texts.claimButton);
  const cancel = el("button", { type: "button" }, texts.cancel);
  openModal(texts.claimTitle(entry.externalId), texts.close, (modal) => {
    cancel.addEventListener("click", () => modal.close());
    const form = el(
      "form",
      { class: "claim-form", novalidate: true },
      sentPatient(ctx, entry),
      picker.element,
      check.element,
      problem.element,
      el("div", { class: "form-actions" }, cancel, submit),
    );
    // The report itself, as printed, to read before it joins a patient's record.
    picker.element.before(reportPreview(ctx, entry.kind, entry.externalId));
    const claim = async () => {
      const patient = picker.chosen();
      if (!patient) return problem.show(texts.choosePatient);
      let withdrawn = false;
      await whileSubmitting(submit, texts.claiming, problem, async () => {
        // Someone else's report, by what it says: claimed only on the person's explicit word.
        if (!(await check.mayClaim(patient))) {
          problem.show(texts.confirmFirst(patient.name));
          check.focusConfirmation();
          return;
        }
        try {
          await decideOnEntry(ctx, entry, "claim", { patientRef: patient.patientRef });
          modal.close();
          ctx.announce(texts.claimed(entry.externalId, `${patient.name} (${patient.patientRef})`));
          await reload();
        } catch (error) {
          // Someone else decided on the report meanwhile (or it was sent again): said, and nothing overridden.
          const stale = await staleEntryWords(ctx, entry, error, reload);
          withdrawn = stale !== null;
          problem.show(stale ?? (error instanceof Error ? error.message : String(error)));
        }
      });
      if (withdrawn) withdraw(submit, null, cancel);
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void claim();
    });
    return [form];
  });
}

function dismissDialog(ctx: PageContext, entry: UnmatchedEntry, reload: () => Promise<void>): void {
  const { texts } = ctx;
  noteDialog(ctx, {
    title: texts.dismissTitle(entry.externalId),
    about: [sentPatient(ctx, entry)],
    formClass: "dismiss-form",
    fieldId: "dismiss-reason",
    label: texts.reason,
    hint: texts.reasonHint,
    missing: texts.reasonMissing,
    maxLength: 500,
    submit: { text: texts.dismissButton, busy: texts.dismissing, danger: true },
    send: (reason) => decideOnEntry(ctx, entry, "dismiss", { reason }),
    stale: (error) => staleEntryWords(ctx, entry, error, reload),
    done: async () => {
      ctx.announce(texts.dismissed(entry.externalId));
      await reload();
    },
  });
}

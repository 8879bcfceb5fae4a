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
import { asyncListener } from "../asyncListener.ts";

/** The reports awaiting a patient (`GET /api/unmatched`), each to claim or dismiss (contract C.4). */
export function unmatchedPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const count = el("p", { class: "count muted" });
  const box = el("div", { class: "page-body" });
  const reload = loader(box, texts, async () => {
    // The oldest page first (contract E.6: a queue can hold a day's thousands); more when asked for.
    const first = await ctx.api.page<UnmatchedEntry>("/api/unmatched");
    if (first.items.length === 0) {
      count.textContent = texts.queueCount(0);
      return el("p", { class: "empty" }, texts.queueEmpty);
    }
    return pagedList(
      ctx,
      first,
      (queue) => queueTable(ctx, queue, reload),
      (shown, more) => (count.textContent = more ? texts.queueCountMore(shown) : texts.queueCount(shown)),
    );
  });
  void reload();
  return pageFrame("unmatched", texts.unmatched, texts.unmatchedIntro, count, box);
}

function queueTable(ctx: PageContext, queue: UnmatchedEntry[], reload: () => Promise<void>): HTMLElement {
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
    return el(
      "tr",
      { "data-kind": entry.kind, "data-external-id": entry.externalId },
      el("td", {}, texts.kinds[entry.kind] ?? entry.kind),
      el(
        "th",
        { scope: "row" },
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
    form.addEventListener(
      "submit",
      asyncListener(async (event) => {
        event.preventDefault();
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
      }),
    );
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

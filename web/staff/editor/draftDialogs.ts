/**
 * The editor's two dialogs that act on the draft: publish (mode and note; for a draft whose
 * queries failed when it was saved, a confirmation too) and discard (a confirmation). Each sends its call, shows a failure in the dialog unless `claimed` takes it
 * (a 412 the editor shows itself), and runs `done` once the dialog is closed.
 */
import { findingText } from "../auditTexts.ts";
import { openModal } from "../dialog.ts";
import { alertBox, el, field, whileSubmitting } from "../dom.ts";
import type { PageContext } from "../page.ts";
import type { Finding } from "../types.ts";
import type { EditorTexts } from "./editorTexts.ts";

export type Mode = "dynamic" | "snapshot";

interface DialogActs<Choice> {
  /** The call; false closes the dialog without `done` (a save before publishing that was refused). */
  send(choice: Choice): Promise<boolean>;
  done(): Promise<void>;
  /** True when the editor shows this failure itself (the dialog just closes). */
  claimed(error: unknown): boolean;
}

async function act<Choice>(
  acts: DialogActs<Choice>,
  choice: Choice,
  modal: { close(): void },
  failure: { show(text: string | null): void },
): Promise<void> {
  let sent: boolean;
  try {
    sent = await acts.send(choice);
  } catch (error) {
    if (acts.claimed(error)) modal.close();
    else failure.show(error instanceof Error ? error.message : String(error));
    return;
  }
  modal.close();
  if (sent) await acts.done();
}

/** What the publish dialog says of the draft's queries that fail, with the box to tick that publishes it all the same; null when none fails. */
function failingQueries(
  ctx: PageContext,
  texts: EditorTexts,
  failing: Finding[],
): { element: HTMLElement; confirmed: HTMLInputElement } | null {
  if (failing.length === 0) return null;
  const confirmed = el("input", { type: "checkbox", id: "publish-anyway" });
  const element = el(
    "div",
    { class: "publish-failing", id: "publish-failing" },
    el("p", {}, el("strong", {}, texts.publishFailing(failing.length))),
    el(
      "ul",
      {},
      // In the page's language, as the audit panel says it (the service's sentence is English).
      ...failing.map((found) =>
        el("li", { "data-query": found.where }, el("code", {}, found.where), " ", findingText(found, ctx.lang)),
      ),
    ),
    el("div", { class: "form-field check" }, confirmed, el("label", { for: confirmed.id }, texts.publishAnyway)),
  );
  return { element, confirmed };
}

/** `failing`: the draft's audit findings of queries that failed when it was saved (query-fails); publishing them is confirmed first. */
export function publishDialog(
  ctx: PageContext,
  texts: EditorTexts,
  acts: DialogActs<{ mode: Mode; note: string }>,
  failing: Finding[] = [],
): void {
  const warning = failingQueries(ctx, texts, failing);
  const dynamic = el("input", {
    type: "radio",
    name: "publish-mode",
    value: "dynamic",
    checked: true,
    id: "publish-dynamic",
  });
  const snapshot = el("input", { type: "radio", name: "publish-mode", value: "snapshot", id: "publish-snapshot" });
  const note = el("input", { type: "text", maxlength: 2000 });
  const failure = alertBox();
  const submit = el("button", { type: "submit", class: "primary" }, texts.publish.replace(/…$/, ""));
  openModal(texts.publishTitle, ctx.texts.close, (modal) => {
    if (warning) modal.dialog.setAttribute("aria-describedby", warning.element.id);
    const mode = (input: HTMLInputElement, value: Mode) =>
      el(
        "div",
        { class: "form-field check" },
        input,
        el("label", { for: input.id }, `${ctx.texts.modes[value] ?? value} — ${texts.modeHints[value]}`),
      );
    const form = el(
      "form",
      { class: "publish-form", novalidate: true },
      warning?.element,
      el("fieldset", {}, el("legend", {}, texts.mode), mode(dynamic, "dynamic"), mode(snapshot, "snapshot")),
      field("publish-note", texts.note, note, texts.publishNoteHint),
      failure.element,
      el(
        "div",
        { class: "form-actions" },
        el("button", { type: "button", onclick: () => modal.close() }, ctx.texts.cancel),
        submit,
      ),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (warning && !warning.confirmed.checked) {
        failure.show(texts.publishAnywayFirst);
        return warning.confirmed.focus();
      }
      void whileSubmitting(submit, texts.publishing, failure, () =>
        act(acts, { mode: snapshot.checked ? "snapshot" : "dynamic", note: note.value.trim() }, modal, failure),
      );
    });
    return [form];
  });
}

export function discardDialog(ctx: PageContext, texts: EditorTexts, acts: DialogActs<void>): void {
  const failure = alertBox();
  const submit = el("button", { type: "button", class: "primary danger" }, texts.discard);
  openModal(texts.discard, ctx.texts.close, (modal) => {
    submit.addEventListener(
      "click",
      () => void whileSubmitting(submit, texts.discarding, failure, () => act(acts, undefined, modal, failure)),
    );
    return [
      el("p", {}, texts.discardConfirm),
      failure.element,
      el(
        "div",
        { class: "form-actions" },
        el("button", { type: "button", onclick: () => modal.close() }, ctx.texts.cancel),
        submit,
      ),
    ];
  });
}

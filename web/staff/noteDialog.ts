import { openModal } from "./dialog.ts";
import { alertBox, el, field, whileSubmitting } from "./dom.ts";
import type { PageContext } from "./page.ts";
import { asyncListener } from "../asyncListener.ts";

export interface NoteDialog {
  title: string;
  /** What the note is about, shown above the field. */
  about: Node[];
  formClass: string;
  fieldId: string;
  label: string;
  hint: string;
  /** Said when the note is left empty; without it the note may be left empty. */
  missing?: string;
  maxLength: number;
  submit: { text: string; busy: string; danger?: boolean };
  /** Sends the trimmed note; a failure's sentence is shown in the dialog. */
  send(note: string): Promise<void>;
  /** After a send that worked, with the dialog closed. */
  done(): Promise<void> | void;
  /**
   * For a failure after which the dialog's decision no longer stands (what it was about changed
   * since it opened): the words to show, and the submit button is withdrawn. Null: shown as any failure.
   */
  stale?(error: unknown): Promise<string | null>;
}

/** The decision can no longer be sent from this dialog: only closing it is left, and the focus goes there. */
export function withdraw(submit: HTMLButtonElement, field: HTMLTextAreaElement | null, close: HTMLButtonElement): void {
  submit.remove();
  if (field) field.disabled = true;
  close.focus();
}

/** A dialog asking for a text (a dismissal's reason, an acknowledgement's note, a restore's note) and sending it. */
export function noteDialog(ctx: PageContext, spec: NoteDialog): void {
  const { texts } = ctx;
  const note = el("textarea", {
    name: spec.fieldId,
    rows: 3,
    maxlength: spec.maxLength,
    required: spec.missing !== undefined,
  });
  const problem = alertBox();
  const submit = el(
    "button",
    { type: "submit", class: spec.submit.danger ? "primary danger" : "primary" },
    spec.submit.text,
  );
  const cancel = el("button", { type: "button" }, texts.cancel);
  openModal(spec.title, texts.close, (modal) => {
    const form = el(
      "form",
      { class: spec.formClass, novalidate: true },
      ...spec.about,
      field(spec.fieldId, spec.label, note, spec.hint),
      problem.element,
      el("div", { class: "form-actions" }, cancel, submit),
    );
    cancel.addEventListener("click", () => modal.close());
    form.addEventListener(
      "submit",
      asyncListener(async (event) => {
        event.preventDefault();
        if (spec.missing !== undefined && !note.value.trim()) {
          note.setAttribute("aria-invalid", "true");
          note.focus();
          return problem.show(spec.missing);
        }
        note.removeAttribute("aria-invalid");
        let withdrawn = false;
        await whileSubmitting(submit, spec.submit.busy, problem, async () => {
          try {
            await spec.send(note.value.trim());
            modal.close();
            await spec.done();
          } catch (error) {
            const stale = spec.stale ? await spec.stale(error) : null;
            withdrawn = stale !== null;
            problem.show(stale ?? (error instanceof Error ? error.message : String(error)));
          }
        });
        if (withdrawn) withdraw(submit, note, cancel);
      }),
    );
    return [form];
  });
}

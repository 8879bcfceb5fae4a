import { asyncListener } from "../asyncListener.ts";
import { openModal, type Modal } from "./dialog.ts";
import { alertBox, el, whileSubmitting } from "./dom.ts";
import type { PageContext } from "./page.ts";

export interface Confirmation {
  title: string;
  intro: string;
  /** The button that does it, and what it says while it is being done. */
  button: string;
  busy: string;
  /** Red: it cannot be undone and takes something away. */
  danger?: boolean;
  /** Marks the form for the page's styles and tests. */
  formClass: string;
  /** Does it; a refusal it throws is said in the dialog, which stays open. */
  act: (modal: Modal) => Promise<void>;
}

/**
 * Asks before something that cannot be undone (revoking a credential, closing a month). Cancel
 * comes first and has the focus, so Enter alone does nothing irreversible.
 */
export function confirmDialog(ctx: PageContext, confirmation: Confirmation): Modal {
  const { texts } = ctx;
  const problem = alertBox();
  const submit = el(
    "button",
    { type: "submit", class: confirmation.danger ? "primary danger" : "primary" },
    confirmation.button,
  );
  return openModal(confirmation.title, texts.close, (modal) => {
    const form = el(
      "form",
      { class: confirmation.formClass, novalidate: true },
      el("p", {}, confirmation.intro),
      problem.element,
      el(
        "div",
        { class: "form-actions" },
        el("button", { type: "button", autofocus: true, onclick: () => modal.close() }, texts.cancel),
        submit,
      ),
    );
    form.addEventListener(
      "submit",
      asyncListener(async (event) => {
        event.preventDefault();
        await whileSubmitting(submit, confirmation.busy, problem, async () => {
          try {
            await confirmation.act(modal);
          } catch (error) {
            problem.show(error instanceof Error ? error.message : String(error));
          }
        });
      }),
    );
    return [form];
  });
}

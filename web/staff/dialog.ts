import { el } from "./dom.ts";

export interface Modal {
  dialog: HTMLDialogElement;
  close(): void;
}

let opened = 0;

/**
 * A modal `<dialog>`: the browser keeps focus inside it and closes it on Escape; when it closes
 * it leaves the page and focus returns to what opened it (a keyboard user stays in place).
 */
export function openModal(title: string, closeLabel: string, content: (modal: Modal) => Node[]): Modal {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = `dialog-title-${++opened}`;
  const dialog = el("dialog", { class: "modal", "aria-labelledby": titleId });
  // Closed by the page (Claim, Cancel, ×): gone at once, not a task later when the close event fires.
  const leave = () => {
    if (!dialog.isConnected) return;
    dialog.remove();
    if (opener?.isConnected) opener.focus();
  };
  const modal: Modal = {
    dialog,
    close: () => {
      dialog.close();
      leave();
    },
  };
  const head = el(
    "div",
    { class: "modal-head" },
    el("h2", { id: titleId }, title),
    el(
      "button",
      { type: "button", class: "close", "aria-label": closeLabel, title: closeLabel, onclick: () => modal.close() },
      "×",
    ),
  );
  dialog.append(head, ...content(modal));
  // Closed by the browser (Escape).
  dialog.addEventListener("close", leave);
  document.body.append(dialog);
  dialog.showModal();
  // The first field, not the close button, is where the person starts typing.
  dialog.querySelector<HTMLElement>("[autofocus], input:not([type=hidden]):not([readonly]), textarea")?.focus();
  return modal;
}

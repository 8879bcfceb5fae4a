/** Building the pages from elements and text nodes only: nothing the service sends is ever parsed as HTML. */

export type Child = Node | string | null | undefined | false;
type Handler = (event: Event) => void;
export type Props = Record<string, string | number | boolean | null | undefined | Handler>;

/**
 * `el("button", { type: "button", class: "primary", onclick: save }, "Save")`: `on…` props are
 * listeners, `true`/`false` set or leave out a boolean attribute, null and undefined are skipped.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  element.append(
    ...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false),
  );
  return element;
}

/** A labelled form field: label, control, hint (tied by aria-describedby) and a slot for its own error. */
export function field(
  id: string,
  label: string,
  control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement,
  hint?: string,
): HTMLElement {
  control.id = id;
  const hintId = `${id}-hint`;
  if (hint) control.setAttribute("aria-describedby", hintId);
  return el(
    "div",
    { class: "form-field" },
    el("label", { for: id }, label),
    control,
    hint ? el("p", { class: "hint", id: hintId }, hint) : null,
  );
}

/** A `<p role="alert">` that shows a sentence, or nothing. */
export function alertBox(): { element: HTMLParagraphElement; show(text: string | null): void } {
  const element = el("p", { class: "form-error", role: "alert" });
  element.hidden = true;
  return {
    element,
    show(text) {
      element.textContent = text ?? "";
      element.hidden = !text;
    },
  };
}

/**
 * A form's call, with its submit button disabled and saying `busyText` meanwhile (its own text
 * again after), and its alert cleared first; `work` shows its own failures.
 */
export async function whileSubmitting(
  submit: HTMLButtonElement,
  busyText: string,
  problem: { show(text: string | null): void },
  work: () => Promise<void>,
): Promise<void> {
  const idleText = submit.textContent;
  submit.disabled = true;
  submit.textContent = busyText;
  problem.show(null);
  try {
    await work();
  } finally {
    submit.disabled = false;
    submit.textContent = idleText;
  }
}

/** `2026-03-01T11:00:00` → `2026-03-01 11:00` (the service's local date-times, shown as such). */
export const localTime = (dateTime: string) => dateTime.replace("T", " ").slice(0, 16);

import type { Lang } from "../types.ts";
import type { AlertHub } from "./alertStream.ts";
import { el } from "./dom.ts";
import type { Session } from "./session.ts";
import type { StaffApi } from "./staffApi.ts";
import type { StaffTexts } from "./texts.ts";

/** What every staff page gets. */
export interface PageContext {
  api: StaffApi;
  texts: StaffTexts;
  session: Session;
  lang: Lang;
  /** Says a finished action in the live region (read out by screen readers, shown to everyone). */
  announce(text: string): void;
  /** The session's live alert stream (one per signed-in page, shared by the badge and the pages). */
  alerts: AlertHub;
  /** Runs `cleanup` when the person leaves the page (subscriptions, charts). */
  onLeave(cleanup: () => void): void;
  /** Asks `mayLeave` before the person goes to another page of the app; false keeps them here. */
  guardLeave(mayLeave: () => boolean): void;
}

/** A page's frame: its heading (focused when the page opens), an introduction, then its content. */
export function pageFrame(name: string, title: string, intro: string, ...content: Node[]): HTMLElement {
  return el(
    "main",
    { id: "main", class: `page page-${name}`, "data-page": name },
    el("h1", { tabindex: "-1" }, title),
    el("p", { class: "intro" }, intro),
    ...content,
  );
}

/**
 * Fills `box` with what `load` builds. `box.dataset.state` is `loading`, `ready` or `error`
 * (tests and styles read it); a failure shows the service's sentence and a retry button.
 * Calls that overlap (a search typed quickly) are settled in order: only the latest is shown.
 */
export function loader(box: HTMLElement, texts: StaffTexts, load: () => Promise<Node>): () => Promise<void> {
  let latest = 0;
  const run = async (): Promise<void> => {
    const mine = ++latest;
    box.dataset.state = "loading";
    box.setAttribute("aria-busy", "true");
    if (!box.hasChildNodes()) box.append(el("p", { class: "muted" }, texts.loading));
    try {
      const content = await load();
      if (mine !== latest) return;
      box.replaceChildren(content);
      box.dataset.state = "ready";
    } catch (error) {
      if (mine !== latest) return;
      const message = error instanceof Error ? error.message : String(error);
      box.replaceChildren(
        el(
          "div",
          { class: "load-error", role: "alert" },
          el("strong", {}, texts.loadFailed),
          el("p", {}, message),
          el("button", { type: "button", onclick: () => void run() }, texts.retry),
        ),
      );
      box.dataset.state = "error";
    } finally {
      if (mine === latest) box.removeAttribute("aria-busy");
    }
  };
  return run;
}

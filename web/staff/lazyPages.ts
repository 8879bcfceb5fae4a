import type { editorPage } from "./editor/editorPage.ts";
import type { chartPage } from "./chartPage.ts";
import { el } from "./dom.ts";
import type { StaffTexts } from "./texts.ts";

/**
 * Pages whose code is a bundle of its own, loaded when one of them opens, so that the other staff
 * pages carry neither: the report editor (CodeMirror, web/staffEditor.ts) and the patient chart
 * (ECharts, web/staffChart.ts). The server writes each bundle's hashed address into
 * `<body data-…-script>`; the bundle puts its page builder on `window` under its name.
 */
export interface LazyBundles {
  editor: { editorPage: typeof editorPage };
  chart: { chartPage: typeof chartPage };
}

const BUNDLES: { [K in keyof LazyBundles]: { script: string; global: string } } = {
  editor: { script: "editorScript", global: "dialysisHubEditor" },
  chart: { script: "chartScript", global: "dialysisHubChart" },
};

const loading = new Map<keyof LazyBundles, Promise<unknown>>();

/** Registers a bundle's pages (called by the bundle itself). */
export function provideBundle<K extends keyof LazyBundles>(name: K, pages: LazyBundles[K]): void {
  (window as unknown as Record<string, unknown>)[BUNDLES[name].global] = pages;
}

function loadBundle<K extends keyof LazyBundles>(name: K): Promise<LazyBundles[K]> {
  let pending = loading.get(name) as Promise<LazyBundles[K]> | undefined;
  if (!pending) {
    pending = new Promise<LazyBundles[K]>((resolve, reject) => {
      const script = el("script", { src: document.body.dataset[BUNDLES[name].script] ?? "" });
      script.addEventListener("load", () =>
        resolve((window as unknown as Record<string, LazyBundles[K]>)[BUNDLES[name].global]!),
      );
      script.addEventListener("error", () => {
        loading.delete(name);
        script.remove();
        reject(new Error(`${name} bundle`));
      });
      document.head.append(script);
    });
    loading.set(name, pending);
  }
  return pending;
}

/** The page `build` makes once its bundle is here; meanwhile (and if it cannot load) a page that says so. */
export function lazyPage<K extends keyof LazyBundles>(
  name: K,
  texts: StaffTexts,
  build: (pages: LazyBundles[K]) => HTMLElement,
): HTMLElement {
  const slot = el(
    "div",
    { class: "page-slot-inner", "data-state": "loading" },
    el("p", { class: "muted" }, texts.loading),
  );
  const attempt = () => {
    loadBundle(name).then(
      (pages) => {
        if (!slot.isConnected) return; // the person went to another page meanwhile
        const page = build(pages);
        slot.replaceWith(page);
        page.querySelector<HTMLElement>("h1")?.focus();
      },
      () => {
        slot.dataset.state = "error";
        slot.replaceChildren(
          el(
            "div",
            { class: "load-error", role: "alert" },
            el("strong", {}, texts.loadFailed),
            el("p", {}, texts.networkFailed),
            el("button", { type: "button", onclick: attempt }, texts.retry),
          ),
        );
      },
    );
  };
  attempt();
  return slot;
}

import { el } from "./dom.ts";
import type { PageContext } from "./page.ts";
import type { StaffTexts } from "./texts.ts";

export interface EditorModule {
  editorPage(ctx: PageContext, reportId: string | null): HTMLElement;
}

let loading: Promise<EditorModule> | null = null;

/** The editor's bundle, whose address the server wrote into `<body data-editor-script>`; loaded once. */
function loadEditor(): Promise<EditorModule> {
  loading ??= new Promise<EditorModule>((resolve, reject) => {
    const script = el("script", { src: document.body.dataset.editorScript ?? "" });
    script.addEventListener("load", () => resolve((window as unknown as { dialysisHubEditor: EditorModule }).dialysisHubEditor));
    script.addEventListener("error", () => {
      loading = null;
      script.remove();
      reject(new Error("editor bundle"));
    });
    document.head.append(script);
  });
  return loading;
}

/** The editor page once its bundle is here; meanwhile (and if it cannot load) a page that says so. */
export function editorRoute(ctx: PageContext, reportId: string | null, texts: StaffTexts): HTMLElement {
  const slot = el("div", { class: "page-slot-inner", "data-state": "loading" }, el("p", { class: "muted" }, texts.loading));
  const attempt = () => {
    loadEditor().then(
      (editor) => {
        if (!slot.isConnected) return; // the person went to another page meanwhile
        const page = editor.editorPage(ctx, reportId);
        slot.replaceWith(page);
        page.querySelector<HTMLElement>("h1")?.focus();
      },
      () => {
        slot.dataset.state = "error";
        slot.replaceChildren(el("div", { class: "load-error", role: "alert" }, el("strong", {}, texts.loadFailed), el("p", {}, texts.networkFailed), el("button", { type: "button", onclick: attempt }, texts.retry)));
      },
    );
  };
  attempt();
  return slot;
}

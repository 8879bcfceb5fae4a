import type { Api } from "./api.ts";
import type { Texts } from "./i18n.ts";
import type { StrippedSpec } from "./types.ts";
import { asyncListener } from "./asyncListener.ts";

const FORMATS = [
  { format: "xlsx", label: (t: Texts) => t.exportXlsx },
  { format: "docx", label: (t: Texts) => t.exportDocx },
] as const;

/**
 * The export buttons of a layer — one per format the spec leaves switched on (`export.xlsx`,
 * `export.docx`, both default true). A click POSTs the layer's body with the page's language and
 * saves the file under the server's name (`filename*`).
 */
export function exportButtons(
  api: Api,
  texts: Texts,
  spec: StrippedSpec,
  body: () => object,
  title: () => string,
): HTMLElement {
  const bar = document.createElement("div");
  bar.className = "exports";
  const status = document.createElement("span");
  status.className = "export-status";
  status.setAttribute("role", "status");
  for (const { format, label } of FORMATS) {
    if (spec.export?.[format] === false) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = `export export-${format}`;
    button.dataset.format = format;
    button.textContent = label(texts);
    button.addEventListener(
      "click",
      asyncListener(async () => {
        button.disabled = true;
        status.textContent = texts.exporting;
        status.classList.remove("failed");
        try {
          // The file's own words (headings, notes) follow the page's language.
          await api.download(`/export/${format}`, { ...body(), lang: texts.lang }, `${title()}.${format}`);
          status.textContent = "";
        } catch (error) {
          status.textContent = `${texts.exportFailed}: ${error instanceof Error ? error.message : String(error)}`;
          status.classList.add("failed");
        } finally {
          button.disabled = false;
        }
      }),
    );
    bar.append(button);
  }
  bar.append(status);
  if (bar.querySelectorAll("button").length === 0) bar.hidden = true;
  return bar;
}

import { failureOf, fileNameOf, saveBlob } from "../api.ts";
import { el } from "./dom.ts";
import type { PageContext } from "./page.ts";
import { credentialsOf } from "./session.ts";
import { segment } from "./staffApi.ts";

/**
 * "Patient's copy": an administrator downloads the zip of the patient's own data that the patient
 * may ask for (contract G.1, PIPL art. 45; `GET /api/patients/{ref}/copy`). Fetched with the
 * session's credentials, not followed as a link: a link carries neither a token nor the tenant.
 * The service streams the zip; the browser keeps it until it is saved.
 */
export function patientCopyButton(ctx: PageContext, patientRef: string): HTMLButtonElement {
  const { texts } = ctx;
  const button = el(
    "button",
    { type: "button", class: "patient-copy-button", title: texts.patientCopyHint },
    texts.patientCopy,
  );
  button.addEventListener("click", () => {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    button.textContent = texts.patientCopyPreparing;
    void download(ctx, patientRef).finally(() => {
      button.disabled = false;
      button.removeAttribute("aria-busy");
      button.textContent = texts.patientCopy;
    });
  });
  return button;
}

async function download(ctx: PageContext, patientRef: string): Promise<void> {
  const { texts } = ctx;
  const own = credentialsOf(ctx.session, "GET");
  try {
    const response = await fetch(`/api/patients/${segment(patientRef)}/copy`, {
      headers: own.headers,
      credentials: own.credentials,
      cache: "no-store",
    });
    if (!response.ok) {
      ctx.announce(texts.patientCopyFailed((await failureOf(response, texts)).sentence));
      return;
    }
    const name = fileNameOf(response.headers.get("content-disposition")) ?? `${patientRef}.zip`;
    saveBlob(await response.blob(), name);
    ctx.announce(texts.patientCopySaved(name));
  } catch {
    // The network failed, or the service cut the download part way (a fault while it was written).
    ctx.announce(texts.patientCopyFailed(texts.networkFailed));
  }
}

import { alertBox, el, field, whileSubmitting } from "./dom.ts";
import type { Session } from "./session.ts";
import { ApiError, createStaffApi } from "./staffApi.ts";
import type { StaffTexts } from "./texts.ts";

const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface SignInOptions {
  texts: StaffTexts;
  /** The tenant the page was served for; `fixed` when the reverse proxy set it. */
  tenant: string;
  tenantFixed: boolean;
  /** Why the person is here again (a session the service stopped accepting). */
  message?: string | null;
  onSignedIn(session: Session): void;
}

/**
 * What a refused sign-in says: our sentence for the status; for a 403 also the service's own,
 * which names the tenant the token belongs to.
 */
export function rejectionText(texts: StaffTexts, error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 401) return texts.rejected401;
  if (error.status === 403) return `${texts.rejected403}\n${error.message}`;
  return error.message;
}

/**
 * The sign-in step: a token and the tenant, checked by one call that needs an author
 * (`GET /api/unmatched`) before anything is kept, so a wrong token is said at once.
 */
export function signInPage(options: SignInOptions): HTMLElement {
  const { texts } = options;
  const token = el("input", { type: "password", name: "token", autocomplete: "off", spellcheck: "false", required: true, autofocus: true });
  const tenant = el("input", { type: "text", name: "tenant", value: options.tenant, autocomplete: "off", spellcheck: "false", required: true, readonly: options.tenantFixed });
  const submit = el("button", { type: "submit", class: "primary" }, texts.signIn);
  const problem = alertBox();
  problem.show(options.message ?? null);

  const form = el(
    "form",
    { class: "sign-in-form", novalidate: true },
    field("sign-in-token", texts.token, token, texts.tokenHint),
    field("sign-in-tenant", texts.tenant, tenant, options.tenantFixed ? texts.tenantFixed : texts.tenantHint),
    problem.element,
    el("div", { class: "form-actions" }, submit),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const session: Session = { token: token.value.trim(), tenant: tenant.value.trim() };
    if (!session.token) return fail(texts.tokenMissing, token);
    if (!TENANT_PATTERN.test(session.tenant)) return fail(texts.tenantInvalid, tenant);
    await whileSubmitting(submit, texts.signingIn, problem, async () => {
      try {
        await createStaffApi(session, texts).get("/api/unmatched");
        options.onSignedIn(session);
      } catch (error) {
        fail(rejectionText(texts, error), token);
      }
    });
  });
  function fail(text: string, focus: HTMLInputElement): void {
    problem.show(text);
    focus.setAttribute("aria-invalid", "true");
    focus.focus();
    token.addEventListener("input", () => token.removeAttribute("aria-invalid"), { once: true });
    tenant.addEventListener("input", () => tenant.removeAttribute("aria-invalid"), { once: true });
  }

  return el(
    "main",
    { class: "sign-in", id: "main", "data-page": "sign-in" },
    el("h1", { tabindex: "-1" }, texts.signInTitle),
    el("p", { class: "intro" }, texts.signInIntro),
    form,
  );
}

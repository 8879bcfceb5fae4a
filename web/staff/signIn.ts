import type { callerAnswer } from "../../src/credentials/callerRoutes.ts";
import type { z } from "zod";
import { alertBox, el, field, whileSubmitting } from "./dom.ts";
import { isStaffRole } from "../../commands/credentials/staffRoleRanks.ts";
import type { Caller, Session, StoredToken } from "./session.ts";
import { ApiError, createStaffApi } from "./staffApi.ts";
import type { StaffTexts } from "./texts.ts";
import { asyncListener } from "../asyncListener.ts";

const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface SignInOptions {
  texts: StaffTexts;
  /** The tenant the page was served for; `fixed` when the reverse proxy set it. */
  tenant: string;
  tenantFixed: boolean;
  /** Why the person is here again (a session the service stopped accepting). */
  message?: string | null;
  /** The hospital's identity provider, when staff sign in through it (contract E.1): its name, and where the button goes. */
  provider: { name: string; loginUrl: string } | null;
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

/** Who a token is (`GET /api/me`): a wrong, expired or other tenant's token fails here, before anything is kept. */
export async function signInWithToken(stored: StoredToken, texts: StaffTexts): Promise<Session> {
  const unknown: Caller = { who: "", roles: [], wards: null };
  const me = await createStaffApi({ kind: "token", ...stored, caller: unknown }, texts).get<
    z.infer<typeof callerAnswer>
  >("/api/me");
  return { kind: "token", ...stored, caller: { who: me.who, roles: me.roles.filter(isStaffRole), wards: me.wards } };
}

/**
 * The sign-in step: "Sign in with <provider>" when the hospital's identity provider is
 * configured, and a personal access token with its tenant (made by an administrator on the
 * Credentials page; for deployments without a provider, and systems), checked by `GET /api/me`
 * before anything is kept, so a wrong token is said at once. It never names a command line: the
 * people signing in here are nurses and doctors (issue #54).
 */
export function signInPage(options: SignInOptions): HTMLElement {
  const { texts } = options;
  const token = el("input", {
    type: "password",
    name: "token",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    autofocus: !options.provider,
  });
  const tenant = el("input", {
    type: "text",
    name: "tenant",
    value: options.tenant,
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    readonly: options.tenantFixed,
  });
  const submit = el("button", { type: "submit", class: "primary" }, texts.signIn);
  const problem = alertBox();
  // Why the person is here again: in the form when it is the only way in, else above both ways.
  if (!options.provider) problem.show(options.message ?? null);

  const form = el(
    "form",
    { class: "sign-in-form", novalidate: true },
    field("sign-in-token", texts.token, token, texts.tokenHint),
    field("sign-in-tenant", texts.tenant, tenant, options.tenantFixed ? texts.tenantFixed : texts.tenantHint),
    problem.element,
    el("div", { class: "form-actions" }, submit),
    el("p", { class: "hint sign-in-operator" }, texts.signInOperator),
  );
  form.addEventListener(
    "submit",
    asyncListener(async (event) => {
      event.preventDefault();
      const stored: StoredToken = { token: token.value.trim(), tenant: tenant.value.trim() };
      if (!stored.token) return fail(texts.tokenMissing, token);
      if (!TENANT_PATTERN.test(stored.tenant)) return fail(texts.tenantInvalid, tenant);
      await whileSubmitting(submit, texts.signingIn, problem, async () => {
        try {
          options.onSignedIn(await signInWithToken(stored, texts));
        } catch (error) {
          fail(rejectionText(texts, error), token);
        }
      });
    }),
  );
  function fail(text: string, focus: HTMLInputElement): void {
    problem.show(text);
    focus.setAttribute("aria-invalid", "true");
    focus.focus();
    token.addEventListener("input", () => token.removeAttribute("aria-invalid"), { once: true });
    tenant.addEventListener("input", () => tenant.removeAttribute("aria-invalid"), { once: true });
  }

  if (!options.provider) {
    return el(
      "main",
      { class: "sign-in", id: "main", "data-page": "sign-in" },
      el("h1", { tabindex: "-1" }, texts.signInTitle),
      el("p", { class: "intro" }, texts.signInIntro),
      form,
    );
  }
  // People sign in at the hospital's provider; the token form stays, folded, for systems and for the operator.
  return el(
    "main",
    { class: "sign-in", id: "main", "data-page": "sign-in" },
    el("h1", { tabindex: "-1" }, texts.signInTitle),
    options.message ? el("p", { class: "form-error", role: "alert" }, options.message) : null,
    el("p", { class: "intro" }, texts.signInWithHint),
    el(
      "p",
      { class: "sign-in-actions" },
      el(
        "a",
        { class: "button-link primary sign-in-provider", href: options.provider.loginUrl, autofocus: true },
        texts.signInWith(options.provider.name),
      ),
    ),
    el(
      "details",
      { class: "sign-in-token" },
      el("summary", {}, texts.orWithToken),
      el("p", { class: "intro" }, texts.signInIntro),
      form,
    ),
  );
}

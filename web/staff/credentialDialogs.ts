import type { z } from "zod";
import type { issuedAuthorToken } from "../../commands/credentials/authors.ts";
import type { issuedClientKey } from "../../commands/credentials/clients.ts";
import type { CredentialKind } from "./credentialsTexts.ts";
import { confirmDialog } from "./confirmDialog.ts";
import { openModal, type Modal } from "./dialog.ts";
import { alertBox, el, field, whileSubmitting } from "./dom.ts";
import type { PageContext } from "./page.ts";
import type { StaffRole } from "./session.ts";
import { segment } from "./staffApi.ts";
import { asyncListener } from "../asyncListener.ts";

/** A personal access token (an "author token" of the API) or a laboratory key, as `GET /api/admin/authors` and `…/clients` list them (contract E.3). */
export interface Credential {
  kind: CredentialKind;
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** After a rotation, until when the former secret still works; null when none does. */
  formerValidUntil: string | null;
  /** An author's roles; null for a laboratory key. */
  roles: string[] | null;
  /** An author's wards; null: every ward (and always for a laboratory key). */
  wards: string[] | null;
}

export const CREDENTIAL_PATHS: Record<CredentialKind, string> = {
  author: "/api/admin/authors",
  client: "/api/admin/clients",
};

/** What the page does after a dialog changed a credential, and when a dialog closes. */
export interface CredentialChanges {
  /** Reads both lists again and says `text`. */
  changed(kind: CredentialKind, id: string, text: string): Promise<void>;
  /** Gives the focus back to the row of `id` (or its section) when it was lost with a rebuilt table. */
  refocus(kind: CredentialKind, id: string | null): void;
}

/** What `POST` (and `…/rotate`) answers: the secret, this once. */
type Issued = z.infer<typeof issuedAuthorToken> | z.infer<typeof issuedClientKey>;
const issuedId = (issued: Issued) => ("authorId" in issued ? issued.authorId : issued.clientId);
const issuedSecret = (issued: Issued) => ("token" in issued ? issued.token : issued.key);

/**
 * Who a personal access token can be for, the most usual first (issue #54): a nurse or doctor
 * (clinician, with her wards), a report author, an administrator, someone who only views reports, a
 * researcher, an integration engineer (the received messages, contract G.5). One role each: every
 * ranked role allows what the ones below it do (contract E.2).
 */
const ROLES: readonly StaffRole[] = ["clinician", "author", "admin", "viewer", "researcher", "integrator"];
const MAX_DAYS = 36_500;
const MAX_OVERLAP_HOURS = 720;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Marks `input` as the one to fix, takes the person there and says why. */
function invalid(input: HTMLInputElement, text: string, problem: { show(text: string | null): void }): void {
  input.setAttribute("aria-invalid", "true");
  input.focus();
  problem.show(text);
}

/** `3A, 3B 4C` → ["3A", "3B", "4C"]: commas (either width), semicolons or spaces between, each ward once. */
export function wardsIn(text: string): string[] {
  return [...new Set(text.split(/[\s,，、;；]+/).filter(Boolean))];
}

/**
 * A new secret in the dialog that made it, in place of its form: read-only, with a Copy button
 * and the warning that it is not shown again. Closing the dialog removes it from the page.
 */
function showSecret(
  ctx: PageContext,
  modal: Modal,
  form: HTMLElement,
  kind: CredentialKind,
  name: string,
  secret: string,
): void {
  const { texts } = ctx;
  const value = el("input", {
    type: "text",
    class: "secret-value",
    readonly: true,
    value: secret,
    spellcheck: "false",
    autocomplete: "off",
    "aria-describedby": "credential-secret-warning",
  });
  value.id = "credential-secret";
  const status = el("p", { class: "copy-status hint", role: "status" });
  const copy = el("button", { type: "button", class: "copy", "aria-label": texts.copySecret(kind) }, texts.copy);
  copy.addEventListener(
    "click",
    asyncListener(async () => {
      status.textContent = (await copied(value)) ? texts.copied : texts.copyFailed;
    }),
  );
  form.replaceWith(
    el(
      "div",
      { class: "secret-shown", "data-kind": kind },
      el("p", { class: "secret-warning", id: "credential-secret-warning" }, el("strong", {}, texts.secretOnce(kind))),
      el(
        "div",
        { class: "form-field" },
        el("label", { for: value.id }, texts.newSecret(kind, name)),
        el("div", { class: "secret-row" }, value, copy),
      ),
      status,
      el(
        "div",
        { class: "form-actions" },
        el("button", { type: "button", class: "primary done", onclick: () => modal.close() }, texts.secretDone),
      ),
    ),
  );
  value.focus();
  value.select();
}

/** Copies the secret: the clipboard API where the page may use it, else the selection (older browsers, plain http). */
async function copied(input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    input.focus();
    input.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

/**
 * Who a new personal access token is for, as a choice of one role (a ward nurse: a clinician), and
 * the wards whose patients it sees; a ward-limited administrator's wards are offered and required
 * (contract E.2).
 */
function tokenGrants(ctx: PageContext) {
  const { texts } = ctx;
  const limited = ctx.session.caller.wards;
  const choices = ROLES.map((role) =>
    el("input", {
      type: "radio",
      name: "role",
      value: role,
      id: `credential-role-${role}`,
      checked: role === "clinician",
      "aria-describedby": `credential-role-${role}-hint`,
    }),
  );
  const roles = el(
    "fieldset",
    { class: "roles-field" },
    el("legend", {}, texts.rolesLegend),
    ...ROLES.map((role, i) =>
      el(
        "div",
        { class: "form-field checkbox role-choice" },
        choices[i]!,
        el("label", { for: choices[i]!.id }, texts.roleChoices[role]),
        el("p", { class: "hint", id: `${choices[i]!.id}-hint` }, texts.roleHints[role]),
      ),
    ),
  );
  const wards = el("input", {
    type: "text",
    name: "wards",
    maxlength: 2000,
    autocomplete: "off",
    spellcheck: "false",
    required: limited !== null,
    value: limited?.join(", "),
  });
  const wardsField = limited
    ? field("credential-wards", texts.wards, wards, texts.wardsHintLimited(limited.join(", ")))
    : field("credential-wards", texts.wardsOptional, wards, texts.wardsHint);
  return {
    roles,
    wards: wardsField,
    inputs: [...choices, wards],
    /** The grants as the service takes them, or the field to fix and why. */
    read(): { grants: { roles: StaffRole[]; wards?: string[] } } | { input: HTMLInputElement; text: string } {
      const chosen = ROLES.filter((_, i) => choices[i]!.checked);
      if (chosen.length === 0) return { input: choices[0]!, text: texts.rolesMissing };
      const named = wardsIn(wards.value);
      if (limited) {
        if (named.length === 0) return { input: wards, text: texts.wardsRequired(limited.join(", ")) };
        const outside = named.filter((ward) => !limited.includes(ward));
        if (outside.length > 0)
          return { input: wards, text: texts.wardsOutside(outside.join(", "), limited.join(", ")) };
      }
      return { grants: named.length > 0 ? { roles: chosen, wards: named } : { roles: chosen } };
    },
  };
}

/** Days until a credential expires: nothing (it does not), a number above 0, or null when the field holds something else. */
function daysIn(input: HTMLInputElement): { days?: number } | null {
  if (input.validity.badInput) return null;
  if (input.value.trim() === "") return {};
  const days = input.valueAsNumber;
  return days > 0 && days <= MAX_DAYS ? { days } : null;
}

/** A new personal access token (name, who it is for, wards, expiry) or laboratory key (name, expiry) of the signed-in tenant; its secret is shown once. */
export function createDialog(ctx: PageContext, kind: CredentialKind, changes: CredentialChanges): void {
  const { texts } = ctx;
  const name = el("input", { type: "text", name: "name", maxlength: 100, autocomplete: "off", required: true });
  const days = el("input", {
    type: "number",
    name: "expiresInDays",
    min: 0,
    max: MAX_DAYS,
    step: "any",
    inputmode: "decimal",
  });
  const grants = kind === "author" ? tokenGrants(ctx) : null;
  const problem = alertBox();
  const submit = el("button", { type: "submit", class: "primary" }, texts.create);
  let createdId: string | null = null;

  openModal(texts.newCredentialTitle[kind], texts.close, (modal) => {
    const form = el(
      "form",
      { class: `create-form create-${kind}`, novalidate: true },
      // A token starts from whom it is for (a ward nurse, an author …), then her name and wards.
      grants?.roles ?? null,
      field("credential-name", texts.credName, name, texts.credNameHint[kind]),
      grants?.wards ?? null,
      field("credential-days", texts.expiresInDays, days, texts.expiresInDaysHint),
      problem.element,
      el(
        "div",
        { class: "form-actions" },
        el("button", { type: "button", onclick: () => modal.close() }, texts.cancel),
        submit,
      ),
    );
    form.addEventListener(
      "submit",
      asyncListener(async (event) => {
        event.preventDefault();
        for (const input of [name, days, ...(grants?.inputs ?? [])]) input.removeAttribute("aria-invalid");
        if (!name.value.trim()) return invalid(name, texts.fieldMissing(texts.credName), problem);
        const granted = grants ? grants.read() : { grants: {} };
        if ("input" in granted) return invalid(granted.input, granted.text, problem);
        const expiry = daysIn(days);
        if (!expiry) return invalid(days, texts.expiresInDaysInvalid, problem);
        const body = {
          name: name.value.trim(),
          tenant: ctx.session.tenant,
          ...granted.grants,
          ...(expiry.days === undefined ? {} : { expiresInDays: expiry.days }),
        };
        await whileSubmitting(submit, texts.creating, problem, async () => {
          try {
            const issued = await ctx.api.post<Issued>(CREDENTIAL_PATHS[kind], body);
            createdId = issuedId(issued);
            showSecret(ctx, modal, form, kind, body.name, issuedSecret(issued));
            await changes.changed(kind, createdId, texts.created(kind, body.name));
          } catch (error) {
            problem.show(messageOf(error));
          }
        });
      }),
    );
    modal.dialog.addEventListener("close", () => changes.refocus(kind, createdId));
    return [form];
  });
}

/** A new secret for a credential, the former one working on for the overlap the person chooses (default 24 hours). */
export function rotateDialog(ctx: PageContext, credential: Credential, changes: CredentialChanges): void {
  const { texts } = ctx;
  const { kind, id, name } = credential;
  const hours = el("input", {
    type: "number",
    name: "overlapHours",
    min: 0,
    max: MAX_OVERLAP_HOURS,
    step: "any",
    inputmode: "decimal",
    required: true,
    value: 24,
  });
  const problem = alertBox();
  const submit = el("button", { type: "submit", class: "primary" }, texts.rotateButton);
  openModal(texts.rotateFor(kind, name), texts.close, (modal) => {
    const form = el(
      "form",
      { class: "rotate-form", novalidate: true },
      el("p", {}, texts.rotateIntro(kind)),
      field("credential-overlap", texts.overlapHours, hours, texts.overlapHoursHint),
      problem.element,
      el(
        "div",
        { class: "form-actions" },
        el("button", { type: "button", onclick: () => modal.close() }, texts.cancel),
        submit,
      ),
    );
    form.addEventListener(
      "submit",
      asyncListener(async (event) => {
        event.preventDefault();
        hours.removeAttribute("aria-invalid");
        const overlapHours = hours.valueAsNumber;
        if (hours.validity.badInput || !(overlapHours >= 0 && overlapHours <= MAX_OVERLAP_HOURS))
          return invalid(hours, texts.overlapHoursInvalid, problem);
        await whileSubmitting(submit, texts.rotating, problem, async () => {
          try {
            const issued = await ctx.api.post<Issued>(`${CREDENTIAL_PATHS[kind]}/${segment(id)}/rotate`, {
              overlapHours,
            });
            showSecret(ctx, modal, form, kind, name, issuedSecret(issued));
            await changes.changed(kind, id, texts.rotated(kind, name, overlapHours));
          } catch (error) {
            problem.show(messageOf(error));
          }
        });
      }),
    );
    modal.dialog.addEventListener("close", () => changes.refocus(kind, id));
    return [form];
  });
}

/** Asks before a credential is revoked (it is refused from the next call on, and cannot be restored). */
export function revokeDialog(ctx: PageContext, credential: Credential, changes: CredentialChanges): void {
  const { texts } = ctx;
  const { kind, id, name } = credential;
  const modal = confirmDialog(ctx, {
    title: texts.revokeFor(kind, name),
    intro: texts.revokeIntro(kind, name),
    button: texts.revokeButton,
    busy: texts.revoking,
    danger: true,
    formClass: "revoke-form",
    act: async (modal) => {
      await ctx.api.delete(`${CREDENTIAL_PATHS[kind]}/${segment(id)}`);
      modal.close();
      await changes.changed(kind, id, texts.revoked(kind, name));
    },
  });
  modal.dialog.addEventListener("close", () => changes.refocus(kind, id));
}

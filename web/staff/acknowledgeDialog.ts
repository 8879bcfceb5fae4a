import { asyncListener } from "../asyncListener.ts";
import { openModal } from "./dialog.ts";
import { alertBox, el, field, localTime, whileSubmitting } from "./dom.ts";
import { NOTIFIED_ROLES } from "./escalationTexts.ts";
import type { PageContext } from "./page.ts";
import { may } from "./session.ts";
import { ApiError, segment } from "./staffApi.ts";
import type { StaffTexts } from "./texts.ts";
import type { Alert, EscalationPolicyAnswer } from "./types.ts";

/**
 * Whether this page has been told, by a 422 read-back-required, that the tenant asks for a
 * read-back (decision 0085): a nurse may not read the policy, so her first acknowledgement
 * learns it and the later ones of the page ask for the read-back from the start.
 */
let readBackLearned = false;

/** Whether to ask for a read-back from the start: an admin reads the policy, others go by what the page learned. */
async function readBackAsked(ctx: PageContext): Promise<boolean> {
  if (readBackLearned || !may(ctx.session, "admin")) return readBackLearned;
  try {
    return (await ctx.api.get<EscalationPolicyAnswer>("/api/alerts/escalation")).readBackRequired;
  } catch {
    return false; // the acknowledgement's 422 asks for it all the same
  }
}

const inUnit = (value: number | string, unit: string | null) => `${value}${unit ? ` ${unit}` : ""}`;

/** A field's own error, beside it, tied to the control by aria-describedby. */
function fieldError(control: HTMLInputElement | HTMLSelectElement) {
  const box = alertBox();
  box.element.id = `${control.id}-error`;
  // Not .form-error: the dialog's own sentence stays the one .form-error of the form.
  box.element.className = "field-error";
  const describedBy = (control.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
  control.setAttribute("aria-describedby", [...describedBy, box.element.id].join(" "));
  return {
    element: box.element,
    show(text: string | null) {
      box.show(text);
      if (text) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    },
  };
}

/** The read-back part of the dialog (contract G.3): the value as read back, in the alert's unit, and who was told. */
function readBackFields(texts: StaffTexts, alert: Alert) {
  const value = el("input", { type: "text", inputmode: "decimal", autocomplete: "off", maxlength: 100 });
  const name = el("input", { type: "text", autocomplete: "off", maxlength: 200 });
  const role = el(
    "select",
    {},
    ...[...NOTIFIED_ROLES, "other" as const].map((key) => el("option", { value: key }, texts.notifiedRoles[key])),
  );
  const otherRole = el("input", { type: "text", autocomplete: "off", maxlength: 100 });
  const valueField = field("read-back-value", texts.readBackValue, value, texts.readBackHint(String(alert.value)));
  const nameField = field("notified-name", texts.notifiedName, name, texts.notifiedNameHint);
  const otherField = field("notified-role-other", texts.notifiedOtherRole, otherRole);
  // The unit beside the box, so that the value is read back in it.
  if (alert.unit) {
    const wrap = el("span", { class: "with-unit" });
    value.replaceWith(wrap);
    wrap.append(value, el("span", { class: "unit", id: "read-back-value-unit" }, alert.unit));
    value.setAttribute(
      "aria-describedby",
      `read-back-value-unit ${value.getAttribute("aria-describedby") ?? ""}`.trim(),
    );
  }
  // After field(), which ties each control to its hint: the errors are tied beside it.
  const errors = { value: fieldError(value), name: fieldError(name), otherRole: fieldError(otherRole) };
  valueField.append(errors.value.element);
  nameField.append(errors.name.element);
  otherField.append(errors.otherRole.element);
  otherField.hidden = true;
  role.addEventListener("change", () => (otherField.hidden = role.value !== "other"));
  const fieldset = el(
    "fieldset",
    { class: "read-back" },
    el("legend", {}, texts.readBackLegend),
    el("p", { class: "intro" }, texts.readBackIntro),
    valueField,
    nameField,
    field("notified-role", texts.notifiedRole, role),
    otherField,
  );
  return {
    fieldset,
    value,
    errors,
    /** What was entered, or the first field left empty (its error shown and focused). */
    read(): { readBack: { value: string }; notified: { name: string; role: string } } | null {
      Object.values(errors).forEach((error) => error.show(null));
      const said = value.value.trim();
      const who = name.value.trim();
      const as = role.value === "other" ? otherRole.value.trim() : role.value;
      const missing: Array<[boolean, { show(text: string): void }, HTMLElement, string]> = [
        [!said, errors.value, value, texts.readBackMissing],
        [!who, errors.name, name, texts.notifiedNameMissing],
        [!as, errors.otherRole, otherRole, texts.notifiedOtherRoleMissing],
      ];
      const first = missing.find(([empty]) => empty);
      if (!first) return { readBack: { value: said }, notified: { name: who, role: as } };
      first[1].show(first[3]);
      first[2].focus();
      return null;
    },
  };
}

/**
 * Acknowledging a critical or delta alert: what was done, and where the tenant asks for it
 * (contract G.3) the value read back and who was told. A value that does not match is said beside
 * its field in the page's language, and the dialog stays open to read it back again.
 */
export async function acknowledgeDialog(ctx: PageContext, alert: Alert, reload: () => Promise<void>): Promise<void> {
  const { texts } = ctx;
  const patient = alert.patientName ?? alert.patientRef;
  const item = texts.itemTitle(alert);
  const flagged = `${inUnit(alert.value, alert.unit)}${alert.flag ? ` (${alert.flag})` : ""}`;
  const change = alert.delta
    ? [" · ", texts.alsoDelta, " ", `${alert.delta.change > 0 ? "+" : ""}${inUnit(alert.delta.change, alert.unit)}`]
    : [];
  const asked = alert.kind === "CRITICAL" && (await readBackAsked(ctx));
  const note = el("textarea", { name: "acknowledge-note", rows: 3, maxlength: 1000, required: true });
  const readBack = readBackFields(texts, alert);
  readBack.fieldset.hidden = !asked;
  const problem = alertBox();
  const submit = el("button", { type: "submit", class: "primary" }, texts.acknowledge);
  const cancel = el("button", { type: "button" }, texts.cancel);
  openModal(texts.acknowledgeTitle(patient, item), texts.close, (modal) => {
    const form = el(
      "form",
      { class: "acknowledge-form", novalidate: true },
      el(
        "p",
        { class: alert.kind === "DELTA" ? "critical-summary delta-summary" : "critical-summary" },
        el("strong", {}, `${item} ${flagged}`),
        " · ",
        texts.reasons(alert.reason),
        ...(alert.kind === "CRITICAL" ? change : []),
        " · ",
        localTime(alert.raisedAt),
      ),
      el("p", { class: "intro" }, texts.acknowledgeIntro),
      readBack.fieldset,
      field("acknowledge-note", texts.note, note, texts.noteHint),
      problem.element,
      el("div", { class: "form-actions" }, cancel, submit),
    );
    cancel.addEventListener("click", () => modal.close());
    form.addEventListener(
      "submit",
      asyncListener(async (event) => {
        event.preventDefault();
        problem.show(null);
        const told = readBack.fieldset.hidden ? {} : readBack.read();
        if (told === null) return;
        if (!note.value.trim()) {
          note.setAttribute("aria-invalid", "true");
          note.focus();
          return problem.show(texts.noteMissing);
        }
        note.removeAttribute("aria-invalid");
        await whileSubmitting(submit, texts.acknowledging, problem, async () => {
          try {
            await ctx.api.post(`/api/alerts/${segment(alert.alertId)}/acknowledge`, {
              note: note.value.trim(),
              ...told,
            });
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            const code = error instanceof ApiError ? error.code : undefined;
            if (code === "read-back-required") {
              readBackLearned = true;
              readBack.fieldset.hidden = false;
              problem.show(message);
              readBack.value.focus();
            } else if (code === "read-back-mismatch") {
              readBack.errors.value.show(message);
              readBack.value.focus();
              readBack.value.select();
            } else problem.show(message);
            return;
          }
          modal.close();
          ctx.announce(texts.acknowledged(patient, item));
          await reload();
        });
      }),
    );
    return [form];
  });
}

import { openModal } from "./dialog.ts";
import { alertBox, el, field, whileSubmitting } from "./dom.ts";
import type { PageContext } from "./page.ts";
import { ApiError, segment } from "./staffApi.ts";
import type { PatientInput, PatientListEntry } from "./types.ts";
import { asyncListener } from "../asyncListener.ts";

const PATIENT_REF_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Register a patient, or edit one (`PUT /api/patients/{patientRef}`). The list shows id cards
 * masked and the service never sends one whole, so an edit asks for the whole number again
 * rather than saving the masked one.
 */
export function patientForm(ctx: PageContext, existing: PatientListEntry | null, onSaved: () => Promise<void>): void {
  const { texts } = ctx;
  const patientRef = el("input", {
    type: "text",
    name: "patientRef",
    maxlength: 64,
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    readonly: existing !== null,
    value: existing?.patientRef,
  });
  const name = el("input", {
    type: "text",
    name: "name",
    maxlength: 100,
    autocomplete: "off",
    required: true,
    value: existing?.name,
  });
  const idCard = el("input", {
    type: "text",
    name: "idCard",
    maxlength: 18,
    autocomplete: "off",
    spellcheck: "false",
    inputmode: "text",
    required: true,
    placeholder: existing?.idCard,
  });
  const hisPatientId = el("input", {
    type: "text",
    name: "hisPatientId",
    maxlength: 64,
    autocomplete: "off",
    value: existing?.hisPatientId ?? undefined,
  });
  const ward = el("input", {
    type: "text",
    name: "ward",
    maxlength: 64,
    autocomplete: "off",
    value: existing?.ward ?? undefined,
  });
  const active = el("input", { type: "checkbox", name: "active", checked: existing?.active ?? true });
  const problem = alertBox();
  const submit = el("button", { type: "submit", class: "primary" }, texts.save);

  openModal(existing ? texts.editTitle(existing.patientRef) : texts.registerTitle, texts.close, (modal) => {
    const form = el(
      "form",
      { class: "patient-form", novalidate: true },
      field("patient-ref", texts.patientRef, patientRef, existing ? undefined : texts.patientRefHint),
      field("patient-name", texts.name, name),
      field(
        "patient-id-card",
        texts.idCard,
        idCard,
        existing ? texts.idCardReenter(existing.idCard) : texts.idCardHint,
      ),
      field("patient-his", texts.hisPatientId, hisPatientId),
      field("patient-ward", texts.ward, ward),
      el("div", { class: "form-field checkbox" }, active, el("label", { for: "patient-active" }, texts.active)),
      problem.element,
      el(
        "div",
        { class: "form-actions" },
        el("button", { type: "button", onclick: () => modal.close() }, texts.cancel),
        submit,
      ),
    );
    active.id = "patient-active";
    form.addEventListener(
      "submit",
      asyncListener(async (event) => {
        event.preventDefault();
        for (const input of [patientRef, name, idCard]) input.removeAttribute("aria-invalid");
        const missing = (
          [
            [patientRef, texts.patientRef],
            [name, texts.name],
            [idCard, texts.idCard],
          ] as const
        ).find(([input]) => !input.value.trim());
        if (missing) return invalid(missing[0], texts.fieldMissing(missing[1]));
        if (!PATIENT_REF_PATTERN.test(patientRef.value.trim())) return invalid(patientRef, texts.patientRefHint);
        const body: PatientInput = {
          name: name.value.trim(),
          idCard: idCard.value.trim(),
          hisPatientId: hisPatientId.value.trim() || null,
          ward: ward.value.trim() || null,
          active: active.checked,
        };
        await whileSubmitting(submit, texts.saving, problem, async () => {
          try {
            const saved = await ctx.api.put<PatientListEntry>(
              `/api/patients/${segment(patientRef.value.trim())}`,
              body,
            );
            modal.close();
            ctx.announce(texts.saved(saved.patientRef, saved.name));
            await onSaved();
          } catch (error) {
            // The service's code (or its sentence, `idCard …`) names the field: mark the id card, the usual culprit, when it is the one.
            const message = error instanceof Error ? error.message : String(error);
            const code = error instanceof ApiError ? error.code : undefined;
            if (code === "id-card-invalid" || code === "id-card-taken" || /idCard/.test(message))
              idCard.setAttribute("aria-invalid", "true");
            problem.show(message);
          }
        });
      }),
    );
    function invalid(input: HTMLInputElement, text: string): void {
      input.setAttribute("aria-invalid", "true");
      input.focus();
      problem.show(text);
    }
    return [form];
  });
}

import { el } from "./dom.ts";
import { loader, type PageContext } from "./page.ts";
import type { PatientListEntry } from "./types.ts";

export interface PatientPicker {
  element: HTMLElement;
  /** The chosen patient, or null. */
  chosen(): PatientListEntry | null;
}

let pickers = 0;

/**
 * Find a patient by name, patientRef, HIS id or the visible part of the id card
 * (`GET /api/patients?q=`), and choose one from the answers (radio buttons: arrow keys move).
 * `onChoose` hears each choice, and null when a new search drops it.
 */
export function patientPicker(
  ctx: PageContext,
  initialSearch: string,
  onChoose: (patient: PatientListEntry | null) => void = () => {},
): PatientPicker {
  const { texts } = ctx;
  const id = `picker-${++pickers}`;
  let chosen: PatientListEntry | null = null;
  const choose = (patient: PatientListEntry | null) => {
    if (chosen === patient) return;
    chosen = patient;
    onChoose(patient);
  };
  const input = el("input", {
    type: "search",
    id: `${id}-q`,
    name: "q",
    value: initialSearch,
    autocomplete: "off",
    "aria-describedby": `${id}-hint`,
    maxlength: 100,
  });
  const results = el("div", { class: "picker-results", "aria-live": "polite" });
  const search = loader(results, texts, async () => {
    const q = input.value.trim();
    const patients = await ctx.api.get<PatientListEntry[]>(`/api/patients${q ? `?q=${encodeURIComponent(q)}` : ""}`);
    choose(null);
    if (patients.length === 0) return el("p", { class: "empty" }, q ? texts.noMatches(q) : texts.noPatients);
    return el(
      "fieldset",
      { class: "picker-list" },
      el("legend", { class: "visually-hidden" }, texts.patients),
      ...patients.map((patient) => {
        const radio = el("input", { type: "radio", name: `${id}-patient`, value: patient.patientRef });
        radio.addEventListener("change", () => choose(patient));
        return el(
          "label",
          { class: "picker-option", "data-patient-ref": patient.patientRef },
          radio,
          el("span", { class: "picker-name" }, patient.name),
          el(
            "span",
            { class: "muted" },
            [patient.patientRef, patient.idCard, patient.hisPatientId, patient.ward].filter(Boolean).join(" · "),
          ),
        );
      }),
    );
  });
  // Search as the person types, once they pause; Enter searches at once without submitting the dialog.
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void search(), 250);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    clearTimeout(timer);
    void search();
  });
  void search();
  const element = el(
    "div",
    { class: "picker" },
    el("label", { for: input.id }, texts.searchLabel),
    el(
      "div",
      { class: "search-row" },
      input,
      el("button", { type: "button", onclick: () => void search() }, texts.search),
    ),
    el("p", { class: "hint", id: `${id}-hint` }, texts.searchHint),
    results,
  );
  return { element, chosen: () => chosen };
}

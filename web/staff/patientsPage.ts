import { el } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { patientForm } from "./patientForm.ts";
import { pagedList } from "./pagedList.ts";
import { segment } from "./staffApi.ts";
import { cardTable } from "./tables.ts";
import type { PatientListEntry } from "./types.ts";

/** The tenant's patients (`GET /api/patients?q=`): search, register, edit. */
export function patientsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const q = el("input", {
    type: "search",
    id: "patients-q",
    name: "q",
    autocomplete: "off",
    maxlength: 100,
    "aria-describedby": "patients-q-hint",
  });
  const count = el("p", { class: "count muted", "aria-live": "polite" });
  const box = el("div", { class: "page-body" });
  const reload = loader(box, texts, async () => {
    const search = q.value.trim();
    const first = await ctx.api.page<PatientListEntry>(
      `/api/patients${search ? `?q=${encodeURIComponent(search)}` : ""}`,
    );
    if (first.items.length === 0) {
      count.textContent = texts.patientCount(0);
      return el("p", { class: "empty" }, search ? texts.noMatches(search) : texts.noPatients);
    }
    return pagedList(
      ctx,
      first,
      (patients) => patientTable(ctx, patients, reload),
      (shown, more) => (count.textContent = more ? texts.patientCountMore(shown) : texts.patientCount(shown)),
    );
  });

  const searchForm = el(
    "form",
    { class: "search-form", role: "search" },
    el("label", { for: q.id }, texts.searchLabel),
    el("div", { class: "search-row" }, q, el("button", { type: "submit" }, texts.search)),
    el("p", { class: "hint", id: "patients-q-hint" }, texts.searchHint),
  );
  searchForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void reload();
  });
  // Typing searches too, after a pause; the latest answer wins (see loader).
  let timer: ReturnType<typeof setTimeout> | undefined;
  q.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), 300);
  });
  void reload();

  const toolbar = el(
    "div",
    { class: "toolbar" },
    searchForm,
    el(
      "button",
      { type: "button", class: "primary register", onclick: () => patientForm(ctx, null, reload) },
      texts.register,
    ),
  );
  return pageFrame("patients", texts.patients, texts.patientsIntro, toolbar, count, box);
}

function patientTable(ctx: PageContext, patients: PatientListEntry[], reload: () => Promise<void>): HTMLElement {
  const { texts } = ctx;
  const columns = [
    texts.colPatientRef,
    texts.colName,
    texts.colIdCard,
    texts.colHisId,
    texts.colWard,
    texts.colActive,
    texts.colActions,
  ];
  const rows = patients.map((patient) =>
    el(
      "tr",
      { "data-patient-ref": patient.patientRef, class: patient.active ? null : "inactive" },
      el("td", {}, patient.patientRef),
      el("th", { scope: "row" }, patient.name),
      el("td", { class: "id-card" }, patient.idCard),
      el("td", {}, patient.hisPatientId ?? ""),
      el("td", {}, patient.ward ?? ""),
      el("td", {}, patient.active ? texts.yes : texts.no),
      el(
        "td",
        { class: "actions" },
        el(
          "a",
          {
            class: "button-link chart-link",
            href: `#chart/${segment(patient.patientRef)}`,
            "aria-label": texts.chartFor(patient.name),
          },
          texts.chart,
        ),
        el(
          "button",
          {
            type: "button",
            class: "edit",
            "aria-label": texts.editFor(patient.name),
            onclick: () => patientForm(ctx, patient, reload),
          },
          texts.edit,
        ),
      ),
    ),
  );
  return cardTable(
    el(
      "table",
      { class: "data patients" },
      el("caption", { class: "visually-hidden" }, texts.patients),
      el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows),
    ),
  );
}

import { el, type Child } from "./dom.ts";
import { loader, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import type { StaffTexts } from "./texts.ts";
import type { ClaimCheck, PatientListEntry, UnmatchedEntry } from "./types.ts";

/*
 * Issue #34, item 2: a report could be claimed for the wrong person without a word. Once a
 * patient is chosen, what the report says about its patient is set beside them (name, id card
 * masked, birth date and sex from the id card, HIS id; GET /api/unmatched/{kind}/{externalId}/check
 * compares them whole on the server), each difference marked in words and not by colour alone;
 * when any differs, claiming waits for the person to tick "I have checked".
 */

type Fact = keyof ClaimCheck["checks"];

export interface ClaimCheckView {
  element: HTMLElement;
  /** Sets the report beside `patient`, or asks for a choice (null). */
  compare(patient: PatientListEntry | null): void;
  /** Whether the report may be claimed for `patient`: nothing differs, or the person ticked the confirmation (a check that failed counts as a difference). */
  mayClaim(patient: PatientListEntry): Promise<boolean>;
  /** Takes the person to the confirmation. */
  focusConfirmation(): void;
}

let views = 0;

const differs = (check: ClaimCheck) => Object.values(check.checks).includes("differs");

export function claimCheckView(
  ctx: PageContext,
  entry: UnmatchedEntry,
  onConfirmationChange: () => void,
): ClaimCheckView {
  const { texts } = ctx;
  const id = `claim-check-${++views}`;
  const headingId = `${id}-heading`;
  const choose = () => el("p", { class: "muted" }, texts.claimCheckChoose);
  const box = el("div", { class: "claim-check-body" }, choose());
  // Always in the page, empty until there is something to say: a live region that appears is not always read out.
  const verdict = el("p", { class: "claim-verdict", "aria-live": "polite" });
  const confirmBox = el("input", { type: "checkbox", id: `${id}-confirm`, name: "confirmed" });
  const confirmText = el("span");
  const confirmation = el(
    "div",
    { class: "claim-confirm" },
    confirmBox,
    el("label", { for: confirmBox.id }, confirmText),
  );
  confirmation.hidden = true;
  confirmBox.addEventListener("change", onConfirmationChange);

  // One request per patient chosen in this dialog; one that failed is asked again.
  const checks = new Map<string, Promise<ClaimCheck>>();
  const checkOf = (patient: PatientListEntry): Promise<ClaimCheck> => {
    let check = checks.get(patient.patientRef);
    if (!check) {
      check = ctx.api.get<ClaimCheck>(
        `/api/unmatched/${segment(entry.kind)}/${segment(entry.externalId)}/check?patientRef=${encodeURIComponent(patient.patientRef)}`,
      );
      check.catch(() => checks.delete(patient.patientRef));
      checks.set(patient.patientRef, check);
    }
    return check;
  };

  let wanted: PatientListEntry | null = null;
  const askConfirmation = (patient: PatientListEntry, needed: boolean) => {
    confirmText.textContent = texts.confirmClaim(patient.name, patient.patientRef);
    confirmation.hidden = !needed;
  };
  const load = loader(box, texts, async () => {
    const patient = wanted!;
    let check: ClaimCheck;
    try {
      check = await checkOf(patient);
    } catch (error) {
      // Nothing could be compared: claiming needs the person's word, as for a difference.
      if (wanted === patient) askConfirmation(patient, true);
      throw error;
    }
    if (wanted === patient) {
      const facts = (Object.keys(check.checks) as Fact[])
        .filter((fact) => check.checks[fact] === "differs")
        .map((fact) => factName(texts, fact));
      verdict.textContent = facts.length > 0 ? texts.differsVerdict(facts) : texts.nothingDiffers;
      verdict.className = `claim-verdict ${facts.length > 0 ? "differs" : "same"}`;
      askConfirmation(patient, facts.length > 0);
    }
    return comparison(texts, check, headingId);
  });

  const element = el(
    "section",
    { class: "claim-check", "aria-labelledby": headingId },
    el("h3", { id: headingId }, texts.claimCheckHeading),
    box,
    verdict,
    confirmation,
  );

  return {
    element,
    compare(patient) {
      wanted = patient;
      confirmBox.checked = false;
      confirmation.hidden = true;
      verdict.textContent = "";
      verdict.className = "claim-verdict";
      if (patient) {
        box.replaceChildren(el("p", { class: "muted" }, texts.claimChecking));
        void load();
      } else {
        box.replaceChildren(choose());
        delete box.dataset.state;
      }
    },
    async mayClaim(patient) {
      let needed: boolean;
      try {
        needed = differs(await checkOf(patient));
      } catch {
        needed = true;
      }
      if (needed && wanted === patient) confirmation.hidden = false;
      return !needed || confirmBox.checked;
    },
    focusConfirmation: () => confirmBox.focus(),
  };
}

/** A fact's name as the row says it. */
const factName = (texts: StaffTexts, fact: Fact) =>
  ({
    name: texts.name,
    idCard: texts.idCard,
    birthDate: texts.factBirthDate,
    sex: texts.factSex,
    hisPatientId: texts.colHisId,
  })[fact];

/** Report says / Chosen patient, fact by fact, each difference marked "≠ Differs" (and each agreement "✓ Same") in words. */
function comparison(texts: StaffTexts, check: ClaimCheck, headingId: string): Node {
  const { report, patient, checks: result } = check;
  const unread = report.idCardState === "invalid" ? texts.unreadable : texts.notOnReport;
  const sex = (value: "M" | "F" | null) => (value ? texts.sexNames[value] : null);
  const rows: Array<[Fact, string | null, string | null]> = [
    ["name", report.name, patient.name],
    ["idCard", report.idCard, patient.idCard],
    // The patient's own birth date is not sent (beside the masked card it would complete the number): shown when it is the report's.
    ["birthDate", report.birthDate ?? unread, result.birthDate === "same" ? report.birthDate : texts.birthDateHidden],
    ["sex", sex(report.sex) ?? unread, sex(patient.sex)],
  ];
  if (report.hisPatientId || patient.hisPatientId)
    rows.push(["hisPatientId", report.hisPatientId, patient.hisPatientId]);
  const cell = (fact: Fact, value: string | null, absent: string, mark: Child = null) =>
    el(
      "td",
      {},
      value
        ? el("span", { class: fact === "idCard" ? "value id-card" : "value" }, value)
        : el("span", { class: "muted" }, absent),
      mark,
    );
  const mark = (fact: Fact) =>
    result[fact] === "differs"
      ? el("strong", { class: "check-mark differs" }, el("span", { "aria-hidden": "true" }, "≠ "), texts.checkDiffers)
      : result[fact] === "same"
        ? el("span", { class: "check-mark same" }, el("span", { "aria-hidden": "true" }, "✓ "), texts.checkSame)
        : null;
  const note =
    report.idCardState === "missing"
      ? texts.reportWithoutIdCard
      : report.idCardState === "invalid"
        ? texts.reportIdCardInvalid
        : null;
  return el(
    "div",
    {},
    el(
      "table",
      { class: "data claim-compare", "aria-labelledby": headingId },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, texts.colFact)),
          el("th", { scope: "col" }, texts.colReportSays),
          el("th", { scope: "col" }, texts.colChosenPatient),
        ),
      ),
      el(
        "tbody",
        {},
        ...rows.map(([fact, sent, chosen]) =>
          el(
            "tr",
            { "data-fact": fact, "data-check": result[fact], class: result[fact] === "differs" ? "differs" : null },
            el("th", { scope: "row" }, factName(texts, fact)),
            cell(fact, sent, texts.notOnReport),
            cell(fact, chosen, "—", mark(fact)),
          ),
        ),
      ),
    ),
    note ? el("p", { class: "claim-note hint" }, note) : null,
  );
}

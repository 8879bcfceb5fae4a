import type { Context } from "koa";
import { MAX_NAMED_PER_RECORD } from "../../commands/access/events.ts";
import { PATIENT_REF_PATTERN } from "../../commands/patients/registerPatient.ts";
import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";
import type { PatientIdentifiers } from "../../queries/patients/patientIdentifiers.ts";

/**
 * What an answer shows of patients (contract E.4), gathered by its route as it learns it and read
 * by the access recording once the answer is given (accessRecording.ts). A route that never says
 * what it showed is not recorded.
 */
export class ShownSubjects {
  readonly patientRefs = new Set<string>();
  readonly reports = new Set<string>();
  patientRefsTruncated = false;
  /** False until the route says the answer is one to record (an export says so on meeting a patient_ref column). */
  recordable = false;

  addPatient(patientRef: string): void {
    // What cannot be a patientRef (a report's odd value, a path no patient has) names nobody, and its text is not kept.
    if (this.patientRefs.has(patientRef) || !PATIENT_REF_PATTERN.test(patientRef)) return;
    if (this.patientRefs.size < MAX_NAMED_PER_RECORD) this.patientRefs.add(patientRef);
    else this.patientRefsTruncated = true;
  }

  addReport(kind: string, externalId: string): void {
    if (this.reports.size < MAX_NAMED_PER_RECORD) this.reports.add(`${kind}:${externalId}`);
  }
}

/** This answer's subjects, made on first use. */
export function shownBy(ctx: Pick<Context, "state">): ShownSubjects {
  ctx.state.shown ??= new ShownSubjects();
  return ctx.state.shown;
}

/** Says what the answer shows (or, when it names one patient, whom it is about even if it fails). */
export function showing(
  ctx: Pick<Context, "state">,
  {
    patientRefs = [],
    reports = [],
  }: { patientRefs?: Iterable<string | null | undefined>; reports?: Iterable<{ kind: string; externalId: string }> },
): void {
  const shown = shownBy(ctx);
  shown.recordable = true;
  for (const patientRef of patientRefs) if (patientRef) shown.addPatient(patientRef);
  for (const { kind, externalId } of reports) shown.addReport(kind, externalId);
}

/*
 * A report answer is recorded by the patients its values name (issue #51): a patientRef, a name or
 * a HIS id of a patient the caller may see, in any column under any name, alone or among other
 * words ("王小明 (3A)"), or inside a JSON value (json_agg). A column's name proves nothing: renaming
 * `patient_ref` hid the rows it named, and a literal `'H1-5B-2' as patient_ref` recorded a look at
 * a patient no row showed. Values that name nobody the caller may see (another ward's patient,
 * numbers) name nobody here either.
 */

/** Words of a text value: what a name or an id stands among when a report concatenates them. */
const WORD_BREAKS = /[\s,;；|/\\()（），、：:"'[\]{}<>·]+/u;

/** The patients one value of an answer names. */
function patientsNamedBy(value: unknown, identifiers: PatientIdentifiers, found: (patientRef: string) => void): void {
  if (typeof value === "string") {
    const text = value.trim();
    for (const ref of identifiers.get(text) ?? []) found(ref);
    if (WORD_BREAKS.test(text))
      for (const word of text.split(WORD_BREAKS)) for (const ref of identifiers.get(word) ?? []) found(ref);
  } else if (Array.isArray(value)) {
    for (const item of value) patientsNamedBy(item, identifiers, found);
  } else if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    for (const item of Object.values(value)) patientsNamedBy(item, identifiers, found);
  }
}

/** Notes in `shown` the patients these rows name; answers whether they named any. */
export function notePatientsOfRows(
  rows: readonly (readonly unknown[])[],
  identifiers: PatientIdentifiers,
  shown: ShownSubjects,
): boolean {
  let named = false;
  const found = (patientRef: string) => {
    named = true;
    shown.addPatient(patientRef);
  };
  for (const row of rows) for (const value of row) patientsNamedBy(value, identifiers, found);
  return named;
}

/** Says what a report layer's results show: recorded when their values name a patient the caller may see. */
export function showingResults(
  ctx: Pick<Context, "state">,
  results: Readonly<Record<string, QueryOutcome>> | null,
  identifiers: PatientIdentifiers,
): void {
  const shown = shownBy(ctx);
  for (const outcome of Object.values(results ?? {})) {
    if ("error" in outcome) continue;
    if (notePatientsOfRows(outcome.rows, identifiers, shown)) shown.recordable = true;
  }
}

import type { Context } from "koa";
import { MAX_NAMED_PER_RECORD } from "../../commands/access/events.ts";
import { PATIENT_REF_PATTERN } from "../../commands/patients/registerPatient.ts";
import type { QueryOutcome } from "../../commands/reports/spec/queryOutcome.ts";

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
export function showing(ctx: Pick<Context, "state">, { patientRefs = [], reports = [] }: { patientRefs?: Iterable<string | null | undefined>; reports?: Iterable<{ kind: string; externalId: string }> }): void {
  const shown = shownBy(ctx);
  shown.recordable = true;
  for (const patientRef of patientRefs) if (patientRef) shown.addPatient(patientRef);
  for (const { kind, externalId } of reports) shown.addReport(kind, externalId);
}

/** The column of a result that names patients (contract E.4: `patient_ref`), or -1. */
export function patientRefColumn(columns: readonly string[]): number {
  return columns.findIndex((name) => name.toLowerCase() === "patient_ref");
}

/** A report value as the patientRef it is. */
export const patientRefText = (value: unknown): string | null => (value === null || value === undefined || value === "" ? null : String(value));

/**
 * Says what a report layer's results show: recorded only when one of its queries has a patient_ref
 * column, naming the distinct values it holds (failed queries show nothing).
 */
export function showingResults(ctx: Pick<Context, "state">, results: Readonly<Record<string, QueryOutcome>> | null): void {
  for (const outcome of Object.values(results ?? {})) {
    if ("error" in outcome) continue;
    const column = patientRefColumn(outcome.columns);
    if (column >= 0) showing(ctx, { patientRefs: outcome.rows.map((row) => patientRefText(row[column])) });
  }
}

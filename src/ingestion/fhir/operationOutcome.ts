import type { OperationOutcome, OperationOutcomeIssue } from "fhir/r4.js";

/** An issue of an OperationOutcome: what went wrong (`code`, from the FHIR issue-type value set), how to fix it, and where. */
export interface Issue {
  code: OperationOutcomeIssue["code"];
  diagnostics: string;
  /** FHIRPath of the element at fault, e.g. Bundle.entry[1].resource.issued. */
  expression?: string;
  severity?: OperationOutcomeIssue["severity"];
}

/** FHIR's answer for what failed (contract D.6: every error is an OperationOutcome with the HTTP status). */
export function operationOutcome(issues: readonly Issue[]): OperationOutcome {
  return {
    resourceType: "OperationOutcome",
    issue: issues.map(({ code, diagnostics, expression, severity = "error" }) => ({
      severity,
      code,
      diagnostics,
      ...(expression ? { expression: [expression] } : {}),
    })),
  };
}

/** What the staff pages read from `/api` (contract A.2, A.5, C.4, D.1, D.4, D.7); types only, from the server's own modules. */
export type { Audit, Finding } from "../../commands/reports/spec/audit.ts";
export type { QueryProblem } from "../../commands/reports/spec/queryTrial.ts";
export type { PatientListEntry } from "../../queries/patients/patients.ts";
export type { ReportListEntry, VersionEntry } from "../../queries/reports/reportCatalog.ts";
export type { UnmatchedEntry } from "../../queries/ingestion/unmatched.ts";
export type { ClaimCheck } from "../../queries/ingestion/claimCheck.ts";
export type { HistoryEntry, ReportDiff, ReportHistory, ReportVersion } from "../../queries/ingestion/reportHistory.ts";
export type { BulkJobListEntry, BulkRejectedAnswer } from "../../queries/bulk/bulkJobs.ts";
export type { AuthorListEntry, ClientListEntry } from "../../queries/credentials/credentials.ts";
export type { Alert, AlertState } from "../../queries/alerts/alerts.ts";
export type { EscalationPolicyAnswer } from "../../queries/alerts/escalationPolicy.ts";
export type { PatientResults, ResultItem } from "../../queries/patients/patientResults.ts";
export type { DictionaryAnswer as LabItemDictionary } from "../../queries/dictionary/dictionary.ts";
export type { UnmappedItem } from "../../queries/dictionary/unmappedItems.ts";
export type { ItemMapping, MappingPreview } from "../../queries/dictionary/itemMappings.ts";

/** The body of `PUT /api/patients/{patientRef}`. */
export interface PatientInput {
  name: string;
  idCard: string;
  hisPatientId: string | null;
  ward: string | null;
  active: boolean;
}

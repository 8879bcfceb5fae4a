import type {
  AcceptedReport,
  ClaimedType,
  DismissedType,
  Match,
  ReceivedReport,
  ReceivedType,
  ReportClaimed,
} from "./events.ts";

/*
 * A report stream's state, folded in this one place: the push decides a new version against it,
 * the unmatched queue a claim or a dismissal, and auto-claim whether a report still waits.
 */

export interface ReportStreamState {
  version: number;
  received: boolean;
  /** Of the last received version. */
  contentHash: string | null;
  /** The last received version's match, or the claimed patient since. */
  match: Match | null;
  summary: ReceivedReport["summary"] | null;
  /** The patient as sent in the last received version. */
  patient: AcceptedReport["patient"] | null;
  /** A standing claim: it counts until a later push is matched, or names another person, afresh. */
  claim: { patientRef: string; idCard: string | null } | null;
  dismissed: boolean;
}

/**
 * What the fold reads of an event: a stored event of a report stream gives it, and so does the
 * push's one-query read of a whole batch's streams, which fetches only these fields.
 */
export type FoldedReportEvent = { streamVersion: number } & (
  | {
      type: ReceivedType;
      data: Pick<ReceivedReport, "contentHash" | "match" | "summary"> & { report: Pick<AcceptedReport, "patient"> };
    }
  | { type: ClaimedType; data: Pick<ReportClaimed, "patientRef" | "idCard"> }
  | { type: DismissedType; data: unknown }
);

export const initialReportStreamState = (): ReportStreamState => ({
  version: 0,
  received: false,
  contentHash: null,
  match: null,
  summary: null,
  patient: null,
  claim: null,
  dismissed: false,
});

export function evolveReportStream(state: ReportStreamState, event: FoldedReportEvent): ReportStreamState {
  const version = event.streamVersion;
  switch (event.type) {
    case "LabReportReceived":
    case "ExamReportReceived": {
      const { match } = event.data;
      return {
        ...state,
        version,
        received: true,
        contentHash: event.data.contentHash,
        match,
        summary: event.data.summary,
        patient: event.data.report.patient,
        claim: match.matched && match.viaClaim ? { patientRef: match.patientRef, idCard: match.idCard } : null,
        dismissed: false,
      };
    }
    case "LabReportClaimed":
    case "ExamReportClaimed": {
      const { patientRef, idCard } = event.data;
      return {
        ...state,
        version,
        match: { matched: true, patientRef, idCard: state.match?.idCard ?? null },
        claim: { patientRef, idCard },
        dismissed: false,
      };
    }
    case "LabReportDismissed":
    case "ExamReportDismissed":
      return { ...state, version, dismissed: true };
  }
}

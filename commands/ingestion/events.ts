import type { NewEvent, StoredEvent } from "../../db/eventStore.ts";
import { streamCodec, type Event, type StreamCodec } from "../kit/events.ts";
import type { MappedItem, SentItem } from "./itemMapping.ts";
import { INVALID_ID_CARD, MISSING_ID_CARD } from "../patients/nationalId.ts";
import { NAME_DIFFERS, NO_PATIENT, type Match, type SentPatient } from "./patientMatching.ts";

/*
 * The ingestion context's published language: the events of a laboratory or examination report's
 * stream, and the streams' names. Projections, queries and reactors read reports through this file.
 */

export type { Match } from "./patientMatching.ts";
export type { MappedItem } from "./itemMapping.ts";

/** A report as validated: the fields every kind shares, typed; the rest as sent. */
export type AcceptedReport = Record<string, unknown> & {
  externalId: string;
  reportedAt: string;
  patient: SentPatient & { hisPatientId?: string };
  items?: SentItem[];
};

/** What a Received event carries: the report as accepted, and what we made of it. */
export interface ReceivedReport {
  externalId: string;
  report: AcceptedReport;
  contentHash: string;
  outcome: "CREATED" | "UPDATED";
  match: Match;
  items: MappedItem[];
  summary: { itemsMapped: number; itemsUnmapped: number };
  client: { clientId: string; name: string };
}

/** A report waiting in the unmatched queue assigned to a patient, by a person or by auto-claim (`auto`). */
export interface ReportClaimed {
  patientRef: string;
  idCard: string | null;
  by?: string;
  auto?: boolean;
}

/** A report set aside without a patient; it stays stored, with the reason. */
export interface ReportDismissed {
  reason: string;
  by?: string;
}

export type LabReportEvent =
  | Event<"LabReportReceived", ReceivedReport>
  | Event<"LabReportClaimed", ReportClaimed>
  | Event<"LabReportDismissed", ReportDismissed>;

export type ExamReportEvent =
  | Event<"ExamReportReceived", ReceivedReport>
  | Event<"ExamReportClaimed", ReportClaimed>
  | Event<"ExamReportDismissed", ReportDismissed>;

/** Any report stream's event, laboratory or examination. */
export type ReportStreamEvent = LabReportEvent | ExamReportEvent;

/** `lab-report:<externalId>` and `exam-report:<externalId>`. */
export const labReportStream = streamCodec("lab-report:");
export const examReportStream = streamCodec("exam-report:");

/**
 * The entity tag of a report stream at a version (issue #51 finding 6): the unmatched queue and the
 * report's history answer it, and a claim or dismissal sent with it as `If-Match` is refused when
 * the report changed since. Here because both sides use it: the read side answers it, the queue
 * decisions (queueDecisions.ts) check it.
 */
export const reportEtag = (streamVersion: number): string => `"report-${streamVersion}"`;

/** The stream version an If-Match names (reportEtag's form), or null when it is not one. */
export function reportEtagVersion(ifMatch: string): number | null {
  const found = /^"report-([1-9]\d{0,8})"$/.exec(ifMatch.trim());
  return found ? Number(found[1]) : null;
}

/** The externalId of the report whose stream holds this event, of either kind. */
export function externalIdOf(event: { streamId: string }): string {
  const codec = labReportStream.owns(event.streamId) ? labReportStream : examReportStream;
  return codec.key(event.streamId);
}

export type ReceivedType = Extract<ReportStreamEvent["type"], `${string}Received`>;
export type ClaimedType = Extract<ReportStreamEvent["type"], `${string}Claimed`>;
export type DismissedType = Extract<ReportStreamEvent["type"], `${string}Dismissed`>;

/** Kind-neutral tests of a report stream's event (of either kind, whatever data a projection's payload left it). */
export const isReceived = <E extends NewEvent>(
  event: StoredEvent<E>,
): event is Extract<StoredEvent<E>, { type: ReceivedType }> =>
  event.type === "LabReportReceived" || event.type === "ExamReportReceived";
export const isClaimed = <E extends NewEvent>(
  event: StoredEvent<E>,
): event is Extract<StoredEvent<E>, { type: ClaimedType }> =>
  event.type === "LabReportClaimed" || event.type === "ExamReportClaimed";
export const isDismissed = <E extends NewEvent>(
  event: StoredEvent<E>,
): event is Extract<StoredEvent<E>, { type: DismissedType }> =>
  event.type === "LabReportDismissed" || event.type === "ExamReportDismissed";

/** What differs between the laboratory's and the examination's report streams: their names and their events'. */
export interface ReportStreamKind {
  name: "lab" | "exam";
  stream: StreamCodec;
  events: { received: ReceivedType; claimed: ClaimedType; dismissed: DismissedType };
}

export const labReportStreams: ReportStreamKind = {
  name: "lab",
  stream: labReportStream,
  events: { received: "LabReportReceived", claimed: "LabReportClaimed", dismissed: "LabReportDismissed" },
};

export const examReportStreams: ReportStreamKind = {
  name: "exam",
  stream: examReportStream,
  events: { received: "ExamReportReceived", claimed: "ExamReportClaimed", dismissed: "ExamReportDismissed" },
};

/** The stable codes of the reasons a report waits for a patient, beside their sentences (pages translate the code). */
export const PENDING_CODES = ["no-id-card", "invalid-id-card", "no-patient", "name-differs"] as const;
export type PendingCode = (typeof PENDING_CODES)[number];

const codeOfReason: ReadonlyMap<string, PendingCode> = new Map([
  [MISSING_ID_CARD, "no-id-card"],
  [INVALID_ID_CARD, "invalid-id-card"],
  [NO_PATIENT, "no-patient"],
  [NAME_DIFFERS, "name-differs"],
]);

/** The code of a stored reason sentence; null for a sentence this version does not write (the sentence is then shown as it is). */
export function pendingCodeOf(reason: string | null | undefined): PendingCode | null {
  return (reason && codeOfReason.get(reason)) || null;
}

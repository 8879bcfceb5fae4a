import { streamCodec, type Event } from "../kit/events.ts";

/*
 * The access context's published language (contract E.4): who was shown which patients. Each
 * record is a stream of its own (`access:<uuid>`, one event at version 1), so writers never
 * contend, and being an event it is append-only and sealed into the ledger (D.2) like any other.
 */

export const accessStreams = streamCodec("access:");

/** What became of the answer a record describes. */
export const ACCESS_OUTCOMES = ["shown", "cut", "not-found", "invalid", "refused", "failed"] as const;
export type AccessOutcome = (typeof ACCESS_OUTCOMES)[number];

/** At most this many patients (and reports) are named in one record; a larger answer says so with `patientRefsTruncated`. */
export const MAX_NAMED_PER_RECORD = 1000;

export interface AccessRecord {
  /** The moment of the answer (ISO 8601, UTC): the event itself may be written later, after an outage. */
  at: string;
  /** The person or system: the credential's name, "admin" for the operator, "anonymous" for a viewer without one. */
  who: string;
  /** The author id, client id or session subject; "admin" for the ADMIN_TOKEN; "none" for a viewer without a credential. */
  credential: string;
  roles: string[];
  /** The route as declared: `GET /api/patients/{patientRef}/results`. */
  action: string;
  /** The patients the answer showed (or, refused or failed, the one it was asked about), at most MAX_NAMED_PER_RECORD. */
  patientRefs: string[];
  /** Present when the answer showed more patients than the record names. */
  patientRefsTruncated?: true;
  /** Reports the answer showed, `<kind>:<externalId>` (the unmatched queue, a report's history), when it was about reports. */
  reports?: string[];
  requestId: string;
  outcome: AccessOutcome;
}

export type PatientRecordsShown = Event<"PatientRecordsShown", AccessRecord>;
/** The events of an `access:` stream. */
export type AccessEvent = PatientRecordsShown;

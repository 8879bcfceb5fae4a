import type { IdentifierHasher } from "../kit/identifierHasher.ts";
import { streamCodec, type Event } from "../kit/events.ts";

/*
 * The patients context's published language: a patient's stream (`patient:<patientRef>`) and the
 * stream of each id card a patient holds, which makes one number one patient's (managePatients.ts).
 */

/** A patient as registered; `idCard` is stored normalised (normaliseIdCard). */
export interface Patient {
  name: string;
  idCard: string;
  hisPatientId: string | null;
  ward: string | null;
  active: boolean;
}

export type PatientRegistered = Event<"PatientRegistered", Patient>;
export type PatientUpdated = Event<"PatientUpdated", Patient>;
/** The events of a `patient:` stream. */
export type PatientEvent = PatientRegistered | PatientUpdated;
/** The types of a `patient:` stream's events. */
export const PATIENT_EVENT_TYPES: readonly PatientEvent["type"][] = ["PatientRegistered", "PatientUpdated"];

export type PatientIdCardTaken = Event<"PatientIdCardTaken", { patientRef: string }>;
export type PatientIdCardFreed = Event<"PatientIdCardFreed", { patientRef: string }>;
/** The events of a `patient-id-card:` stream. */
export type IdCardEvent = PatientIdCardTaken | PatientIdCardFreed;

export const patientStreams = streamCodec("patient:");

const idCardStreams = streamCodec("patient-id-card:");

/**
 * The stream of an id card, named by a keyed hash (`patient-id-card:k.<32 hex>`): a stream id shows
 * in logs and error messages, an id card number must not, and a plain hash of one is inverted in
 * seconds. Streams named by the plain SHA-256 of earlier versions (`patient-id-card:<32 hex>`)
 * stay in the history unchanged, and are neither read nor written again: the patients read model
 * says who holds a card whose keyed stream has no event yet (managePatients.ts), as it did for
 * patients registered before id cards had streams.
 */
export function idCardStreamId(hasher: IdentifierHasher, idCard: string): string {
  return idCardStreams.id(`k.${hasher.digest("id-card stream", idCard).slice(0, 32)}`);
}

// Rules of the events' data, for readers: idCard is stored normalised and shown masked (contract C.4), names compare thus,
// and a valid one tells the birth date and sex (GB 11643).
export { birthDateOf, explainIdCard, maskIdCard, normaliseIdCard, sameName, sexOf } from "./nationalId.ts";

import { createHash } from "node:crypto";
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

export type PatientIdCardTaken = Event<"PatientIdCardTaken", { patientRef: string }>;
export type PatientIdCardFreed = Event<"PatientIdCardFreed", { patientRef: string }>;
/** The events of a `patient-id-card:` stream. */
export type IdCardEvent = PatientIdCardTaken | PatientIdCardFreed;

export const patientStreams = streamCodec("patient:");

const idCardStreams = streamCodec("patient-id-card:");

/** The stream of an id card, named by a hash: a stream id shows in logs and error messages, an id card number must not. */
export function idCardStreamId(idCard: string): string {
  return idCardStreams.id(createHash("sha256").update(idCard).digest("hex").slice(0, 32));
}

// Rules of the events' data, for readers: idCard is stored normalised and shown masked (contract C.4), names compare thus.
export { maskIdCard, normaliseIdCard, sameName } from "./nationalId.ts";

import { explainIdCard, INVALID_ID_CARD, MISSING_ID_CARD, sameName } from "../patients/nationalId.ts";

export type Match =
  /** `viaClaim`: matched because a person claimed the report for this patient, not by idCard. */
  | { matched: true; patientRef: string; idCard: string | null; viaClaim?: true }
  | { matched: false; pendingReason: string; idCard: string | null };

export interface SentPatient {
  idCard?: string | null;
  name?: string | null;
  hisPatientId?: string | null;
}

export interface KnownPatient {
  patientRef: string;
  name: string;
}

export const NO_PATIENT = "no dialysis patient with this idCard";
export const NAME_DIFFERS = "name differs from the patient registered with this idCard";

/** The normalised id card a report would be matched by, or null when it has no valid one. */
export function matchableIdCard(patient: SentPatient): string | null {
  const explained = explainIdCard(patient.idCard);
  return explained.valid ? explained.normalised : null;
}

/**
 * Contract B.2: the normalised idCard must be a registered patient's, and a sent name must be
 * that patient's name (whitespace-insensitive). A report that fails is still stored, queued for
 * claiming with the reason.
 */
export function matchPatient(patient: SentPatient, registered: ReadonlyMap<string, KnownPatient>): Match {
  if (!patient.idCard || patient.idCard.trim() === "")
    return { matched: false, pendingReason: MISSING_ID_CARD, idCard: null };
  const idCard = matchableIdCard(patient);
  if (!idCard) return { matched: false, pendingReason: INVALID_ID_CARD, idCard: null };
  const known = registered.get(idCard);
  if (!known) return { matched: false, pendingReason: NO_PATIENT, idCard };
  if (patient.name && !sameName(patient.name, known.name))
    return { matched: false, pendingReason: NAME_DIFFERS, idCard };
  return { matched: true, patientRef: known.patientRef, idCard };
}

/**
 * Whether an update of a report claimed by hand still names the claimed person, so that the claim
 * stays. With a valid id card the id card decides, as in matching. Without one nothing identifies
 * the person but what was sent: the id card as written, the name and the HIS patient id must all be
 * those of the version that was claimed, or the update goes back to the queue for a person to look at.
 */
export function namesClaimedPerson(
  claimedIdCard: string | null,
  claimedVersion: SentPatient | null,
  update: SentPatient,
): boolean {
  const idCard = matchableIdCard(update);
  if (idCard !== null || claimedIdCard !== null) return idCard === claimedIdCard;
  if (!claimedVersion) return false;
  const text = (value: string | null | undefined) => (value ?? "").trim();
  return (
    text(claimedVersion.idCard) === text(update.idCard) &&
    sameName(text(claimedVersion.name), text(update.name)) &&
    text(claimedVersion.hisPatientId) === text(update.hisPatientId)
  );
}

import { z } from "zod";
import { birthDateOf, explainIdCard, maskIdCard, sameName, sexOf } from "../../commands/patients/events.ts";
import type { TenantReader } from "../../db/tenantScope.ts";

/*
 * Issue #34, item 2: a report could be claimed for the wrong person without a word. Before a
 * person claims a report for a patient, the report's patient is set beside the chosen one: name,
 * id card, birth date and sex (read from the id card, GB 11643), HIS id; the staff pages ask for
 * confirmation when any of them differs.
 *
 * The chosen patient's birth date is not given. The list masks the id card as `110101********1234`,
 * and the eight hidden digits are the birth date: with it beside the masked card, the whole number
 * could be read. So the server compares the whole numbers and says whether the birth dates agree;
 * the report's own birth date is given (its id card as sent is in its history already).
 */

const masked = { description: "Masked: first 6 and last 4 kept", example: "110101********1234" };
const sexSchema = z.enum(["M", "F"]).meta({ description: "From the id card's 17th digit: odd M, even F (GB 11643)" });
const check = z.enum(["same", "differs", "unknown"]).meta({
  description: "unknown: the report does not say (no id card, no valid one, no name, or no HIS id on either side)",
});

export const claimCheckSchema = z.object({
  report: z.object({
    name: z.string().nullable(),
    idCard: z.string().nullable().meta(masked),
    idCardState: z
      .enum(["valid", "invalid", "missing"])
      .meta({ description: "Whether the report carries a valid national id number (GB 11643-1999)" }),
    birthDate: z
      .string()
      .nullable()
      .meta({ description: "yyyy-MM-dd, from a valid id card; null without one", example: "1949-12-31" }),
    sex: sexSchema.nullable().meta({ description: "From a valid id card; null without one" }),
    hisPatientId: z.string().nullable(),
  }),
  patient: z.object({
    patientRef: z.string(),
    name: z.string(),
    idCard: z.string().meta(masked),
    sex: sexSchema.nullable(),
    hisPatientId: z.string().nullable(),
  }),
  checks: z.object({ name: check, idCard: check, birthDate: check, sex: check, hisPatientId: check }).meta({
    description:
      "Each fact of the report against the patient's; the id cards and birth dates are compared whole, on the server",
  }),
});
export type ClaimCheck = z.infer<typeof claimCheckSchema>;
export type ClaimCheckResult = ClaimCheck["checks"]["name"];

/** Who a waiting report says it is about, as stored (its id card normalised when valid, else as sent). */
export interface SentPerson {
  name: string | null;
  idCard: string | null;
  hisPatientId: string | null;
}

/** A registered patient (its id card valid and normalised, as registering keeps it). */
export interface RegisteredPerson {
  patientRef: string;
  name: string;
  idCard: string;
  hisPatientId: string | null;
}

const present = (value: string | null | undefined): value is string =>
  value !== null && value !== undefined && value.trim() !== "";
const compared = (same: boolean): ClaimCheckResult => (same ? "same" : "differs");
/** What a valid id card says; nulls for one that is not (a registered patient's always is, unless the rules tightened since). */
const cardFacts = (idCard: string | null) =>
  idCard !== null && explainIdCard(idCard).valid
    ? { birthDate: birthDateOf(idCard), sex: sexOf(idCard) }
    : { birthDate: null, sex: null };

/** The report's patient beside the registered one, fact by fact. */
export function compareForClaim(sent: SentPerson, patient: RegisteredPerson): ClaimCheck {
  const idCardState = !present(sent.idCard) ? "missing" : explainIdCard(sent.idCard).valid ? "valid" : "invalid";
  const reportCard = idCardState === "valid" ? explainIdCard(sent.idCard).normalised : null;
  const reportFacts = cardFacts(reportCard);
  const patientFacts = cardFacts(patient.idCard);
  const known = <T>(a: T | null, b: T | null, same: (a: T, b: T) => boolean): ClaimCheckResult =>
    a === null || b === null ? "unknown" : compared(same(a, b));
  return {
    report: {
      name: present(sent.name) ? sent.name : null,
      idCard: present(sent.idCard) ? maskIdCard(reportCard ?? sent.idCard) : null,
      idCardState,
      ...reportFacts,
      hisPatientId: present(sent.hisPatientId) ? sent.hisPatientId : null,
    },
    patient: {
      patientRef: patient.patientRef,
      name: patient.name,
      idCard: maskIdCard(patient.idCard),
      sex: patientFacts.sex,
      hisPatientId: patient.hisPatientId,
    },
    checks: {
      name: known(present(sent.name) ? sent.name : null, patient.name, sameName),
      // A number that is not valid is no registered patient's: it differs, whoever mistyped it.
      idCard: idCardState === "missing" ? "unknown" : compared(reportCard === patient.idCard),
      birthDate: known(reportFacts.birthDate, patientFacts.birthDate, (a, b) => a === b),
      sex: known(reportFacts.sex, patientFacts.sex, (a, b) => a === b),
      hisPatientId: known(
        present(sent.hisPatientId) ? sent.hisPatientId.trim() : null,
        present(patient.hisPatientId) ? patient.hisPatientId.trim() : null,
        (a, b) => a === b,
      ),
    },
  };
}

/**
 * The check of claiming a waiting report for a patient, or undefined when the report is not in
 * the queue (unknown, matched or dismissed) or the reader sees no such patient.
 */
export async function claimCheck(
  reader: TenantReader,
  kind: "lab" | "exam",
  externalId: string,
  patientRef: string,
): Promise<ClaimCheck | undefined> {
  const table = kind === "lab" ? "read.lab_reports" : "read.exam_reports";
  const report = await reader.query(
    `select patient_name, id_card, his_patient_id from ${table} where external_id = $1 and not matched and dismissed_at is null`,
    [externalId],
  );
  const patient = await reader.query(
    "select patient_ref, name, id_card, his_patient_id from read.patients where patient_ref = $1",
    [patientRef],
  );
  const sent = report.rows[0];
  const registered = patient.rows[0];
  if (!sent || !registered) return undefined;
  return compareForClaim(
    { name: sent.patient_name, idCard: sent.id_card, hisPatientId: sent.his_patient_id },
    {
      patientRef: registered.patient_ref,
      name: registered.name,
      idCard: registered.id_card,
      hisPatientId: registered.his_patient_id,
    },
  );
}

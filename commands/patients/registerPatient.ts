import { z } from "zod";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import type { Patient, PatientEvent } from "./events.ts";
import { explainIdCard } from "./nationalId.ts";

export const PATIENT_REF_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const registerPatientInput = z.object({
  name: z
    .string({ error: "name is required: the patient's name as registered" })
    .trim()
    .min(1, "name must not be empty")
    .max(100, "name has at most 100 characters"),
  idCard: z.string({ error: "idCard is required: the patient's 18-character national identity number" }),
  hisPatientId: z.string().trim().max(64, "hisPatientId has at most 64 characters").nullish(),
  ward: z.string().trim().max(64, "ward has at most 64 characters").nullish(),
  active: z.boolean({ error: "active must be true or false" }).default(true),
});

export type RegisterPatient = z.output<typeof registerPatientInput>;

export const patientDecider: Decider<Patient | null, RegisterPatient, PatientEvent> = {
  initialState: () => null,
  evolve: (state, event) => {
    switch (event.type) {
      case "PatientRegistered":
      case "PatientUpdated":
        return { ...(state ?? {}), ...event.data };
    }
  },
  decide: (command, state) => {
    const idCard = explainIdCard(command.idCard);
    if (!idCard.valid)
      throw new CommandError(
        "invalid",
        idCard.reason ?? "idCard is not a valid national identity number",
        "id-card-invalid",
      );
    const patient: Patient = {
      name: command.name,
      idCard: idCard.normalised,
      hisPatientId: command.hisPatientId || null,
      ward: command.ward || null,
      active: command.active,
    };
    if (!state) return [{ type: "PatientRegistered", data: patient }];
    const changed = (Object.keys(patient) as (keyof Patient)[]).some((field) => patient[field] !== state[field]);
    return changed ? [{ type: "PatientUpdated", data: patient }] : [];
  },
};

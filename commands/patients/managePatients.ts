import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { waitForProjection } from "../../projections/waitForProjection.ts";
import { patientsByIdCards } from "../../queries/patients.ts";
import type { CommandContext } from "../commandContext.ts";
import { CommandError } from "../commandError.ts";
import { handleCommand } from "../handleCommand.ts";
import { normaliseIdCard } from "./nationalId.ts";
import { patientDecider, patientStream, type RegisterPatient } from "./registerPatient.ts";

export interface PatientSaved {
  patientRef: string;
  created: boolean;
  changed: boolean;
}

/**
 * Registers or updates a dialysis patient. One identity number belongs to one patient of a tenant:
 * a second patient with the same number would make report matching ambiguous.
 */
export async function savePatient(ctx: CommandContext, db: Db, tenant: string, patientRef: string, input: RegisterPatient): Promise<PatientSaved> {
  const holders = await readAsTenant(db, tenant, (reader) => patientsByIdCards(reader, [normaliseIdCard(input.idCard)]));
  const other = holders.find((holder) => holder.patientRef !== patientRef);
  if (other) throw new CommandError("conflict", `idCard is already registered to patient ${other.patientRef}; update that patient instead.`);
  const { appended, state } = await handleCommand(ctx.store, { tenant, streamId: patientStream(patientRef) }, patientDecider, input, ctx.metadata);
  // The next push must match against this patient: wait until the read model has it.
  if (appended) await waitForProjection(db, "patients", appended.last);
  return { patientRef, created: state === null, changed: appended !== null };
}

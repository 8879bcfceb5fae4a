import type { RegisteredIdCards } from "../../commands/patients/managePatients.ts";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { patientsByIdCards } from "../../queries/patients/patients.ts";

/** Saving a patient's look-up of who holds an id card in the patients read model. */
export function registeredIdCards(db: Db): RegisteredIdCards {
  return {
    holders: async (tenant, idCard) => (await readAsTenant(db, tenant, (reader) => patientsByIdCards(reader, [idCard]))).map((holder) => holder.patientRef),
  };
}

import type { IdentifierHasher } from "../../commands/kit/identifierHasher.ts";
import type { IdCardRegister, PatientsByIdCards } from "../../commands/patients/managePatients.ts";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { withWardScope } from "../../db/wardScope.ts";
import { patientsByIdCards, patientVisible } from "../../queries/patients/patients.ts";

/**
 * The commands' look-up of registered patients by id card, over the patients read model. Every
 * ward's, whoever calls: it checks that one number is one patient's, and matches reports, which
 * a caller's ward scope must not narrow (a card held in another ward is still held).
 */
export function registeredPatients(db: Db): PatientsByIdCards {
  return (tenant, idCards) =>
    idCards.length === 0
      ? Promise.resolve([])
      : withWardScope(null, () => readAsTenant(db, tenant, (reader) => patientsByIdCards(reader, idCards)));
}

/**
 * What saving a patient needs: the look-up above, whom the caller sees (under the request's ward
 * scope, as every read of the request: a caller without wards, or the CSV import, sees everyone),
 * and the deployment's identifier hasher (src/secrets/identifierKey.ts).
 */
export function idCardRegister(db: Db, hasher: IdentifierHasher): IdCardRegister {
  return {
    holders: registeredPatients(db),
    visible: (tenant, patientRef) => readAsTenant(db, tenant, (reader) => patientVisible(reader, patientRef)),
    hasher,
  };
}

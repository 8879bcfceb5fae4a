import { patientStreams, type PatientEvent } from "../../commands/patients/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";

/** The tenant's dialysis patients, matched against incoming reports by national identity number. */
export const patientsProjection: Projection<PatientEvent> = {
  name: "patients",
  version: 2,
  handles: ["PatientRegistered", "PatientUpdated"],
  tables: ["patients"],
  patientRows: { patients: { ward: "ward" } },
  ddl: "projections/patients/patients.sql",
  async apply(tx: Tx, event: StoredEvent<PatientEvent>) {
    const p = event.data;
    await tx.query(
      `insert into patients (tenant, patient_ref, name, id_card, his_patient_id, ward, active, registered_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       on conflict (tenant, patient_ref) do update set name = excluded.name, id_card = excluded.id_card,
         his_patient_id = excluded.his_patient_id, ward = excluded.ward, active = excluded.active, updated_at = excluded.updated_at`,
      [
        event.tenant,
        patientStreams.key(event.streamId),
        p.name,
        p.idCard,
        p.hisPatientId,
        p.ward,
        p.active,
        event.recordedAt,
      ],
    );
  },
};

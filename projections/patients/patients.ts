import { patientStreams, type PatientEvent } from "../../commands/patients/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";

/** The tenant's dialysis patients, matched against incoming reports by national identity number. */
export const patientsProjection: Projection<PatientEvent> = {
  name: "patients",
  version: 1,
  handles: ["PatientRegistered", "PatientUpdated"],
  tables: ["patients"],
  async setup(tx: Tx) {
    await tx.query(`
      create table patients (
        tenant text not null,
        patient_ref text not null,
        name text not null,
        id_card text not null,
        his_patient_id text,
        ward text,
        active boolean not null,
        registered_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (tenant, patient_ref)
      );
      create index patients_by_id_card on patients (tenant, id_card)`);
  },
  async apply(tx: Tx, event: StoredEvent<PatientEvent>) {
    const p = event.data;
    await tx.query(
      `insert into patients (tenant, patient_ref, name, id_card, his_patient_id, ward, active, registered_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       on conflict (tenant, patient_ref) do update set name = excluded.name, id_card = excluded.id_card,
         his_patient_id = excluded.his_patient_id, ward = excluded.ward, active = excluded.active, updated_at = excluded.updated_at`,
      [event.tenant, patientStreams.key(event.streamId), p.name, p.idCard, p.hisPatientId, p.ward, p.active, event.recordedAt],
    );
  },
};

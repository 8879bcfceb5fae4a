import type { AccessEvent } from "../../commands/access/events.ts";
import type { Projection } from "../runtime/projection.ts";

/** Who was shown which patients (contract E.4), as the access-log routes read it. */
export const accessLogProjection: Projection<AccessEvent> = {
  name: "access_log",
  version: 1,
  handles: ["PatientRecordsShown"],
  tables: ["access_log"],
  ddl: "projections/access/accessLog.sql",
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
  // One statement a batch: a busy service writes a record for most of the answers it gives.
  async applyBatch(tx, events) {
    const rows = events.map(({ tenant, position, data }, ord) => ({
      ord,
      tenant,
      position,
      at: data.at,
      who: data.who,
      credential: data.credential,
      roles: data.roles,
      action: data.action,
      patient_refs: data.patientRefs,
      patient_refs_truncated: data.patientRefsTruncated === true,
      reports: data.reports ?? null,
      request_id: data.requestId,
      outcome: data.outcome,
    }));
    await tx.query(
      `insert into access_log (tenant, position, at, who, credential, roles, action, patient_refs, patient_refs_truncated, reports, request_id, outcome)
       select r.tenant, r.position, r.at, r.who, r.credential, r.roles, r.action, r.patient_refs, r.patient_refs_truncated, r.reports, r.request_id, r.outcome
       from jsonb_to_recordset($1::jsonb) as r(ord integer, tenant text, position bigint, at timestamptz, who text, credential text, roles text[], action text,
         patient_refs text[], patient_refs_truncated boolean, reports text[], request_id text, outcome text)
       order by r.ord
       on conflict (position) do nothing`,
      [JSON.stringify(rows)],
    );
  },
};

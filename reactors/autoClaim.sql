-- The auto_claim reactor's own tables (autoClaim.ts): the patients it knows, the reports awaiting one.
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table known_patients (tenant text, patient_ref text, id_card text not null, name text not null, primary key (tenant, patient_ref));
create index known_patients_by_id_card on known_patients (tenant, id_card);
create table pending_reports (tenant text, kind text, external_id text, id_card text not null, name text, stream_version integer not null,
                              primary key (tenant, kind, external_id));
create index pending_reports_by_id_card on pending_reports (tenant, id_card);

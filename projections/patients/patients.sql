-- The patients projection's table (patients.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

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
create index patients_by_id_card on patients (tenant, id_card);

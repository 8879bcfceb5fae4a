-- The access_log projection's table (accessLog.ts): one row per access record (contract E.4).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table access_log (
  -- The order rows were applied in (the store's order: writing transaction, then position), the
  -- same after a rebuild: an admin's cursor pages by it, and a record written later never lands
  -- behind a page already read, as it could by position.
  seq bigint generated always as identity primary key,
  tenant text not null,
  position bigint not null unique,
  at timestamptz not null,
  who text not null,
  credential text not null,
  roles text[] not null,
  action text not null,
  patient_refs text[] not null,
  patient_refs_truncated boolean not null,
  reports text[],
  request_id text not null,
  outcome text not null
);
create index access_log_by_seq on access_log (tenant, seq);
create index access_log_by_at on access_log (tenant, at, seq);
create index access_log_by_who on access_log (tenant, who, seq);
-- "Who looked at this patient": the records naming a patient, whatever else they name.
create index access_log_by_patient on access_log using gin (patient_refs);

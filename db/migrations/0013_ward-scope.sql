-- Up Migration

-- Ward scope (contract E.2): whether the caller may see the rows of this patient. Used by the
-- restrictive row-level security policy of every read table whose rows belong to a patient
-- (projections/runtime/generations.ts). No wards set (app.wards empty): everything. A row of no
-- patient yet (an unmatched report): everyone. Otherwise the patient must be visible in
-- read.patients, whose own policy keeps the patients of the caller's wards: the ward rule lives
-- in one policy. The body names read.patients, which the projections create after migrations.
set check_function_bodies = off;
create function ward_scope_allows(patient_ref text) returns boolean
  language sql stable parallel safe
  as $$
    select coalesce(current_setting('app.wards', true), '') = ''
      or patient_ref is null
      or exists (select 1 from read.patients p where p.patient_ref = ward_scope_allows.patient_ref)
  $$;
reset check_function_bodies;
grant execute on function ward_scope_allows(text) to dh_tenant_reader;

-- Down Migration
drop function ward_scope_allows(text);

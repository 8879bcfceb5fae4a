-- The lab_results projection's derived results (derivedResults.ts, contract F.2), after labResults.sql.
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

-- Every version of every formula the dictionary releases have put in force, and from when to when
-- (the release's recorded time): reference data shared by the tenants.
create table derived_formulas (
  std_code text not null,
  version integer not null,
  name text not null,
  expression text not null,
  decimals integer not null,
  sent_as text[] not null,
  unit text not null,
  released_at timestamptz not null,
  superseded_at timestamptz,
  primary key (std_code, version)
);

-- A patient's derived value of a day of collection, by each version of its formula: the current
-- version's rows are what the chart, FHIR and clinical.derived_results show, an earlier version's
-- what they showed before the release that replaced it. inputs: [{ externalId, itemIndex, stdCode }].
create table derived_results (
  tenant text not null,
  patient_ref text not null,
  std_code text not null,
  collected_on date not null,
  formula_version integer not null,
  value double precision not null,
  unit text not null,
  collected_at timestamp not null,
  inputs jsonb not null,
  -- A patient's day first: derived again a day at a time, and a chart's period of a patient holds few rows.
  primary key (tenant, patient_ref, collected_on, std_code, formula_version)
);

-- Patients' days whose input rows changed or went within a batch: derived again before it ends.
create table underived_days (
  tenant text not null,
  patient_ref text not null,
  collected_on date not null,
  primary key (tenant, patient_ref, collected_on)
);
-- Dashboards over a period read one item of every patient.
create index derived_results_by_item on derived_results (tenant, std_code, collected_on);

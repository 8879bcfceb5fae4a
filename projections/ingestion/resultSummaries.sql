-- The lab_results projection's summaries (resultSummaries.ts), after labResults.sql; setup fills std_targets.
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table patient_wards (
  tenant text not null,
  patient_ref text not null,
  ward text,
  primary key (tenant, patient_ref)
);
create table result_months (
  tenant text not null,
  std_code text not null,
  month date not null,
  ward text,
  results integer not null,
  patients integer not null,
  value_sum numeric not null,
  below_target integer not null,
  in_target integer not null,
  above_target integer not null,
  unique nulls not distinct (tenant, std_code, month, ward)
);
-- The groups a correction emptied, to be dropped (a replay would not make them).
create index result_months_emptied on result_months (tenant) where results = 0;
create table latest_results (
  tenant text not null,
  patient_ref text not null,
  std_code text not null,
  std_value double precision not null,
  reported_at timestamp not null,
  reported_on date not null,
  external_id text not null,
  item_index integer not null,
  primary key (tenant, patient_ref, std_code)
);
create index latest_results_by_item on latest_results (tenant, std_code, reported_on);
create table std_targets (
  code text primary key,
  low double precision,
  high double precision,
  source text not null
);
-- Reports whose item rows are written but not yet in the summaries: while the projection catches
-- up, it counts them in one pass every few thousand reports instead of batch by batch (labResults.ts).
create table unsummarised_reports (
  tenant text not null,
  external_id text not null,
  primary key (tenant, external_id)
);

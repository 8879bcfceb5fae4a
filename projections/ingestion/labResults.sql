-- The lab_results projection's item rows (labResults.ts); its summaries are in resultSummaries.sql.
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table lab_results (
  tenant text not null,
  external_id text not null,
  item_index integer not null,
  patient_ref text,
  item_code text,
  item_name text,
  std_code text,
  std_name text,
  category text,
  value_num double precision,
  value_text text,
  unit text,
  std_value double precision,
  std_unit text,
  unit_status text not null,
  ref_low double precision,
  ref_high double precision,
  abnormal_flag text,
  result_type text,
  collected_at timestamp,
  reported_at timestamp not null,
  -- The days as their own columns: report SQL compares them with date parameters, and only
  -- date-to-date comparisons may pass the clinical views' tenant barrier to reach an index.
  collected_on date,
  reported_on date not null,
  -- Contract F.1: the sender of a row an item mapping may touch (one the dictionary left unmapped,
  -- or one a mapping mapped; null otherwise), and the mapping that mapped it.
  client_name text,
  mapping_id uuid,
  primary key (tenant, external_id, item_index)
);

-- The items no dictionary entry matched (contract F.1: GET /api/dictionary/unmapped lists them by
-- sender, code and name): a few of the rows, so the list costs what is unmapped, not what is stored.
-- In code-point order: the re-mapping steps (itemRemapping.ts) cut the reports by externalId so.
create index lab_results_unmapped on lab_results (tenant, external_id collate "C") where std_code is null;
create index lab_results_by_mapping on lab_results (mapping_id) where mapping_id is not null;

-- The tenants' item mappings as this projection applies them (itemRemapping.ts).
create table item_mapping_rules (
  tenant text not null,
  mapping_id uuid primary key,
  client text,
  item_code text,
  item_name text,
  unit text,
  std_code text not null,
  std_name text not null,
  category text not null,
  std_unit text not null,
  units jsonb not null,
  other_units jsonb not null,
  specificity integer not null,
  position bigint not null,
  in_force boolean not null
);

-- How far each mapping's re-mapping steps have reached in these rows (GET /api/dictionary/mappings):
-- the results its steps mapped, of how many the reactor counted, and whether its last step is applied.
create table remap_progress (
  tenant text not null,
  mapping_id uuid primary key,
  results integer not null,
  total integer,
  done boolean not null
);

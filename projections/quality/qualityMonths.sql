-- The quality_months projection's tables (qualityMonths.ts, monthValues.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

-- Every laboratory report as last received (but cancelled ones): whose it is and the month it was
-- collected in (else reported), in the service's time zone. A patient is under care in a month
-- when a report of theirs lies in it (contract G.2): a month's patients are a few hundred rows.
create table quality_reports (
  tenant text not null,
  external_id text not null,
  patient_ref text,
  month date not null,
  at timestamp not null,
  primary key (tenant, external_id)
);
create index quality_reports_by_month on quality_reports (tenant, month, patient_ref) where patient_ref is not null;
create index quality_reports_by_patient on quality_reports (tenant, patient_ref, month) where patient_ref is not null;

-- The result items a month's values are made of: those of the indicators' items and of the
-- formulas that derive them (monthValues.ts), and the items an item mapping may still give a
-- standard code to (contract F.1: unmapped, or mapped by a mapping that may be undone).
create table quality_items (
  tenant text not null,
  external_id text not null,
  item_index integer not null,
  std_code text,
  std_value double precision,
  value_num double precision,
  value_text text,
  result_type text,
  -- What an item mapping matches (as lab_results keeps it) and the mapping that mapped the item.
  client_name text,
  item_code text,
  item_name text,
  unit text,
  mapping_id uuid,
  at timestamp not null,
  reported_at timestamp not null,
  day date not null,
  primary key (tenant, external_id, item_index)
);
create index quality_items_unmapped on quality_items (tenant) where std_code is null;
create index quality_items_by_mapping on quality_items (mapping_id) where mapping_id is not null;

-- Each patient's last value of each indicator item in each month (contract G.2), by collection
-- time, derived values included (F.2: the laboratory's own value wins on its day): what a month's
-- figures read, some patients × items rows a month however many years the store holds.
create table quality_values (
  tenant text not null,
  std_code text not null,
  month date not null,
  patient_ref text not null,
  -- Null for a qualitative result (value_text holds it).
  value double precision,
  value_text text,
  at timestamp not null,
  -- The reports it was read from (a derived value: those of its inputs, each once).
  external_ids text[] not null,
  -- A derived value's formula version; null for a value as sent.
  formula_version integer,
  primary key (tenant, std_code, month, patient_ref)
);
create index quality_values_by_patient on quality_values (tenant, patient_ref, month);

-- The tenants' item mappings (contract F.1) as this projection applies them (monthItems.ts).
create table quality_mapping_rules (
  tenant text not null,
  mapping_id uuid primary key,
  client text,
  item_code text,
  item_name text,
  unit text,
  std_code text not null,
  units jsonb not null,
  other_units jsonb not null,
  specificity integer not null,
  position bigint not null,
  in_force boolean not null
);

-- The formulas in force (contract F.2) that derive an indicator's item, as the releases put them.
create table quality_formulas (
  std_code text primary key,
  version integer not null,
  expression text not null,
  decimals integer not null,
  sent_as text[] not null
);

-- The last event of each tenant (or of every tenant: a dictionary release) this projection applied,
-- in the store's order: the month's facts are read with it in one statement, so a close can name
-- the point of the store its figures are of, and its restatement the events after it
-- (queries/quality/monthFacts.ts).
create table quality_applied (
  tenant text primary key,
  tx xid8 not null,
  position bigint not null
);

-- The months closed (contract G.2), of a ward or of the whole tenant (ward null), with the store
-- position their figures were counted at: changes to them from then on are kept as moves.
create table quality_closes (
  tenant text not null,
  month date not null,
  ward text,
  position bigint,
  closed_position bigint not null,
  unique nulls not distinct (tenant, month, ward)
);

-- What moved a patient's month after a month that looks at it was closed (monthMoves.ts): each
-- event that came, changed or took away a last value (std_code), or put the patient under care in
-- the month or took them out of it (std_code ''); '*' for an event whose effect is not known item
-- by item (one recorded while the close was being counted). Kept only for months a close looks
-- at, so a store of years of history holds the few late changes, not every result. A
-- restatement reads the moves of its month after the close's position (queries/quality/restatement.ts).
create table quality_moves (
  tenant text not null,
  patient_ref text,
  month date not null,
  std_code text not null,
  -- came, changed or went: a value that came or went moves a tested indicator, any change a target.
  change text not null,
  position bigint not null,
  event_type text not null,
  external_id text,
  at timestamptz not null
);
create index quality_moves_by_month on quality_moves (tenant, month, position);

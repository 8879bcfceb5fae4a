-- The standard_items projection's table (standardItems.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table std_items (
  code text primary key, name text not null, category text not null, unit text not null,
  core boolean not null, timing boolean not null, value_type text not null, loinc text, version text not null,
  -- Null for an item of a release recorded before items had English names and labels in the store.
  name_en text, label text
);

-- Every version of every formula the releases have put in force (contract F.2), from when to when
-- (the release's recorded time): derived values are worked out on reading by the version in force
-- at the moment asked for (queries/patients/derivedResults.ts).
create table formula_versions (
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

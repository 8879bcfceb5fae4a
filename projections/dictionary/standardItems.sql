-- The standard_items projection's table (standardItems.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table std_items (
  code text primary key, name text not null, category text not null, unit text not null,
  core boolean not null, timing boolean not null, value_type text not null, loinc text, version text not null,
  -- Null for an item of a release recorded before items had English names and labels in the store.
  name_en text, label text
);

-- The item_mappings projection's table (itemMappings.ts): every item mapping made (contract F.1),
-- in force until removed_at. Run in each new generation's schema: a change in meaning wants the
-- projection's version bumped.

create table item_mappings (
  tenant text not null,
  mapping_id uuid primary key,
  stream_id text not null,
  client text,
  item_code text,
  item_name text,
  unit text,
  std_code text not null,
  factor double precision,
  reason text,
  -- Where the mapping's event stands: of two mappings as specific, the earlier one wins.
  position bigint not null,
  added_at timestamptz not null,
  added_by text not null,
  removed_at timestamptz,
  removed_by text,
  removed_reason text,
  -- The re-mapping of the results stored before it (ItemMappingApplied steps): how many of how
  -- many so far, and whether its last step is taken.
  remap_results integer not null default 0,
  remap_total integer,
  remap_done boolean not null default false
);
create index item_mappings_in_force on item_mappings (tenant) where removed_at is null;

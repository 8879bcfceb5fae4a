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
  -- The standard unit and how each sent unit converts to it, as the mapping's event recorded them
  -- (units: [{unit, unitStatus, factor, offset}], other_units: any other unit): the list shows them.
  std_unit text,
  units jsonb,
  other_units jsonb,
  factor double precision,
  reason text,
  -- Where the mapping's event stands: of two mappings as specific, the earlier one wins. The
  -- events' order is (transaction_id, position), as the feed gives them: a report's history places
  -- the mapping's steps among the report's own events by it.
  position bigint not null,
  transaction_id xid8 not null,
  added_at timestamptz not null,
  added_by text not null,
  removed_at timestamptz,
  removed_by text,
  removed_reason text,
  removed_tx xid8,
  removed_position bigint
);
create index item_mappings_in_force on item_mappings (tenant) where removed_at is null;

-- The steps of re-mapping the results stored before a mapping (ItemMappingApplied): which reports
-- each covered (externalIds after after_id up to through_id, in code-point order), for the history.
create table item_mapping_steps (
  tenant text not null,
  mapping_id uuid not null,
  after_id text,
  through_id text,
  transaction_id xid8 not null,
  position bigint not null,
  recorded_at timestamptz not null,
  primary key (mapping_id, position)
);

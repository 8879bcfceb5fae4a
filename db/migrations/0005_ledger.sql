-- Up Migration

-- Tamper evidence (contract D.2): events are sealed in blocks, in the order projections read them
-- (writing transaction, then position), up to the oldest transaction still running, so no event
-- can later appear inside a sealed stretch without being written there by hand. Each sealed
-- event's hash is kept; a block's root is the Merkle root of its events' hashes, and each block
-- names the root of the one before.
create table ledger_blocks (
  no             bigint      primary key,
  events         integer     not null check (events > 0),
  first_position bigint      not null,
  last_position  bigint      not null,
  -- The last event of the block in reading order: where the next block starts.
  last_tx        xid8        not null,
  last_tx_position bigint    not null,
  root           text        not null,
  prev           text,
  sealed_at      timestamptz not null default clock_timestamp()
);

create table ledger_event_hashes (
  position bigint  primary key,
  block_no bigint  not null references ledger_blocks (no),
  ordinal  integer not null,
  hash     text    not null,
  unique (block_no, ordinal)
);

-- Like the events: never updated or deleted by the service.
create function ledger_is_append_only() returns trigger
language plpgsql as $$
begin
  raise exception 'the ledger is append-only: % on % is not allowed', tg_op, tg_table_name
    using errcode = 'restrict_violation';
end;
$$;

create trigger ledger_blocks_append_only before update or delete on ledger_blocks
  for each row execute function ledger_is_append_only();
create trigger ledger_blocks_no_truncate before truncate on ledger_blocks
  for each statement execute function ledger_is_append_only();
create trigger ledger_event_hashes_append_only before update or delete on ledger_event_hashes
  for each row execute function ledger_is_append_only();
create trigger ledger_event_hashes_no_truncate before truncate on ledger_event_hashes
  for each statement execute function ledger_is_append_only();

-- Down Migration
drop table ledger_event_hashes;
drop table ledger_blocks;
drop function ledger_is_append_only();

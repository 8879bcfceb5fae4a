-- Up Migration

-- The event store: the only source of truth. Everything else is a projection of it.
create table events (
  position       bigint generated always as identity primary key,
  -- The writing transaction's id. Readers order by (transaction_id, position) and only read
  -- below the oldest transaction still running, so a reader never passes an event that a
  -- slower transaction will still commit with a lower position (see projections/eventFeed.ts).
  transaction_id xid8        not null default pg_current_xact_id(),
  tenant         text        not null,
  stream_id      text        not null,
  stream_version integer     not null check (stream_version > 0),
  type           text        not null,
  data           jsonb       not null,
  metadata       jsonb       not null,
  recorded_at    timestamptz not null default clock_timestamp(),
  constraint events_stream_version_unique unique (tenant, stream_id, stream_version)
);

create index events_transaction_order on events (transaction_id, position);

-- History is never rewritten: refuse UPDATE, DELETE and TRUNCATE in the database itself, so
-- no code path (or operator with a psql prompt and a bad day) can do it by accident.
create function events_are_append_only() returns trigger
language plpgsql as $$
begin
  raise exception 'the event store is append-only: % on events is not allowed', tg_op
    using errcode = 'restrict_violation';
end;
$$;

create trigger events_no_update_or_delete
  before update or delete on events
  for each row execute function events_are_append_only();

create trigger events_no_truncate
  before truncate on events
  for each statement execute function events_are_append_only();

-- One row per generation of a projection. The live generation serves reads; a rebuild fills a
-- new generation in its own schema while the live one keeps serving, then swaps.
create table projection_generations (
  name           text        not null,
  generation     integer     not null,
  version        integer     not null,
  schema_name    text        not null unique,
  state          text        not null check (state in ('building', 'live', 'retired')),
  last_tx        xid8        not null default '0',
  last_position  bigint      not null default 0,
  applied_count  bigint      not null default 0,
  error          text,
  error_position bigint,
  error_at       timestamptz,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  live_since     timestamptz,
  primary key (name, generation)
);

create unique index projection_generations_one_live on projection_generations (name) where state = 'live';

-- Stable names for the read tables: each view points at the live generation's table.
create schema if not exists read;

-- Down Migration
drop schema if exists read cascade;
drop table projection_generations;
drop table events;
drop function events_are_append_only();

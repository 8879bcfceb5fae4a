-- The credentials projection's tables (credentials.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table clients (
  tenant text not null,
  client_id text primary key,
  name text not null,
  key_digest text not null unique,
  code_map jsonb not null default '{}',
  created_at timestamptz not null,
  revoked_at timestamptz
);
create table authors (
  tenant text not null,
  author_id text primary key,
  name text not null,
  token_digest text not null unique,
  created_at timestamptz not null
);

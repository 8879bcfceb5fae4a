-- Up Migration

-- The `research` data source (contract G.1): report SQL of researchers connects as this login
-- role, which may read the views of schema `research` and nothing else (not `clinical`: a
-- research report must not reach names by naming the other schema). Its password is set by the
-- service at start (db/reportRunner.ts), as the clinical role's is.
do $$
begin
  create role dh_research_runner login nosuperuser nocreatedb nocreaterole noinherit;
exception when duplicate_object or unique_violation then
  null;
end
$$;
create schema if not exists research;
grant usage on schema research to dh_research_runner;

-- The key of the research pseudonyms: HMAC-SHA256 with the key padded as RFC 2104 does, kept as
-- its two pads so that the views compute it with sha256() alone. Written by the service at start
-- from the identifier hash key (src/secrets/researchKey.ts); read only by the views' owner.
create table research_pseudonym_key (
  one boolean primary key default true check (one),
  inner_pad bytea not null check (length(inner_pad) = 64),
  outer_pad bytea not null check (length(outer_pad) = 64)
);
revoke all on research_pseudonym_key from public;

-- Sign-ins under way live in a cookie of the browser that started them (src/staffSessions/signInSeal.ts).
drop table if exists staff_sign_ins;

-- Down Migration
create table staff_sign_ins (
  state_digest text primary key,
  code_verifier text not null,
  nonce text not null,
  tenant text not null,
  created_at timestamptz not null default now()
);
revoke all on staff_sign_ins from public;
drop table research_pseudonym_key;
drop schema if exists research cascade;

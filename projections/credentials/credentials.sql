-- The credentials projection's tables (credentials.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table clients (
  tenant text not null,
  client_id text primary key,
  name text not null,
  code_map jsonb not null default '{}',
  created_at timestamptz not null,
  expires_at timestamptz,
  revoked_at timestamptz
);
create table authors (
  tenant text not null,
  author_id text primary key,
  name text not null,
  -- What the author's tokens may do and the wards they see (contract E.2; null wards: every ward).
  roles text[] not null,
  wards text[],
  created_at timestamptz not null,
  expires_at timestamptz,
  revoked_at timestamptz
);
-- Every secret a credential was given: a rotation adds one and sets the end of those before it,
-- so a credential may have several that work at once. `digest` is `hmac:<hex>` (keyed) or the
-- plain SHA-256 hex of a secret issued before contract E.3; look-ups try both.
create table credential_secrets (
  tenant text not null,
  digest text primary key,
  kind text not null check (kind in ('client', 'author')),
  credential_id text not null,
  issued_at timestamptz not null,
  valid_until timestamptz
);
create index credential_secrets_of_credential on credential_secrets (credential_id);

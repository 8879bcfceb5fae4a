-- Up Migration

-- Staff sign-in through the hospital's OpenID Provider (contract E.1). Both tables are the
-- service's working state, not its history: a sign-in under way lives minutes, a session hours;
-- rows past their time are deleted. Secrets are kept only as keyed digests (HMAC, the identifier
-- hash key): the `state` of a sign-in under way and the session cookie's value.

-- A sign-in sent to the provider and not back yet: what the callback must check and use. Taken
-- (deleted) by the first callback that names it, so a `state` works once.
create table staff_sign_ins (
  state_digest text primary key,
  code_verifier text not null,
  nonce text not null,
  tenant text not null,
  created_at timestamptz not null default now()
);

create table staff_sessions (
  id_digest text primary key,
  sub text not null,
  name text not null,
  tenant text not null,
  roles text[] not null,
  -- null: every ward of the tenant.
  wards text[],
  csrf text not null,
  -- For the provider's end-session endpoint (id_token_hint).
  id_token text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ended_at timestamptz
);
create index staff_sessions_expiry on staff_sessions (expires_at);
revoke all on staff_sign_ins, staff_sessions from public;

-- Down Migration
drop table staff_sessions;
drop table staff_sign_ins;

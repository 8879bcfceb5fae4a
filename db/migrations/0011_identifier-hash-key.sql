-- Up Migration

-- The key of the service's keyed hashes of identifiers (HMAC-SHA256; contract E.3): the stream of
-- a national id card is named by one, so that a stream id in a log or an error message cannot be
-- turned back into the number by trying the few billion plausible ones. Generated once per
-- database by the first process that starts (src/secrets/identifierKey.ts); `key` stays null when
-- the deployment keeps the key outside the database (ID_HASH_KEY), and `fingerprint` then lets a
-- process with a different key refuse to start rather than name the same card two ways. Only the
-- service's own database user may read it: no grant to the reader or report roles.
create table identifier_hash_key (
  one boolean primary key default true check (one),
  key bytea check (key is null or length(key) >= 32),
  fingerprint text not null,
  created_at timestamptz not null default now()
);
revoke all on identifier_hash_key from public;

-- Down Migration
drop table identifier_hash_key;

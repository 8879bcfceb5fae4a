-- Up Migration

-- The key of the unmatched queue's search by id card (issue #54): a person types a whole id card
-- number, the service sends the database only its keyed hash (HMAC-SHA256, never the number), and
-- the queue's rows are compared by the same hash computed here. The key is derived from the
-- identifier hash key for this purpose only and written by the service at start
-- (src/secrets/idCardSearchKey.ts), kept as its two RFC 2104 pads so that sha256() alone computes
-- it; only the function below reads it, for the tenant reader role, which cannot read the key.
create table id_card_search_key (
  one boolean primary key default true check (one),
  inner_pad bytea not null check (length(inner_pad) = 64),
  outer_pad bytea not null check (length(outer_pad) = 64)
);
revoke all on id_card_search_key from public;

-- The keyed hash of an id card as the queue's search compares it (null before the key is written).
create function id_card_search_digest(id_card text) returns text
  language sql stable security definer set search_path = pg_catalog, public
  as $$ select encode(sha256(k.outer_pad || sha256(k.inner_pad || convert_to(upper(btrim(id_card)), 'UTF8'))), 'hex')
          from public.id_card_search_key k $$;
revoke all on function id_card_search_digest(text) from public;
grant execute on function id_card_search_digest(text) to dh_tenant_reader;

-- Down Migration
drop function id_card_search_digest(text);
drop table id_card_search_key;

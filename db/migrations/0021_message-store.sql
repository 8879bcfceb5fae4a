-- Up Migration

-- Every message received (contract G.5; decision 0086): an append-only table of its own, not
-- events. A message is what a sender sent and what it was told, kept for an integration engineer
-- to find; its reports' history is the events it caused. Bodies are dropped after their retention
-- (MESSAGE_BODY_DAYS), which events may never be. Written in batches off the answer's path
-- (src/messages/messageRecorder.ts). Not a read model: nothing rebuilds it; backups carry it.
create table messages (
  message_id    uuid primary key,
  tenant        text not null,
  received_at   timestamptz not null,
  channel       text not null check (channel in ('open-v1', 'hl7-http', 'hl7-mllp', 'fhir', 'bulk')),
  client_id     text not null,
  client_name   text not null,
  bytes         integer not null check (bytes >= 0),
  outcome       text not null check (outcome in ('accepted', 'partial', 'refused')),
  external_ids  text[] not null,
  -- Keyed hashes (HMAC-SHA256, src/secrets/idCardSearchKey.ts) of the national ids and HIS ids the
  -- message carried: a search by patient id compares these, never a plain id card.
  patient_keys  text[] not null,
  errors        jsonb not null,
  answer        jsonb not null,
  -- The body as received, gzip-compressed, its first 1 MiB when it was larger (truncated).
  body          bytea,
  truncated     boolean not null default false
);
revoke all on messages from public;

-- Newest first within a tenant (keyset paging on received_at, message_id); the arrays by GIN.
create index messages_newest on messages (tenant, received_at desc, message_id desc);
create index messages_external_ids on messages using gin (external_ids);
create index messages_patient_keys on messages using gin (patient_keys);

-- The tenant reader reads read.* only (0002): the tenant's rows through a view of their own.
create view read.messages with (security_barrier = true) as
  select message_id, tenant, received_at, channel, client_id, client_name, bytes, outcome, external_ids,
         patient_keys, errors, answer, body, truncated
    from messages where tenant = current_setting('app.tenant', true);
grant select on read.messages to dh_tenant_reader;

-- Down Migration
drop view read.messages;
drop table messages;

-- Up Migration

-- When each client key or author token was last accepted (contract E.3, lastUsedAt). Telemetry,
-- not history: each API process notes uses in memory and writes them here every few seconds and
-- at shutdown, one row per credential, never an event (docs/operations.md, Credential lifecycle).
-- Not a read model: it is not rebuilt by replay; backups carry it (db/backup.ts, KEPT_TABLES).
create table credential_uses (
  credential_id text primary key,
  tenant text not null,
  last_used_at timestamptz not null
);
revoke all on credential_uses from public;

-- The tenant reader reads read.* only (0002): the tenant's rows through a view of their own, with
-- the owner's rights and the tenant filter in the view itself.
create view read.credential_uses with (security_barrier = true) as
  select credential_id, tenant, last_used_at from credential_uses where tenant = current_setting('app.tenant', true);
grant select on read.credential_uses to dh_tenant_reader;

-- Down Migration
drop view read.credential_uses;
drop table credential_uses;

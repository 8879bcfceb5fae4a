-- Up Migration

-- Queries read as this role: it can read the read.* views and nothing else, and row-level
-- security on every projection table lets it see only the tenant named in app.tenant
-- (db/tenantScope.ts). Roles are cluster-wide, so several databases may race to create it.
do $$
begin
  create role dh_tenant_reader nologin;
exception when duplicate_object or unique_violation then
  null;
end
$$;

-- Membership is cluster-wide too; a superuser needs none, and a concurrent grant may race.
do $$
begin
  if not pg_has_role(current_user, 'dh_tenant_reader', 'member') then
    grant dh_tenant_reader to current_user;
  end if;
exception when others then
  if not pg_has_role(current_user, 'dh_tenant_reader', 'member') then
    raise;
  end if;
end
$$;
grant usage on schema read to dh_tenant_reader;

-- Down Migration
revoke usage on schema read from dh_tenant_reader;

-- Up Migration

-- Report SQL of the `clinical` data source connects as this login role (never as the service's
-- own, possibly superuser, role: a superuser session could be switched back by the report's SQL).
-- It may read the views of schema `clinical` and nothing else. Its password is set by the
-- service at start (db/reportRunner.ts).
do $$
begin
  create role dh_report_runner login nosuperuser nocreatedb nocreaterole noinherit;
exception when duplicate_object or unique_violation then
  null;
end
$$;

-- Which tenant each report connection serves, keyed by its backend pid and written by the
-- service itself before each report query. The views read it with their owner's rights; the
-- report role can neither read nor write it, and cannot change its own pid. (A GUC such as
-- app.tenant would not do: report SQL can call set_config().)
create table report_sessions (
  pid integer primary key,
  tenant text not null,
  bound_at timestamptz not null default now()
);

create schema if not exists clinical;
grant usage on schema clinical to dh_report_runner;
revoke create on schema public from public;

-- Down Migration
drop schema if exists clinical cascade;
drop table report_sessions;

-- Up Migration

-- The clinical data source may be a streaming replica (operations.md): its report connections'
-- pids are the replica's, and may be the same numbers as connections to the primary or another
-- replica. A binding names the server too, by the time it started (pg_postmaster_start_time(),
-- which report SQL cannot change either). Bindings made before this migration name no server and
-- match nothing: their connections are bound again on their next query.
alter table report_sessions add column server_started timestamptz not null default '-infinity';
alter table report_sessions drop constraint report_sessions_pkey;
alter table report_sessions add primary key (pid, server_started);

-- Down Migration
delete from report_sessions where server_started <> '-infinity';
alter table report_sessions drop constraint report_sessions_pkey;
alter table report_sessions add primary key (pid);
alter table report_sessions drop column server_started;

-- Up Migration

-- The read horizon (0009, 0015) as PL/pgSQL, its body unchanged. A SQL function with a FROM clause
-- is not inlined: each statement that calls it parsed and planned its body again (the
-- pg_stat_activity and pg_locks views and their joins), some 1 ms of every projection's read of
-- the store, which a bulk import makes thousands of times a minute (issue #35). PL/pgSQL keeps the
-- plan for the session. STABLE still means what 0009 relies on: the body runs on the calling
-- statement's snapshot (a non-volatile PL/pgSQL function takes no snapshot of its own), the one the
-- reader's scan of events uses.
create or replace function events_read_horizon() returns xid8
language plpgsql stable parallel restricted as $$
begin
  return (
    select coalesce(
      (select min(running)
       from pg_snapshot_xip(snapshot) running
       where xid(running) not in (
         select backend_xid from pg_stat_activity
         where backend_xid is not null
           and datid <> (select oid from pg_database where datname = current_database()))
         and (running::text::bigint & 4294967295)::oid not in (
           select objid from pg_locks
           where locktype = 'advisory' and classid = 1145569333 and objsubid = 2 and granted
             and database = (select oid from pg_database where datname = current_database()))),
      pg_snapshot_xmax(snapshot))
    from pg_current_snapshot() snapshot);
end
$$;

-- Down Migration
create or replace function events_read_horizon() returns xid8
language sql stable parallel restricted as $$
  select coalesce(
    (select min(running)
     from pg_snapshot_xip(snapshot) running
     where xid(running) not in (
       select backend_xid from pg_stat_activity
       where backend_xid is not null
         and datid <> (select oid from pg_database where datname = current_database()))
       and (running::text::bigint & 4294967295)::oid not in (
         select objid from pg_locks
         where locktype = 'advisory' and classid = 1145569333 and objsubid = 2 and granted
           and database = (select oid from pg_database where datname = current_database()))),
    pg_snapshot_xmax(snapshot))
  from pg_current_snapshot() snapshot
$$;

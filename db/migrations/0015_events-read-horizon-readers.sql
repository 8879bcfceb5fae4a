-- Up Migration

-- The read horizon (0009) passes over one more kind of open transaction: one that has declared it
-- writes no events. A projection's batch writes only its read tables, yet its transaction id held
-- back every other reader until it committed: lab_reports waited on lab_results' batches, and a
-- push's reconciliation on both (issue #35). Such a transaction declares itself by holding, for
-- its whole life, the advisory lock (1145569333, the low 32 bits of its own transaction id)
-- (projections/runtime/applyBatch.ts, NO_EVENTS_WRITTEN_SQL). The mark names the transaction, not
-- its backend: a backend's next transaction, which may write events, is not passed over, and the
-- mark ends with the transaction that took it. A running transaction whose mark is not seen yet
-- still holds the horizon, which is only slower. The transactions running at once are less than
-- 2^31 ids apart, so the low 32 bits name one of them. Report queries may not take advisory locks
-- (commands/reports/spec/sqlSafety.ts), so nobody else can pass one over.
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

-- Down Migration
create or replace function events_read_horizon() returns xid8
language sql stable parallel restricted as $$
  select coalesce(
    (select min(running)
     from pg_snapshot_xip(snapshot) running
     where xid(running) not in (
       select backend_xid from pg_stat_activity
       where backend_xid is not null
         and datid <> (select oid from pg_database where datname = current_database()))),
    pg_snapshot_xmax(snapshot))
  from pg_current_snapshot() snapshot
$$;

-- Up Migration

-- How far the gap-free readers (projections, the ledger's sealer) may read the events table: every
-- event of a transaction below the horizon is visible now or never will be. It was the snapshot's
-- xmin, the oldest transaction still running anywhere on the server; so a long transaction in
-- another application's database held back every projection here (issue #32, finding 10).
--
-- A transaction running in another database can never write this database's events, and a
-- backend belongs to one database for life: so the running transactions of the snapshot that
-- pg_stat_activity shows in another database are passed over. Every other one still bounds the
-- horizon: those of this database, prepared ones, those of background processes, and those that
-- finished after the snapshot was taken (they are not listed any more, and their events are not
-- in the snapshot). With none left, the horizon is the snapshot's xmax: every transaction below
-- it has finished.
--
-- STABLE on purpose: a stable function sees the calling statement's snapshot, the same one the
-- reader's scan of events uses. A volatile one would take a newer snapshot and could pass over a
-- transaction that committed after the scan's snapshot was taken, skipping its events for good.
-- pg_stat_activity shows every role datid and backend_xid, so the least-privileged roles can call it.
create function events_read_horizon() returns xid8
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

-- Down Migration
drop function events_read_horizon();

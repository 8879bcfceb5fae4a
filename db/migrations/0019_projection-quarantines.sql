-- Up Migration

-- A tenant held back in one projection (contract E.6, issue #52): an event of that tenant failed
-- for good (not a fault of the database), so the projection applies none of that tenant's events
-- from it on, and every other tenant's keep going. The projection's checkpoint moves past them;
-- this row remembers where the tenant's own progress stopped, and a retry (by itself after a
-- pause that doubles up to an hour, or at once on `projections retry`) applies that tenant's
-- events from there up to the projection's checkpoint, then lifts the row. Runtime state of a
-- generation like its checkpoint, not history: a rebuild starts with none.
create table projection_quarantines (
  name          text        not null,
  generation    integer     not null,
  tenant        text        not null,
  -- The tenant's events after this point (in the feed's order) wait: the failed one comes first.
  after_tx      xid8        not null,
  after_position bigint     not null,
  -- The event that failed, its SQLSTATE (null: the projection's own code threw) and message (for
  -- the server's log only: it may quote a value of the event, so no answer shows it).
  error_position bigint     not null,
  error_code    text,
  error         text        not null,
  since         timestamptz not null default now(),
  tries         integer     not null default 1,
  retry_at      timestamptz not null,
  primary key (name, generation, tenant),
  foreign key (name, generation) references projection_generations (name, generation)
);
revoke all on projection_quarantines from public;

-- Down Migration
drop table projection_quarantines;

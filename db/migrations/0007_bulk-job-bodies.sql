-- Up Migration

-- Bulk import (contract D.4): the body of a job, stored before the job is answered 202, in
-- pieces of whole lines. A piece is written in a transaction of its own while the upload
-- streams in (one transaction for a 512 MB upload would hold back every projection's reading
-- horizon for as long as the upload takes, projections/eventFeed.ts); the job exists only once
-- its BulkJobSubmitted event is appended after the last piece. The pieces of an upload that
-- never became a job (cut off, over a limit) are deleted by that upload; only a process that
-- dies mid-upload leaves some behind, which no job refers to.
create table bulk_job_bodies (
  tenant     text    not null,
  job_id     uuid    not null,
  piece      integer not null check (piece >= 0),
  -- The physical line number (1-based) of the piece's first line: rejected lines are reported
  -- by the line number a text editor shows, blank lines included.
  first_line integer not null check (first_line > 0),
  -- Non-blank lines: the reports of the piece.
  reports    integer not null check (reports > 0),
  body       text    not null,
  stored_at  timestamptz not null default clock_timestamp(),
  primary key (job_id, piece)
);

-- Down Migration
drop table bulk_job_bodies;

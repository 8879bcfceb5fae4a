-- The bulk_jobs projection's tables (bulkJobs.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table bulk_jobs (
  tenant text not null,
  job_id uuid primary key,
  kind text not null,
  client_id text not null,
  status text not null,
  lines integer not null,
  pieces integer not null,
  pieces_done integer not null default 0,
  processed integer not null default 0,
  accepted integer not null default 0,
  rejected integer not null default 0,
  created integer not null default 0,
  updated integer not null default 0,
  unchanged integer not null default 0,
  unmatched integer not null default 0,
  -- The order jobs were submitted in: a client's jobs run in this order.
  submitted_position bigint not null,
  created_at timestamptz not null,
  started_at timestamptz,
  finished_at timestamptz,
  reason text,
  -- Why a FAILED job stopped, as a stable code (commands/bulk/events.ts BULK_FAILURE_CODES).
  reason_code text
);
create index bulk_jobs_unfinished on bulk_jobs (submitted_position) where status in ('QUEUED', 'RUNNING');
create table bulk_job_rejections (
  tenant text not null,
  job_id uuid not null,
  line integer not null,
  external_id text,
  errors jsonb not null,
  primary key (job_id, line)
);

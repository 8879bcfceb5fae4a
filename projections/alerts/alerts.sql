-- The alerts projection's table (alerts.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table alerts (
  tenant text not null,
  alert_id text not null,
  external_id text not null,
  item_index integer not null,
  patient_ref text not null,
  code text not null,
  name text not null,
  value_num double precision,
  value_text text,
  unit text,
  flag text,
  reason text not null,
  collected_at timestamp,
  reported_at timestamp not null,
  raised_at timestamptz not null,
  acknowledged_at timestamptz,
  acknowledged_by text,
  note text,
  closed_at timestamptz,
  closed_reason text,
  -- Contract F.3: CRITICAL or DELTA; a DELTA alert's previous result, the change from it and the limit it exceeded.
  kind text not null default 'CRITICAL',
  previous double precision,
  previous_at timestamp,
  previous_external_id text,
  change double precision,
  delta_limit jsonb,
  -- A DELTA that is no alert of its own (decision 0073): 'critical', carried by the CRITICAL alert of
  -- its result (same report and code), or 'info', a return inside the reference range; null: an
  -- alert to acknowledge. Neither kind of row is counted, listed as open, streamed or sent.
  handled_as text,
  -- Contract G.3: when the last step of the alert's escalation is due (null: no escalation); each
  -- step's target's last attempt ({ step, target, channel, to, at, outcome, attempts, reason? });
  -- whom the acknowledging person told, and the value read back.
  escalation_due_at timestamptz,
  notifications jsonb not null default '[]',
  notified jsonb,
  read_back jsonb,
  primary key (tenant, alert_id)
);
-- The open list and the badge read the standing alerts only, however many the years keep.
create index alerts_open on alerts (tenant, raised_at) where acknowledged_at is null and closed_at is null and handled_as is null;
-- A critical alert finds the change it carries by its result: its report and item.
create index alerts_carried on alerts (tenant, external_id, code) where handled_as = 'critical' and closed_at is null;
create index alerts_info on alerts (tenant, raised_at) where handled_as = 'info' and closed_at is null;
create index alerts_acknowledged on alerts (tenant, acknowledged_at) where acknowledged_at is not null;
create index alerts_closed on alerts (tenant, closed_at) where closed_at is not null and acknowledged_at is null;

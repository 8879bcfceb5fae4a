-- The delta_checks reactor's own table (deltaChecks.ts): every delta-limited result it has met,
-- the state as of the event it reacts to, from which it finds a result's previous and next one.
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

create table delta_results (
  tenant text not null,
  external_id text not null,
  item_index integer not null,
  -- null while the report waits for a patient: it stands in no series until claimed.
  patient_ref text,
  std_code text not null,
  -- When the sample was collected, else when the result was reported: the series' order.
  at timestamp not null,
  value double precision not null,
  flag text,
  -- As the report sent them: what an alert raised on a later report carries.
  collected_at text,
  reported_at text not null,
  -- The position of the received event that wrote the row: a batch of first versions, written at
  -- once, judges each report as of its own event by leaving out the rows of the later ones.
  seen bigint not null,
  -- Inside the laboratory's reference range (by its bounds, else its flag), outside it, or null (not
  -- known): a change back inside from outside is information, not an alert (decision 0073).
  in_range boolean,
  primary key (tenant, external_id, item_index)
);
-- A result's previous and next one: the patient's series of the item, in the order the chart reads it.
create index delta_results_series on delta_results (tenant, patient_ref, std_code, at, external_id, item_index) where patient_ref is not null;

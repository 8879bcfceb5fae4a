-- The reports projection's tables (reports.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

-- titles: the spec's title when it is given per language ({ "zh": …, "en": … }), else null (issue #54).
create table reports (
  tenant text not null, report_id text not null, title text not null, datasource text not null,
  updated_at timestamptz not null, published_version integer, has_draft boolean not null,
  titles jsonb,
  primary key (tenant, report_id)
);
create table report_drafts (
  tenant text not null, report_id text not null, title text not null, datasource text not null,
  spec jsonb not null, audit jsonb not null, saved_at timestamptz not null, who text not null,
  primary key (tenant, report_id)
);
create table report_versions (
  tenant text not null, report_id text not null, no integer not null, title text not null, datasource text not null,
  spec jsonb not null, params jsonb not null, mode text not null, note text not null, audit jsonb not null,
  published_at timestamptz not null, who text not null, restored_from integer,
  primary key (tenant, report_id, no)
);
-- frozen_for: the publisher's wards (null: every ward); by_ward: each ward's own freeze (contract G.1).
create table report_snapshots (
  tenant text not null, report_id text not null, no integer not null, data jsonb not null,
  frozen_for jsonb, by_ward jsonb,
  primary key (tenant, report_id, no)
);

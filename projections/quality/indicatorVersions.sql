-- The quality_indicators projection's table (indicatorVersions.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

-- Every version of every quality indicator the dictionary releases have put in force (contract
-- G.2), from when to when: the month's figures count by the versions in force, a closed month
-- names those it was counted by, and a restatement names the release that changed one since.
create table quality_indicators (
  code text not null,
  version integer not null,
  name text not null,
  name_en text not null,
  kind text not null,
  items text[] not null,
  -- Null for a tested indicator, which has no band; an open side of a band is null.
  band jsonb,
  window_months integer not null,
  -- The unit of the first item (the band's unit), "min" for timeliness, "" when unit-less.
  unit text not null,
  source text not null,
  -- The same citation in Chinese; null where the release gave none.
  source_zh text,
  -- Its place in the release's list: answers list the indicators in the dictionary's order.
  ordinal integer not null,
  released_at timestamptz not null,
  -- Where the release stands in the store's order (transaction, then position), to tell a release
  -- recorded after a month's close.
  released_tx xid8 not null,
  released_position bigint not null,
  superseded_at timestamptz,
  primary key (code, version)
);

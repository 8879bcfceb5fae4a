-- The quality_closed_figures projection's table (closedFigures.ts).
-- Run in each new generation's schema: a change in meaning wants the projection's version bumped.

-- The figures of each closed month (contract G.2) as the close froze them, one row an indicator,
-- of a ward or of the whole tenant (ward null): what clinical.quality_months shows of a closed
-- month (db/clinicalViews.ts). The patients of each figure stay in the event alone.
create table quality_closed_figures (
  tenant text not null,
  month date not null,
  ward text,
  code text not null,
  version integer not null,
  numerator integer not null,
  denominator integer not null,
  rate double precision,
  unique nulls not distinct (tenant, month, ward, code)
);

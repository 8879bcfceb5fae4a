/*
 * clinical.quality_months (contract G.2): a month's quality figures as report SQL reads them, one
 * row a month, scope (a ward, or null: the whole tenant) and indicator. A closed month is its
 * close's frozen figures (quality_closed_figures); an open one is counted on reading from the
 * quality_months read tables, month by month, by the rules of queries/quality/monthFigures.ts
 * written again in SQL (decision 0081: test/http/qualityMonthsRelation.test.ts holds the two to
 * the same numbers):
 * - under care: a patient with a report collected (else reported) in the month; a ward's patients
 *   are those in it now;
 * - target: of those under care, the ones with a value of the indicator's items in the month,
 *   counted by the latest of the items' last values (to the second, the earlier item on a tie),
 *   met inside the band, edges included;
 * - tested: of those under care, met when every item has a value within the window's months;
 * - timeliness: 0 of 0 until contract G.3.
 * A scope has open rows for the months in which a patient of it was under care. The month of the
 * author's condition reaches the months' scan (to_char = is leakproof), so one month is counted
 * alone.
 */

/** The pieces of clinicalViews.ts the view is made of: this connection's tenant and wards. */
export interface ConnectionScope {
  /** An expression: the tenant bound to this connection. */
  tenant: string;
  /** An expression: the wards bound to this connection, null for every ward. */
  wards: string;
  /** A condition: a row of this ward is in the connection's scope. */
  inWardScope: (ward: string) => string;
}

/**
 * The figures of month `m.month`, one row a scope and indicator: read once, the month's patients
 * under care and their values in the months the indicators look at (a few rows a patient), then
 * each patient's place in each indicator (met, notMet, or null: untested), added up by scope.
 */
function monthFiguresSql({ tenant, wards, inWardScope }: ConnectionScope): string {
  const inBand = (value: string) =>
    `(i.band->>'low' is null or ${value} >= (i.band->>'low')::double precision)
     and (i.band->>'high' is null or ${value} <= (i.band->>'high')::double precision)`;
  return `with care as materialized (
      select distinct r.patient_ref, p.ward
      from read.quality_reports r
      left join read.patients p on p.tenant = r.tenant and p.patient_ref = r.patient_ref
      where r.tenant = ${tenant} and r.month = m.month and r.patient_ref is not null and ${inWardScope("p.ward")}
    ),
    indicators as materialized (
      select code, version, kind, items, band, window_months from read.quality_indicators where superseded_at is null
    ),
    month_values as materialized (
      select v.patient_ref, v.std_code, v.month, v.value, date_trunc('second', v.at) as at
      from read.quality_values v
      where v.tenant = ${tenant}
        and v.std_code = any (array(select distinct unnest(items) from indicators))
        and v.month between (m.month - make_interval(months => (select max(window_months) from indicators) - 1))::date and m.month
        and v.patient_ref in (select patient_ref from care)
    ),
    -- A target: the latest of its items' last values in the month, the earlier item on a tie.
    targets as (
      select distinct on (v.patient_ref, i.code) v.patient_ref, i.code,
             case when ${inBand("v.value")} then 'met' else 'notMet' end as place
      from indicators i
      cross join unnest(i.items) with ordinality as it(code, n)
      join month_values v on v.std_code = it.code and v.month = m.month and v.value is not null
      where i.kind = 'target'
      order by v.patient_ref, i.code, v.at desc, it.n
    ),
    -- Tested: every item measured within the window's months.
    tested as (
      select v.patient_ref, i.code, 'met' as place
      from indicators i
      cross join unnest(i.items) as it(code)
      join month_values v on v.std_code = it.code and v.month >= (m.month - make_interval(months => i.window_months - 1))::date
      where i.kind = 'tested'
      group by v.patient_ref, i.code, i.items
      having count(distinct v.std_code) = (select count(distinct item) from unnest(i.items) as item)
    )
    select case when grouping(c.ward) = 0 then c.ward end as ward, i.code, i.version,
           (count(*) filter (where pl.place = 'met'))::integer as numerator,
           (case i.kind when 'target' then count(pl.place) when 'tested' then count(*) else 0 end)::integer as denominator
    from care c
    cross join indicators i
    left join (select * from targets union all select * from tested) pl on pl.patient_ref = c.patient_ref and pl.code = i.code
    group by grouping sets ((i.code, i.version, i.kind), (i.code, i.version, i.kind, c.ward))
    having (grouping(c.ward) = 1 and ${wards} is null) or (grouping(c.ward) = 0 and c.ward is not null)`;
}

export function qualityMonthsSql(scope: ConnectionScope): string {
  const { tenant, inWardScope } = scope;
  // numerator / denominator to 4 decimals as Math.round does (half up), not as round(float8) may (half even).
  const rate = "floor(f.numerator::double precision / f.denominator * 10000 + 0.5) / 10000";
  return `select to_char(x.month, 'YYYY-MM') as month, x.ward, x.code, x.version, x.numerator, x.denominator, x.rate, 'closed'::text as state
          from read.quality_closed_figures x
          where x.tenant = ${tenant} and ${inWardScope("x.ward")}
          union all
          select to_char(m.month, 'YYYY-MM'), f.ward, f.code, f.version, f.numerator, f.denominator,
                 case when f.denominator > 0 then ${rate} end, 'open'::text
          from (select distinct r.month from read.quality_reports r where r.tenant = ${tenant} and r.patient_ref is not null) m
          cross join lateral (${monthFiguresSql(scope)}) f
          where not exists (
            select 1 from read.quality_closed_figures closed
            where closed.tenant = ${tenant} and closed.month = m.month and closed.ward is not distinct from f.ward)`;
}

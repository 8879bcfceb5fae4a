/**
 * What result_months must hold, recounted from the item rows by count(distinct): the truth both the
 * live path's summaries and a rebuild's countEveryMonth are held to. `items`, `wards` (tenant,
 * patient_ref, ward) and `targets` name the tables to read.
 */
export function monthRecountSql(tables: { items: string; wards: string; targets: string }): string {
  return `
  select r.tenant, r.std_code, date_trunc('month', r.reported_on)::date as month, w.ward, count(*)::int as results,
         count(distinct r.patient_ref)::int as patients, sum(r.std_value::numeric) as value_sum,
         count(*) filter (where r.std_value < t.low)::int as below_target,
         count(*) filter (where t.code is not null and not coalesce(r.std_value < t.low or r.std_value > t.high, false))::int as in_target,
         count(*) filter (where r.std_value > t.high)::int as above_target
  from ${tables.items} r
  left join ${tables.wards} w on w.tenant = r.tenant and w.patient_ref = r.patient_ref
  left join ${tables.targets} t on t.code = r.std_code
  where r.patient_ref is not null and r.std_value is not null
  group by 1, 2, 3, 4`;
}

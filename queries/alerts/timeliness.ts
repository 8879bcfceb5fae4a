import { z } from "zod";
import { parseLocalDateTime } from "../../db/localDateTime.ts";
import type { TenantReader } from "../../db/tenantScope.ts";

/*
 * Contract G.3: how fast the month's critical values were acknowledged. Counted over the critical
 * alerts raised in the month (local TZ), of the tenant or of the patients now in a ward; minutes from
 * raised to acknowledged. An alert an update closed before anyone acknowledged it counts as raised
 * and not acknowledged, as the accreditors count a value nobody confirmed.
 */

export const timelinessAnswer = z.object({
  month: z.string().meta({ example: "2026-10" }),
  ward: z.string().nullable(),
  raised: z.int().meta({ description: "Critical alerts raised in the month" }),
  acknowledged: z.int().meta({ description: "Of those, acknowledged (at any time)" }),
  within: z
    .object({ "15": z.int(), "30": z.int(), "60": z.int() })
    .meta({ description: "Of those raised, acknowledged within 15, 30 and 60 minutes (edges included)" }),
  medianMinutes: z
    .number()
    .nullable()
    .meta({ description: "Raised to acknowledged, of those acknowledged; null when none was" }),
  p90Minutes: z.number().nullable().meta({ description: "The 90th percentile of the same; null when none was" }),
  overdue: z
    .int()
    .meta({ description: "Of those raised, overdue now: the last escalation step due and nobody acknowledged" }),
});
export type TimelinessAnswer = z.infer<typeof timelinessAnswer>;

/** The instants the local month `yyyy-MM` spans, [start, end). */
function monthSpan(month: string): { start: Date; end: Date } {
  const start = parseLocalDateTime(`${month}-01 00:00:00`)!;
  const end = new Date(start);
  end.setMonth(end.getMonth() + 1);
  return { start, end };
}

const minutes = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

export async function timeliness(
  reader: TenantReader,
  { month, ward }: { month: string; ward: string | null },
): Promise<TimelinessAnswer> {
  const { start, end } = monthSpan(month);
  const { rows } = await reader.query<{
    raised: number;
    acknowledged: number;
    w15: number;
    w30: number;
    w60: number;
    median: number | null;
    p90: number | null;
    overdue: number;
  }>(
    `with raised as (
       select extract(epoch from a.acknowledged_at - a.raised_at) / 60 as took,
              coalesce(a.escalation_due_at <= now() and a.acknowledged_at is null and a.closed_at is null, false) as overdue
       from read.alerts a
       where a.kind = 'CRITICAL' and a.raised_at >= $1 and a.raised_at < $2
         and ($3::text is null or exists (select 1 from read.patients p where p.patient_ref = a.patient_ref and p.ward = $3))
     )
     select count(*)::int as raised, count(took)::int as acknowledged,
            (count(*) filter (where took <= 15))::int as w15, (count(*) filter (where took <= 30))::int as w30,
            (count(*) filter (where took <= 60))::int as w60,
            percentile_cont(0.5) within group (order by took) filter (where took is not null) as median,
            percentile_cont(0.9) within group (order by took) filter (where took is not null) as p90,
            (count(*) filter (where overdue))::int as overdue
     from raised`,
    [start, end, ward],
  );
  const row = rows[0]!;
  return {
    month,
    ward,
    raised: row.raised,
    acknowledged: row.acknowledged,
    within: { "15": row.w15, "30": row.w30, "60": row.w60 },
    medianMinutes: minutes(row.median),
    p90Minutes: minutes(row.p90),
    overdue: row.overdue,
  };
}

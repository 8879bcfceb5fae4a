import { z } from "zod";
import { storeHead } from "../db/eventStore.ts";
import type { Db } from "../db/pool.ts";

export const projectionStatusSchema = z.object({
  name: z.string(),
  generation: z.int(),
  version: z.int(),
  state: z.enum(["live", "building"]),
  position: z.int(),
  appliedEvents: z.int(),
  error: z.object({ message: z.string(), position: z.int(), at: z.string() }).nullable().meta({ description: "The error that stopped this projection, if any" }),
  lagEvents: z.int(),
  lagSeconds: z.number(),
});
export type ProjectionStatus = z.infer<typeof projectionStatusSchema>;

/** `GET /api/admin/projections` (contract C.6): each projection's position, the store's head and the lag. */
export const projectionsReportSchema = z.object({
  head: z.int().meta({ description: "Position of the store's last event in the order projections apply them (writing transaction, then position); a caught-up projection's position equals it" }),
  projections: z.array(projectionStatusSchema),
});
export type ProjectionsReport = z.infer<typeof projectionsReportSchema>;

// Lag is counted up to a cap: an exact count over millions of unapplied events would itself be slow.
const LAG_COUNT_CAP = 1_000_000;

export async function projectionsReport(db: Db): Promise<ProjectionsReport> {
  const { rows } = await db.query(
    `select g.name, g.generation, g.version, g.state, g.last_position, g.applied_count, g.error, g.error_position, g.error_at,
            (select count(*) from (select 1 from events e where (e.transaction_id, e.position) > (g.last_tx, g.last_position) limit ${LAG_COUNT_CAP}) pending) as lag_events,
            coalesce(extract(epoch from now() - (select min(e.recorded_at) from (
              select recorded_at from events e where (e.transaction_id, e.position) > (g.last_tx, g.last_position)
              order by e.transaction_id, e.position limit 1) e)), 0) as lag_seconds
     from projection_generations g
     where g.state in ('live', 'building')
     order by g.name, g.generation`,
  );
  return {
    head: await storeHead(db),
    projections: rows.map((row) => ({
      name: row.name,
      generation: row.generation,
      version: row.version,
      state: row.state,
      position: Number(row.last_position),
      appliedEvents: Number(row.applied_count),
      error: row.error ? { message: row.error, position: Number(row.error_position), at: row.error_at.toISOString() } : null,
      lagEvents: Number(row.lag_events),
      lagSeconds: Math.round(Number(row.lag_seconds) * 1000) / 1000,
    })),
  };
}

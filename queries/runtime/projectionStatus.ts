import { z } from "zod";
import { storeHead } from "../../db/eventStore.ts";
import type { Db } from "../../db/pool.ts";

/** A tenant held back in a projection at an event it cannot apply (contract E.6), as an administrator sees it. */
export const heldTenantSchema = z.object({
  tenant: z.string(),
  position: z.int().meta({
    description: "The event that failed: this tenant's events from it on wait, every other tenant's are applied",
  }),
  since: z.string().meta({ description: "When it was first held back" }),
  tries: z.int().meta({ description: "How many times its waiting events were tried" }),
  retryAt: z.string().meta({
    description:
      "When they are tried again by themselves (each failed try doubles the pause, up to an hour); `projections retry` tries at once",
  }),
  error: z.object({
    code: z.string().meta({
      description:
        "The SQLSTATE when the database raised the error (P0001: a function or trigger), else PROJECTION_ERROR",
    }),
    message: z.string().meta({
      description:
        "A fixed sentence for that code (the error's own text may quote a value of the event: no answer shows it)",
    }),
  }),
});
export type HeldTenant = z.infer<typeof heldTenantSchema>;

export const projectionStatusSchema = z.object({
  name: z.string(),
  generation: z.int(),
  version: z.int(),
  state: z.enum(["live", "building"]),
  position: z.int(),
  appliedEvents: z.int(),
  error: z
    .object({
      message: z
        .string()
        .meta({ description: "A fixed sentence for the error's code (its own text may quote a value of the event)" }),
      position: z.int(),
      at: z.string(),
      code: z.string().nullable().meta({
        description:
          "Its SQLSTATE when the database raised it (P0001: a function or trigger); null for an error of the projection's code",
      }),
    })
    .nullable()
    .meta({
      description:
        "The error that stopped this projection whole, if any (since issue #52 an event that fails holds back only its tenant: `heldTenants`)",
    }),
  heldTenants: z
    .array(heldTenantSchema)
    .meta({ description: "Tenants held back in this projection at an event it cannot apply; empty when none" }),
  lagEvents: z.int(),
  lagSeconds: z.number(),
  eventsPerSecond: z.number().nullable().meta({
    description: "A building generation (a rebuild): events read per second since it began; null for a live one",
  }),
  etaSeconds: z.number().nullable().meta({
    description:
      "A building generation: lagEvents at that pace (lagEvents is counted up to 1,000,000); null for a live one",
  }),
});
export type ProjectionStatus = z.infer<typeof projectionStatusSchema>;

/** A streaming replica of the service's database, as the primary sees it (pg_stat_replication). */
export const replicaStatusSchema = z.object({
  name: z
    .string()
    .meta({ description: "The standby's application_name (from its primary_conninfo), else its address" }),
  state: z.string().meta({ description: "streaming, catchup, …" }),
  sync: z.string().meta({ description: "async, sync, potential or quorum" }),
  lagBytes: z.int().meta({ description: "WAL the primary wrote that the standby has not replayed yet" }),
  lagSeconds: z.number().meta({
    description: "How long the standby took lately to replay what the primary wrote; 0 once caught up and idle",
  }),
});
export type ReplicaStatus = z.infer<typeof replicaStatusSchema>;

/** `GET /api/admin/projections` (contract C.6): each projection's position, the store's head and the lag. */
export const projectionsReportSchema = z.object({
  head: z.int().meta({
    description:
      "Position of the store's last event in the order projections apply them (writing transaction, then " +
      "position); a caught-up projection's position equals it",
  }),
  projections: z.array(projectionStatusSchema),
  replicas: z.array(replicaStatusSchema).meta({
    description:
      "Streaming replicas of the database (report queries may run on one, operations.md); their lag needs the service's user to hold pg_monitor",
  }),
});
export type ProjectionsReport = z.infer<typeof projectionsReportSchema>;

// Lag is counted up to a cap: an exact count over millions of unapplied events would itself be slow.
const LAG_COUNT_CAP = 1_000_000;

export async function projectionsReport(db: Db): Promise<ProjectionsReport> {
  const { rows } = await db.query(
    `select g.name, g.generation, g.version, g.state, g.last_position, g.applied_count, g.error, g.error_position, g.error_code, g.error_at,
            extract(epoch from g.updated_at - g.created_at) as building_seconds,
            (select coalesce(json_agg(json_build_object('tenant', q.tenant, 'position', q.error_position, 'since', q.since, 'tries', q.tries,
                                                         'retryAt', q.retry_at, 'code', q.error_code) order by q.tenant), '[]')
             from projection_quarantines q where q.name = g.name and q.generation = g.generation) as held_tenants,
            (select count(*) from (select 1 from events e where (e.transaction_id, e.position) > (g.last_tx, g.last_position)
              limit ${LAG_COUNT_CAP}) pending) as lag_events,
            coalesce(extract(epoch from now() - (select min(e.recorded_at) from (
              select recorded_at from events e where (e.transaction_id, e.position) > (g.last_tx, g.last_position)
              order by e.transaction_id, e.position limit 1) e)), 0) as lag_seconds
     from projection_generations g
     where g.state in ('live', 'building')
     order by g.name, g.generation`,
  );
  return {
    head: await storeHead(db),
    replicas: await replicaStatus(db),
    projections: rows.map((row) => {
      const lagEvents = Number(row.lag_events);
      // Only a rebuild reads at a pace worth stating: a live generation follows the appends.
      const rate =
        row.state === "building" && Number(row.building_seconds) > 0
          ? Number(row.applied_count) / Number(row.building_seconds)
          : null;
      return {
        name: row.name,
        generation: row.generation,
        version: row.version,
        state: row.state,
        position: Number(row.last_position),
        appliedEvents: Number(row.applied_count),
        error: row.error
          ? {
              message: describeCode(row.error_code ?? null),
              position: Number(row.error_position),
              at: row.error_at.toISOString(),
              code: row.error_code ?? null,
            }
          : null,
        heldTenants: (row.held_tenants as HeldRow[]).map(heldTenant),
        lagEvents,
        lagSeconds: Math.round(Number(row.lag_seconds) * 1000) / 1000,
        eventsPerSecond: rate === null ? null : Math.round(rate),
        etaSeconds: rate === null || rate === 0 ? null : Math.round(lagEvents / rate),
      };
    }),
  };
}

interface HeldRow {
  tenant: string;
  position: number;
  since: string;
  tries: number;
  retryAt: string;
  code: string | null;
}

function heldTenant(row: HeldRow): HeldTenant {
  return {
    tenant: row.tenant,
    position: Number(row.position),
    since: new Date(row.since).toISOString(),
    tries: row.tries,
    retryAt: new Date(row.retryAt).toISOString(),
    error: { code: row.code ?? PROJECTION_ERROR_CODE, message: describeCode(row.code) },
  };
}

/** The code of an error that is not the database's (or was recorded before its code was). */
const PROJECTION_ERROR_CODE = "PROJECTION_ERROR";

/** PostgreSQL's classes of SQLSTATE (appendix A) that an event can meet for good; the transient ones never stop a projection. */
const SQLSTATE_CLASSES: Record<string, string> = {
  "0A": "feature not supported",
  "21": "cardinality violation",
  "22": "data exception",
  "23": "integrity constraint violation",
  "40": "transaction rollback",
  "42": "syntax error or access rule violation",
  "54": "program limit exceeded",
  P0: "raised by a database function or trigger",
  XX: "internal error of the database",
};

function describeCode(sqlstate: string | null): string {
  if (sqlstate === null) return "the projection could not apply the event";
  return SQLSTATE_CLASSES[sqlstate.slice(0, 2)] ?? "database error";
}

/**
 * A projection stopped on an event, as the public /readyz names it. Never the error's message: it
 * may quote a value of the event (a PostgreSQL message can, and a projection's own error may say
 * anything). A stable code and a fixed description of it instead; the message is for an
 * administrator, in GET /api/admin/projections.
 */
export const stoppedProjectionSchema = z.object({
  name: z.string(),
  state: z
    .enum(["live", "building"])
    .meta({ description: "building: a rebuild stopped (the live generation waits for it)" }),
  position: z.int().meta({ description: "The event it stopped at" }),
  since: z.string().meta({ description: "When it stopped" }),
  error: z.object({
    code: z.string().meta({
      description: `The SQLSTATE when the database raised the error (P0001: a function or trigger), else ${PROJECTION_ERROR_CODE}`,
    }),
    message: z
      .string()
      .meta({ description: "What kind of error that code is (GET /api/admin/projections shows the error itself)" }),
  }),
});
export type StoppedProjection = z.infer<typeof stoppedProjectionSchema>;

/** Projections stopped on an event they cannot apply, until `projections retry`: one small read, for /readyz. */
export async function stoppedProjections(db: Db): Promise<StoppedProjection[]> {
  const { rows } = await db.query(
    `select name, state, error_position, error_code, error_at from projection_generations
     where state in ('live', 'building') and error is not null order by name, generation`,
  );
  return rows.map((row) => ({
    name: row.name,
    state: row.state,
    position: Number(row.error_position),
    since: row.error_at.toISOString(),
    error: { code: row.error_code ?? PROJECTION_ERROR_CODE, message: describeCode(row.error_code) },
  }));
}

/**
 * A tenant held back in a projection, as the public /readyz names it: the projection, the event and
 * the error's code with its fixed sentence; not the tenant (a hospital's name is no business of an
 * anonymous probe: GET /api/admin/projections and /metrics name it).
 */
export const heldBackSchema = z.object({
  name: z.string().meta({ description: "The projection" }),
  position: z.int().meta({
    description:
      "The event that failed: one tenant's events from it on wait in this projection, every other tenant's are applied",
  }),
  since: z.string(),
  error: stoppedProjectionSchema.shape.error,
});
export type HeldBack = z.infer<typeof heldBackSchema>;

/** One per tenant held back in a live projection, for /readyz. */
export async function heldBackTenants(db: Db): Promise<HeldBack[]> {
  const { rows } = await db.query(
    `select q.name, q.error_position, q.error_code, q.since from projection_quarantines q
     join projection_generations g on g.name = q.name and g.generation = q.generation and g.state = 'live'
     order by q.name, q.since`,
  );
  return rows.map((row) => ({
    name: row.name,
    position: Number(row.error_position),
    since: row.since.toISOString(),
    error: { code: row.error_code ?? PROJECTION_ERROR_CODE, message: describeCode(row.error_code) },
  }));
}

async function replicaStatus(db: Db): Promise<ReplicaStatus[]> {
  const { rows } = await db.query(
    `select coalesce(nullif(application_name, ''), client_addr::text, 'local') as name, state, sync_state,
            coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0)::bigint as lag_bytes,
            coalesce(extract(epoch from replay_lag), 0)::float8 as lag_seconds
     from pg_stat_replication order by 1`,
  );
  return rows.map((row) => ({
    name: row.name,
    state: row.state,
    sync: row.sync_state,
    lagBytes: Number(row.lag_bytes),
    lagSeconds: Math.round(row.lag_seconds * 1000) / 1000,
  }));
}

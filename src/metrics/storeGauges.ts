import client from "prom-client";
import { unsealedEvents, type UnsealedEvents } from "../../queries/ledger/ledger.ts";
import type { Db } from "../../db/pool.ts";
import { projectionsReport, type ProjectionsReport } from "../../queries/runtime/projectionStatus.ts";

const UNDEFINED_TABLE = "42P01";

/** Unsealed events are counted up to this many: an exact count of millions would slow the scrape. */
const UNSEALED_COUNT_CAP = 1_000_000;

interface StoreFigures {
  projections: ProjectionsReport;
  bulkJobs: Array<{ status: string; jobs: number; lines: number; processed: number }>;
  unsealed: UnsealedEvents;
}

async function readStoreFigures(db: Db): Promise<StoreFigures> {
  const [projections, bulk, unsealed] = await Promise.all([
    projectionsReport(db),
    // Every tenant's jobs (the service reads its own tables past the tenant policy): counts only.
    // A deployment whose workers have not yet made the read model has no jobs to show.
    db
      .query(
        `select status, count(*)::int as jobs, coalesce(sum(lines), 0)::bigint as lines, coalesce(sum(processed), 0)::bigint as processed
         from read.bulk_jobs group by status`,
      )
      .catch((error) => {
        if ((error as { code?: string }).code === UNDEFINED_TABLE) return { rows: [] };
        throw error;
      }),
    unsealedEvents(db, UNSEALED_COUNT_CAP),
  ]);
  return {
    projections,
    bulkJobs: bulk.rows.map((row) => ({
      status: row.status,
      jobs: row.jobs,
      lines: Number(row.lines),
      processed: Number(row.processed),
    })),
    unsealed,
  };
}

/**
 * Gauges read from the database when `/metrics` is scraped. prom-client collects the metrics of a
 * scrape side by side: they share one reading of the store, taken by whichever asks first.
 */
export function collectStoreGauges(registry: client.Registry, db: Db): void {
  let reading: Promise<StoreFigures> | null = null;
  const figures = () => {
    reading ??= readStoreFigures(db).finally(() => setImmediate(() => (reading = null)));
    return reading;
  };
  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (gauge: client.Gauge<L>, store: StoreFigures) => void,
  ) =>
    new client.Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        fill(this, await figures());
      },
    });

  gauge(
    "dialysis_hub_event_store_head_position",
    "Position of the event store's last event in the order projections apply them",
    [],
    (g, store) => g.set(store.projections.head),
  );
  const perProjection = (name: string, help: string, value: (p: ProjectionsReport["projections"][number]) => number) =>
    gauge(name, help, ["projection", "state"], (g, store) => {
      for (const p of store.projections.projections) g.set({ projection: p.name, state: p.state }, value(p));
    });
  perProjection(
    "dialysis_hub_projection_position",
    "Position of the last event a projection applied (state live, or building during a rebuild)",
    (p) => p.position,
  );
  perProjection(
    "dialysis_hub_projection_lag_events",
    "Events a projection has still to apply (counted up to 1,000,000)",
    (p) => p.lagEvents,
  );
  perProjection(
    "dialysis_hub_projection_lag_seconds",
    "Age of the oldest event a projection has still to apply; 0 when caught up",
    (p) => p.lagSeconds,
  );
  perProjection(
    "dialysis_hub_projection_failed",
    "1 when a projection stopped on an event it cannot apply (see /api/admin/projections)",
    (p) => (p.error ? 1 : 0),
  );
  perProjection(
    "dialysis_hub_projection_held_tenants",
    "Tenants a projection holds back at an event it cannot apply (every other tenant's keep going; see /api/admin/projections)",
    (p) => p.heldTenants.length,
  );
  gauge(
    "dialysis_hub_projection_tenant_held",
    "1 for each tenant a projection holds back at an event it cannot apply, with the error's SQLSTATE (PROJECTION_ERROR: the projection's own code threw)",
    ["projection", "state", "tenant", "code"],
    (g, store) => {
      for (const p of store.projections.projections) {
        for (const held of p.heldTenants)
          g.set({ projection: p.name, state: p.state, tenant: held.tenant, code: held.error.code }, 1);
      }
    },
  );
  gauge("dialysis_hub_bulk_jobs", "Bulk import jobs by status", ["status"], (g, store) => {
    for (const job of store.bulkJobs) g.set({ status: job.status }, job.jobs);
  });
  gauge(
    "dialysis_hub_bulk_lines",
    "Lines of the bulk jobs still queued or running: in all, and handled so far",
    ["state"],
    (g, store) => {
      const unfinished = store.bulkJobs.filter((job) => job.status === "QUEUED" || job.status === "RUNNING");
      g.set(
        { state: "total" },
        unfinished.reduce((sum, job) => sum + job.lines, 0),
      );
      g.set(
        { state: "processed" },
        unfinished.reduce((sum, job) => sum + job.processed, 0),
      );
    },
  );
  gauge(
    "dialysis_hub_replica_lag_seconds",
    "How long each streaming replica took lately to replay the primary's writes (pg_stat_replication.replay_lag)",
    ["replica", "sync"],
    (g, store) => {
      for (const replica of store.projections.replicas)
        g.set({ replica: replica.name, sync: replica.sync }, replica.lagSeconds);
    },
  );
  gauge(
    "dialysis_hub_replica_lag_bytes",
    "WAL each streaming replica has still to replay",
    ["replica", "sync"],
    (g, store) => {
      for (const replica of store.projections.replicas)
        g.set({ replica: replica.name, sync: replica.sync }, replica.lagBytes);
    },
  );
  gauge(
    "dialysis_hub_ledger_unsealed_events",
    "Events not yet sealed into a ledger block (counted up to 1,000,000)",
    [],
    (g, store) => g.set(store.unsealed.events),
  );
  gauge(
    "dialysis_hub_ledger_unsealed_oldest_seconds",
    "Age of the oldest event not yet sealed into a ledger block; 0 when all are sealed",
    [],
    (g, store) => g.set(store.unsealed.oldestSeconds),
  );
}

import type { StoredEvent } from "../db/eventStore.ts";
import { createPool, type Db, type Tx } from "../db/pool.ts";
import { readAfter, START, checkpointOf } from "../projections/runtime/eventFeed.ts";
import type { Projection } from "../projections/runtime/projection.ts";
import { prepareProjections } from "../projections/runtime/rebuild.ts";
import { ProjectionRunner } from "../projections/runtime/runner.ts";
import { configSchema } from "../src/app/config.ts";
import { silentLogger } from "../src/logger.ts";
import { startService } from "../src/app/service.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { percentile, result, type BenchResult } from "./results.ts";

const CATCHUP_EVENTS = 200_000;

/**
 * A bench projection of the "Measured" events into the one table `table` that `createTable` makes,
 * applied a batch at a time (`apply` is a batch of one).
 */
function measuredEventsProjection(
  name: string,
  table: string,
  createTable: string,
  applyBatch: (tx: Tx, events: StoredEvent[]) => Promise<void>,
): Projection {
  return {
    name,
    version: 1,
    handles: ["Measured"],
    tables: [table],
    async setup(tx) {
      await tx.query(createTable);
    },
    async apply(tx, event) {
      await applyBatch(tx, [event]);
    },
    applyBatch,
  };
}

/** Counts events per tenant and type: a typical summary read model. */
const countingProjection = measuredEventsProjection(
  "bench_counts",
  "event_counts",
  "create table event_counts (tenant text, type text, count bigint not null, primary key (tenant, type))",
  async (tx, events) => {
    const counts = new Map<string, number>();
    for (const event of events)
      counts.set(`${event.tenant}\u0000${event.type}`, (counts.get(`${event.tenant}\u0000${event.type}`) ?? 0) + 1);
    const keys = [...counts.keys()].map((key) => key.split("\u0000"));
    await tx.query(
      `insert into event_counts (tenant, type, count) select * from unnest($1::text[], $2::text[], $3::bigint[])
       on conflict (tenant, type) do update set count = event_counts.count + excluded.count`,
      [keys.map((k) => k[0]), keys.map((k) => k[1]), [...counts.values()]],
    );
  },
);

async function seedEvents(db: Db, total: number): Promise<void> {
  const perAppend = 100;
  for (let i = 0; i < total / perAppend; i++) {
    await db.query(
      `insert into events (tenant, stream_id, stream_version, type, data, metadata)
       select 'bench', 'seed-' || $1::int, g, 'Measured',
              jsonb_build_object('itemCode', 'HGB', 'value', 100 + g, 'unit', 'g/L', 'note', repeat('x', 100)), '{"actor": "bench"}'
       from generate_series(1, $2::int) g`,
      [i, perAppend],
    );
  }
}

async function catchUp(): Promise<BenchResult[]> {
  const db = createPool(await createTestDatabase(), { max: 4 });
  try {
    // Live before the events exist, so that its own runner catches up (not a rebuild).
    await prepareProjections(db, [countingProjection], silentLogger);
    await seedEvents(db, CATCHUP_EVENTS);
    await db.query("analyze events");

    // Ceiling: read every event through the same feed, applying nothing.
    let started = performance.now();
    let checkpoint = START;
    for (;;) {
      const { events } = await readAfter(db, checkpoint, 1000, countingProjection.handles);
      if (events.length === 0) break;
      checkpoint = checkpointOf(events.at(-1)!);
    }
    const readOnly = CATCHUP_EVENTS / ((performance.now() - started) / 1000);

    const runner = new ProjectionRunner(db, countingProjection, silentLogger, { batchSize: 1000 });
    started = performance.now();
    await runner.settle(120_000);
    const ours = CATCHUP_EVENTS / ((performance.now() - started) / 1000);
    await runner.stop();
    const counted = (await db.query("select sum(count)::int as n from read.event_counts")).rows[0].n;
    if (counted !== CATCHUP_EVENTS) throw new Error(`catch-up counted ${counted} of ${CATCHUP_EVENTS} events`);
    return [
      result(
        "projection.catchup_events_per_s",
        ours,
        "events/s",
        readOnly,
        `baseline: reading the same ${CATCHUP_EVENTS} events through the feed without applying them`,
      ),
    ];
  } finally {
    await db.end();
  }
}

/** Records, per event, when it was stored and when the projection applied it. */
const lagProjection = measuredEventsProjection(
  "bench_lag",
  "event_lag",
  "create table event_lag (position bigint primary key, tenant text not null, recorded_at timestamptz not null, applied_at timestamptz not null)",
  async (tx, events) => {
    await tx.query(
      "insert into event_lag select p, t, r, clock_timestamp() from unnest($1::bigint[], $2::text[], $3::timestamptz[]) as u(p, t, r)",
      [events.map((e) => e.position), events.map((e) => e.tenant), events.map((e) => e.recordedAt)],
    );
  },
);

async function lagUnderLoad(): Promise<BenchResult[]> {
  const seconds = Number(process.env.BENCH_LAG_SECONDS ?? 30);
  const eventsPerSecond = 2000;
  const eventsPerAppend = 20;
  const writers = 4;
  const config = configSchema.parse({ PORT: "0", DATABASE_URL: await createTestDatabase(false), LOG_LEVEL: "silent" });
  const service = await startService({ config, role: "all", log: silentLogger, projections: [lagProjection] });
  try {
    const intervalMs = (1000 * eventsPerAppend * writers) / eventsPerSecond;
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        let next = performance.now() + (w * intervalMs) / writers;
        for (let a = 0; performance.now() < deadline; a++) {
          const wait = next - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          next += intervalMs;
          await service.eventStore.append({
            tenant: "bench",
            streamId: `lag-${w}`,
            expectedVersion: a * eventsPerAppend,
            events: Array.from({ length: eventsPerAppend }, (_, e) => ({
              type: "Measured",
              data: { w, a, e, value: 112.5 },
            })),
            metadata: { actor: "bench" },
          });
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { rows } = await service.db.query(
      "select extract(epoch from applied_at - recorded_at) * 1000 as ms from read.event_lag",
    );
    const total = (await service.db.query("select count(*)::int as n from events where type = 'Measured'")).rows[0].n;
    const lags = rows.map((row) => Number(row.ms));
    if (lags.length !== total) throw new Error(`lag run applied ${lags.length} of ${total} events`);
    const rate = Math.round(total / seconds);
    return [
      result(
        "projection.lag_p99_ms",
        percentile(lags, 99),
        "ms",
        undefined,
        `${total} events over ${seconds} s (${rate}/s); p50 ${percentile(lags, 50).toFixed(1)} ms, max ` +
          `${Math.max(...lags).toFixed(1)} ms; from the event's insert to its projection row`,
      ),
    ];
  } finally {
    await service.stop();
  }
}

export async function projectionBenchmarks(): Promise<BenchResult[]> {
  return [...(await catchUp()), ...(await lagUnderLoad())];
}

import { appendToStream } from "../db/eventStore.ts";
import { createPool, type Db } from "../db/pool.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { median, result, type BenchResult } from "./results.ts";

export interface AppendWorkload {
  writers: number;
  appendsPerWriter: number;
  eventsPerAppend: number;
  payload: (writer: number, append: number, event: number) => Record<string, unknown>;
}

export const appendWorkload: AppendWorkload = {
  writers: 4,
  appendsPerWriter: 400,
  eventsPerAppend: 20,
  payload: (w, a, e) => ({
    writer: w,
    append: a,
    event: e,
    itemCode: "HGB",
    value: 112.5,
    unit: "g/L",
    note: "x".repeat(100),
  }),
};

const metadata = { actor: "bench", client: "bench-lab", requestId: "00000000-0000-0000-0000-000000000000" };

async function timeWriters(
  workload: AppendWorkload,
  appendOne: (writer: number, append: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workload.writers }, async (_, w) => {
      for (let a = 0; a < workload.appendsPerWriter; a++) await appendOne(w, a);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return (workload.writers * workload.appendsPerWriter * workload.eventsPerAppend) / seconds;
}

/** Our store: one stream per writer, each append with the expected version. */
export async function measureOurAppend(db: Db, workload: AppendWorkload, run: number): Promise<number> {
  return timeWriters(workload, async (w, a) => {
    await appendToStream(db, {
      tenant: "bench",
      streamId: `bench-${run}-${w}`,
      expectedVersion: a * workload.eventsPerAppend,
      events: Array.from({ length: workload.eventsPerAppend }, (_, e) => ({
        type: "Measured",
        data: workload.payload(w, a, e),
      })),
      metadata,
    });
  });
}

/** The ceiling: the same rows as plain multi-row INSERTs into a table with no rules at all. */
export async function measureRawInsert(db: Db, workload: AppendWorkload, run: number): Promise<number> {
  await db.query(`create table if not exists plain_events (
    id bigserial primary key, tenant text, stream_id text, stream_version int, type text, data jsonb, metadata jsonb,
    recorded_at timestamptz default now())`);
  const placeholders = Array.from({ length: workload.eventsPerAppend }, (_, e) => {
    const b = e * 6;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`;
  }).join(", ");
  const sql = `insert into plain_events (tenant, stream_id, stream_version, type, data, metadata) values ${placeholders}`;
  const meta = JSON.stringify(metadata);
  return timeWriters(workload, async (w, a) => {
    const values = Array.from({ length: workload.eventsPerAppend }, (_, e) => [
      "bench",
      `bench-${run}-${w}`,
      a * workload.eventsPerAppend + e + 1,
      "Measured",
      JSON.stringify(workload.payload(w, a, e)),
      meta,
    ]).flat();
    await db.query(sql, values);
  });
}

export async function appendBenchmarks(): Promise<BenchResult[]> {
  const ours = createPool(await createTestDatabase(), { max: 8 });
  const plain = createPool(await createTestDatabase(false), { max: 8 });
  const oursRuns: number[] = [];
  const plainRuns: number[] = [];
  try {
    // Warm both, then alternate so that neither enjoys a quieter machine.
    await measureOurAppend(ours, { ...appendWorkload, appendsPerWriter: 20 }, -1);
    await measureRawInsert(plain, { ...appendWorkload, appendsPerWriter: 20 }, -1);
    for (let run = 0; run < 3; run++) {
      oursRuns.push(await measureOurAppend(ours, appendWorkload, run));
      plainRuns.push(await measureRawInsert(plain, appendWorkload, run));
    }
  } finally {
    await ours.end();
    await plain.end();
  }
  const value = median(oursRuns);
  const ceiling = median(plainRuns);
  const results = [
    result(
      "append.events_per_s",
      value,
      "events/s",
      ceiling,
      "baseline: raw multi-row INSERT of the same rows (ceiling); 4 writers x 20 events per append",
    ),
  ];
  results.push(...(await emmettComparison(value)));
  return results;
}

async function emmettComparison(ours: number): Promise<BenchResult[]> {
  let module: typeof import("./emmettAppend.ts");
  try {
    module = await import("./emmettAppend.ts");
  } catch (error) {
    return [
      result(
        "append.vs_emmett_events_per_s",
        ours,
        "events/s",
        undefined,
        `Emmett not measured: ${(error as Error).message}`,
      ),
    ];
  }
  const runs: number[] = [];
  for (let run = 0; run < 3; run++) {
    const measured = await module.measureEmmettAppend(await createTestDatabase(false), appendWorkload);
    runs.push(measured.eventsPerSecond);
  }
  const emmett = median(runs);
  return [
    result(
      "append.vs_emmett_events_per_s",
      ours,
      "events/s",
      emmett,
      "baseline: @event-driven-io/emmett-postgresql, same workload",
    ),
  ];
}

/**
 * Append throughput of the Emmett PostgreSQL event store (@event-driven-io/emmett-postgresql),
 * measured with the same workload shape as our own event store so both can be compared in one run.
 *
 * Each of `writers` concurrent loops appends `appendsPerWriter` times to its own stream, every append
 * carrying `eventsPerAppend` "Measured" events and the expected stream version (0n for the first
 * append, then the version returned by the previous one), so optimistic concurrency is checked on
 * every append. Schema creation and one warm-up append happen before the clock starts.
 */
import pg from "pg";
import { getPostgreSQLEventStore, PostgreSQLEventStoreDefaultStreamVersion } from "@event-driven-io/emmett-postgresql";
import type { Event } from "@event-driven-io/emmett";

export interface AppendWorkload {
  writers: number;
  appendsPerWriter: number;
  eventsPerAppend: number;
  payload: (writer: number, append: number, event: number) => Record<string, unknown>;
}

export interface AppendMeasurement {
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

type Measured = Event<"Measured", Record<string, unknown>>;

/**
 * Emmett's driver (dumbo) installs process-global node-postgres type parsers when a store is created:
 * int8 -> BigInt, json/jsonb -> its own JSON parser with bigint parsing. They would leak into every
 * other pg pool in this process (our own store, pg-boss), so they are applied only while Emmett runs.
 * dumbo installs them only once per process, hence they are remembered for later measurements.
 */
const PARSED_OIDS = [20, 114, 3802] as const;
type TypeParsers = Map<number, (value: string) => unknown>;
let emmettParsers: TypeParsers | undefined;

function currentParsers(): TypeParsers {
  return new Map(PARSED_OIDS.map((oid) => [oid, pg.types.getTypeParser(oid, "text")]));
}

function applyParsers(parsers: TypeParsers): void {
  for (const [oid, parser] of parsers) pg.types.setTypeParser(oid, "text", parser);
}

function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
}

export async function measureEmmettAppend(
  connectionString: string,
  workload: AppendWorkload,
): Promise<AppendMeasurement> {
  const { writers, appendsPerWriter, eventsPerAppend, payload } = workload;
  assertCount("writers", writers);
  assertCount("appendsPerWriter", appendsPerWriter);
  assertCount("eventsPerAppend", eventsPerAppend);

  const originalParsers = currentParsers();
  // Emmett's default is a pg.Pool with node-postgres' default max of 10 connections; one connection per
  // writer (plus one spare) keeps the pool from throttling the writers at any concurrency.
  const pool = new pg.Pool({ connectionString, max: writers + 1, application_name: "bench-emmett" });
  pool.on("error", () => {});
  try {
    const store = getPostgreSQLEventStore(connectionString, { connectionOptions: { pool } });
    if (emmettParsers === undefined) emmettParsers = currentParsers();
    else applyParsers(emmettParsers);

    try {
      // Emmett creates its schema lazily on the first append; migrate() runs (and caches) it up front.
      await store.schema.migrate();

      const events = (writer: number, append: number): Measured[] =>
        Array.from({ length: eventsPerAppend }, (_, event) => ({
          type: "Measured",
          data: payload(writer, append, event),
        }));

      const warmUp = await store.appendToStream<Measured>("warmup-0", events(-1, 0), {
        expectedStreamVersion: PostgreSQLEventStoreDefaultStreamVersion,
      });
      if (warmUp.nextExpectedStreamVersion !== BigInt(eventsPerAppend)) {
        throw new Error(
          `Emmett warm-up append returned version ${warmUp.nextExpectedStreamVersion}, expected ${eventsPerAppend}`,
        );
      }

      let failed = false;
      const writer = async (w: number): Promise<void> => {
        const streamName = `bench-w${w}`;
        let version: bigint = PostgreSQLEventStoreDefaultStreamVersion; // 0n: stream must not exist yet
        for (let a = 0; a < appendsPerWriter && !failed; a++) {
          try {
            const result = await store.appendToStream<Measured>(streamName, events(w, a), {
              expectedStreamVersion: version,
            });
            const expected = version + BigInt(eventsPerAppend);
            if (result.nextExpectedStreamVersion !== expected) {
              throw new Error(
                `${streamName}: Emmett returned version ${result.nextExpectedStreamVersion}, expected ${expected}`,
              );
            }
            version = result.nextExpectedStreamVersion;
          } catch (error) {
            failed = true; // stop the other writers before the pool is closed
            throw error;
          }
        }
      };

      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: writers }, (_, w) => writer(w)));
      const seconds = (performance.now() - started) / 1000;

      const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      if (failure) throw failure.reason;

      const total = writers * appendsPerWriter * eventsPerAppend;
      return { events: total, seconds, eventsPerSecond: total / seconds };
    } finally {
      await store.close(); // with an ambient pool this releases nothing; pool.end() below closes the connections
    }
  } finally {
    await pool.end();
    applyParsers(originalParsers);
  }
}

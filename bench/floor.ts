import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PIECE_SIZE } from "../commands/bulk/submitBulkJob.ts";
import { MAX_REPORTS_PER_PUSH } from "../commands/ingestion/pushReports.ts";
import { createPool, withTransaction, type Db } from "../db/pool.ts";
import { labReportsProjection } from "../projections/ingestion/labReports.ts";
import { labResultsProjection } from "../projections/ingestion/labResults.ts";
import { createGeneration } from "../projections/runtime/generations.ts";
import { createTestDatabase, testServerUrl } from "../test/support/database.ts";
import { templateReports, withCompactMapping, type TemplateReport } from "./floorPayloads.ts";
import {
  copyEvents,
  copyItems,
  insertCheckpoint,
  insertEvents,
  insertItems,
  insertItemsFromEvents,
  insertReportRows,
  writeEvents,
  writeItems,
  type Piece,
  type ReadSchemas,
} from "./floorWrites.ts";
import { ITEMS, SENDERS } from "./ingestSenders.ts";
import { printProfiles, profiledBulk, profiledHl7, profiledPush } from "./profiledRuns.ts";
import { median, result, type BenchResult } from "./results.ts";

/*
 * The floor (#35): the least work each write path must do, measured on this machine in the same
 * run as the paths themselves, so that each path's figure can be given as a ratio to its floor.
 * Every figure writes the bulk group's reports (as the service would store them: floorPayloads.ts)
 * into the service's own tables (the migrations' events, the projections' generation schemas with
 * their indexes) on a fresh database, with plain set-based statements (floorWrites.ts) and nothing
 * else: no decision, no version check, no summaries, no projection bookkeeping.
 *
 * BENCH_FLOOR_REPORTS reports per figure (default 40,000: 800,000 item rows), each figure measured
 * BENCH_FLOOR_REPEATS times (default 2; the value is the median, every run is in the note), with
 * BENCH_FLOOR_WRITERS concurrent writers (default 2, one per core of the 2-core machine the targets
 * were set on) for bulk pieces, SENDERS for pushes as the ingest group sends them.
 *
 * BENCH_PROFILE=1 adds where the paths' own time goes: a bulk job of BENCH_PROFILE_BULK_REPORTS
 * (default 50,000), a push burst of SENDERS x BENCH_PROFILE_PUSH_BATCHES batches of 100 (default
 * 25) and 4 MLLP connections of BENCH_PROFILE_HL7_MESSAGES messages each (default 1,000) on the
 * service profiled (profiledRuns.ts), printed and written to bench/profile-summary.json.
 */

const BULK_PIECE = PIECE_SIZE.reports;
const PUSH = MAX_REPORTS_PER_PUSH;
/** Template reports made by the service's own code and then copied (floorPayloads.ts): a multiple of both piece sizes. */
const TEMPLATE_BATCHES = 20;

interface Settings {
  reports: number;
  repeats: number;
  writers: number;
}

function settings(): Settings {
  const number = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${name} must be a positive integer, not ${process.env[name]}`);
    return value;
  };
  const reports = number("BENCH_FLOOR_REPORTS", 40_000);
  if (reports % BULK_PIECE !== 0) throw new Error(`BENCH_FLOOR_REPORTS must be a multiple of ${BULK_PIECE}`);
  return { reports, repeats: number("BENCH_FLOOR_REPEATS", 2), writers: number("BENCH_FLOOR_WRITERS", 2) };
}

interface FloorDatabase {
  db: Db;
  url: string;
  schemas: ReadSchemas;
}

/** A fresh migrated database with a live generation of lab_results and lab_reports: their tables and indexes as the service has them. */
async function floorDatabase(connections: number): Promise<FloorDatabase> {
  const url = await createTestDatabase();
  const db = createPool(url, { max: connections, applicationName: "bench-floor" });
  const schemas = await withTransaction(db, async (tx) => ({
    results: (await createGeneration(tx, labResultsProjection, "live")).schemaName,
    reports: (await createGeneration(tx, labReportsProjection, "live")).schemaName,
  }));
  return { db, url, schemas };
}

/** Ends the pool and drops the database at once: a figure's tables would otherwise fill the shared server's disk until the run ends. */
async function dropFloorDatabase({ db, url }: FloorDatabase): Promise<void> {
  await db.end();
  const admin = new pg.Client({ connectionString: await testServerUrl() });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${pg.escapeIdentifier(new URL(url).pathname.slice(1))} with (force)`);
  } finally {
    await admin.end();
  }
}

async function onFreshDatabase<T>(connections: number, work: (floor: FloorDatabase) => Promise<T>): Promise<T> {
  const floor = await floorDatabase(connections);
  try {
    return await work(floor);
  } finally {
    await dropFloorDatabase(floor);
  }
}

/** Piece `p` of pieces of `size` reports: the templates it copies, and which copy. */
function pieceOf(templates: TemplateReport[], size: number, p: number): Piece {
  const first = p * size;
  const start = first % templates.length;
  return { templates: templates.slice(start, start + size), copy: Math.floor(first / templates.length) };
}

/** `pieces` pieces written by `writers` concurrent writers, each taking the next piece; the seconds it took. */
async function timedPieces(writers: number, pieces: number, write: (p: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let p = next++; p < pieces; p = next++) await write(p);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** One statement or one transaction per piece, on a connection of its own. */
async function inTransaction(db: Db, work: (tx: pg.PoolClient) => Promise<void>): Promise<void> {
  await withTransaction(db, work);
}

/** The form whose figure (of `figures`: form -> figure name) is the highest in the run. */
function fastest<F extends string>(run: Run, figures: Record<F, string>): F {
  const [best] = (Object.entries(figures) as Array<[F, string]>).sort(([, a], [, b]) => run[b]! - run[a]!)[0]!;
  return best;
}

/** Which forms each run's bulk and push floors used, for their notes. */
const forms: string[] = [];

/** One run of every figure: reports/s each (the rebuild's parts in seconds besides). */
interface Run {
  [figure: string]: number;
}

async function oneRun(templates: TemplateReport[], { reports, writers }: Settings): Promise<Run> {
  const run: Run = {};
  const bulkPieces = reports / BULK_PIECE;
  const rate = (seconds: number) => reports / seconds;
  const bulkPiece = (p: number) => pieceOf(templates, BULK_PIECE, p);

  // Events by multi-row INSERT, each payload a parameter (as the store appends); then, on the
  // events so stored, the item rows as the projection writes them, and as a rebuild loads them.
  await onFreshDatabase(writers, async ({ db, schemas }) => {
    const positions: number[][] = [];
    run.events_values = rate(
      await timedPieces(
        writers,
        bulkPieces,
        async (p) => void (positions[p] = await insertEvents(db, bulkPiece(p), "values")),
      ),
    );
    await db.query("analyze events");
    run.items_from_events = rate(
      await timedPieces(writers, bulkPieces, (p) => insertItemsFromEvents(db, schemas, positions[p]!)),
    );
    const rebuilt = await rebuildItems(db, positions.flat());
    run.rebuild_load_s = rebuilt.loadSeconds;
    run.rebuild_finish_s = rebuilt.finishSeconds;
    run.rebuild = rate(rebuilt.loadSeconds + rebuilt.finishSeconds);
  });
  await onFreshDatabase(writers, async ({ db }) => {
    run.events_unnest = rate(
      await timedPieces(writers, bulkPieces, async (p) => void (await insertEvents(db, bulkPiece(p), "unnest"))),
    );
  });
  await onFreshDatabase(writers, async ({ db }) => {
    run.events_copy = rate(
      await timedPieces(writers, bulkPieces, (p) => inTransaction(db, (tx) => copyEvents(tx, bulkPiece(p)))),
    );
  });
  // The same events stored out of line uncompressed: what lz4 costs the append.
  await onFreshDatabase(writers, async ({ db }) => {
    await db.query("alter table events alter column data set storage external");
    run.events_uncompressed = rate(
      await timedPieces(writers, bulkPieces, async (p) => void (await insertEvents(db, bulkPiece(p), "values"))),
    );
  });
  await onFreshDatabase(writers, async ({ db, schemas }) => {
    run.items = rate(await timedPieces(writers, bulkPieces, (p) => insertItems(db, schemas, bulkPiece(p))));
  });
  await onFreshDatabase(writers, async ({ db, schemas }) => {
    run.items_copy = rate(
      await timedPieces(writers, bulkPieces, (p) => inTransaction(db, (tx) => copyItems(tx, schemas, bulkPiece(p)))),
    );
  });
  await onFreshDatabase(writers, async ({ db, schemas }) => {
    run.report_rows = rate(
      await timedPieces(writers, bulkPieces, (p) =>
        insertReportRows(
          db,
          schemas,
          bulkPiece(p),
          Array.from({ length: BULK_PIECE }, (_, i) => p * BULK_PIECE + i + 1),
        ),
      ),
    );
  });
  // The bulk import's floor: a piece's events, its checkpoint, its item and report rows in one
  // transaction, the events and the item rows each by whichever form was the faster in this run.
  const eventsForm = fastest(run, { values: "events_values", unnest: "events_unnest", copy: "events_copy" });
  const itemsForm = fastest(run, { unnest: "items", copy: "items_copy" });
  run.bulk_events_copy = eventsForm === "copy" ? 1 : 0;
  run.bulk_items_copy = itemsForm === "copy" ? 1 : 0;
  run.bulk = await bulkPiecesFloor(templates, { reports, writers }, eventsForm, itemsForm);
  // Deliverable 3: the same floor with the compact item mapping in the events.
  run.bulk_compact = await bulkPiecesFloor(withCompactMapping(templates), { reports, writers }, eventsForm, itemsForm);
  // A push of 100 reports, SENDERS pushing at once: the same writes, a transaction per push.
  await onFreshDatabase(SENDERS, async ({ db, schemas }) => {
    run.push100 = rate(
      await timedPieces(SENDERS, reports / PUSH, (p) =>
        inTransaction(db, async (tx) => {
          const piece = pieceOf(templates, PUSH, p);
          const positions = await writeEvents(tx, piece, eventsForm);
          await writeItems(tx, schemas, piece, itemsForm);
          await insertReportRows(tx, schemas, piece, positions);
        }),
      ),
    );
  });
  forms.push(`events by ${eventsForm}, items by ${itemsForm}`);
  return run;
}

/** The bulk import's floor in reports/s: a piece's events, its checkpoint, its item and report rows in one transaction per piece. */
async function bulkPiecesFloor(
  templates: TemplateReport[],
  { reports, writers }: Pick<Settings, "reports" | "writers">,
  eventsForm: "values" | "unnest" | "copy",
  itemsForm: "unnest" | "copy",
): Promise<number> {
  return onFreshDatabase(writers, async ({ db, schemas }) => {
    const seconds = await timedPieces(writers, reports / BULK_PIECE, (p) =>
      inTransaction(db, async (tx) => {
        const piece = pieceOf(templates, BULK_PIECE, p);
        const positions = await writeEvents(tx, piece, eventsForm);
        await insertCheckpoint(tx, "bulk-job-floor", p);
        await writeItems(tx, schemas, piece, itemsForm);
        await insertReportRows(tx, schemas, piece, positions);
      }),
    );
    return reports / seconds;
  });
}

/**
 * The bulk import's floor for another group's run (bulk.floor_ratio): BENCH_FLOOR_REPORTS reports
 * (default 40,000) in pieces, events and item rows by COPY (the faster form in nearly every run
 * of this group), BENCH_FLOOR_WRITERS writers.
 */
export async function bulkFloorReportsPerSecond(): Promise<{ rate: number; note: string }> {
  const chosen = settings();
  const templates = await templateReports(TEMPLATE_BATCHES);
  const rate = await bulkPiecesFloor(templates, chosen, "copy", "copy");
  return {
    rate,
    note:
      `the floor: ${chosen.reports} reports in pieces of ${BULK_PIECE}, each one transaction with its events and ` +
      `item rows by COPY, the checkpoint event and the report rows, ${chosen.writers} writers, on a fresh ` +
      "database (npm run bench -- floor)",
  };
}

/**
 * The item rows rebuilt from the stored events as a rebuild does it at its floor: a new
 * generation's empty tables (primary key only), every item row by one INSERT … SELECT from the
 * payloads, then the projection's finishLoad (its two secondary indexes and the summaries).
 */
async function rebuildItems(db: Db, positions: number[]): Promise<{ loadSeconds: number; finishSeconds: number }> {
  const schema = await withTransaction(
    db,
    async (tx) => (await createGeneration(tx, labResultsProjection, "building")).schemaName,
  );
  const client = await db.connect();
  try {
    const loading = performance.now();
    await client.query("set work_mem = '256MB'");
    await insertItemsFromEvents(client, { results: schema, reports: "" }, positions);
    const finishing = performance.now();
    await client.query("begin");
    await client.query(`set local search_path to ${schema}, public`);
    for (const step of labResultsProjection.finishLoad!) await step.run(client);
    await client.query("commit");
    return { loadSeconds: (finishing - loading) / 1000, finishSeconds: (performance.now() - finishing) / 1000 };
  } finally {
    client.release();
  }
}

function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

const PROFILE_SUMMARY = fileURLToPath(new URL("./profile-summary.json", import.meta.url));

/** The profiled bulk job and push burst (BENCH_PROFILE=1), printed and written to bench/profile-summary.json. */
async function profiledPaths() {
  const count = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  console.error("  floor: profiling a bulk job and a push burst on the service");
  const runs = [
    await profiledBulk(count("BENCH_PROFILE_BULK_REPORTS", 50_000)),
    await profiledPush(count("BENCH_PROFILE_PUSH_BATCHES", 25)),
    await profiledHl7(count("BENCH_PROFILE_HL7_MESSAGES", 1000)),
  ];
  printProfiles(runs);
  writeFileSync(
    PROFILE_SUMMARY,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), loadAverage: loadAverage(), runs }, null, 2)}\n`,
  );
  console.log(`\nwritten to ${PROFILE_SUMMARY}`);
  return runs;
}

export async function floorBenchmarks(): Promise<BenchResult[]> {
  const chosen = settings();
  const templates = await templateReports(TEMPLATE_BATCHES);
  const bytesOf = (reports: TemplateReport[]) =>
    reports.reduce((sum, t) => sum + Buffer.byteLength(t.dataJson), 0) / reports.length;
  const eventBytes = bytesOf(templates);
  console.error(
    `  floor: ${chosen.reports} reports x ${ITEMS.length} items per figure, ${chosen.repeats} runs, ` +
      `${chosen.writers} writers; events of ${Math.round(eventBytes)} bytes of JSON`,
  );
  const runs: Run[] = [];
  const loads: string[] = [];
  for (let r = 0; r < chosen.repeats; r++) {
    const before = loadAverage();
    runs.push(await oneRun(templates, chosen));
    loads.push(`${before} -> ${loadAverage()}`);
    console.error(
      `  floor run ${r + 1}: ${Object.entries(runs.at(-1)!)
        .map(([k, v]) => `${k} ${v.toFixed(k.endsWith("_s") ? 1 : 0)}`)
        .join(", ")} (load ${loads.at(-1)})`,
    );
  }
  const profiles = process.env.BENCH_PROFILE === "1" ? await profiledPaths() : [];
  const of = (figure: string) => runs.map((run) => run[figure]!);
  const each = (figure: string) =>
    of(figure)
      .map((v) => Math.round(v))
      .join(", ");
  const shape =
    `${chosen.reports} reports of ${ITEMS.length} items (${Math.round(eventBytes)} B of event JSON each, the ` +
    "bulk group's reports as the service stores them) on a fresh database";
  const runsNote = (figure: string) =>
    `runs: ${each(figure)}; load average before -> after each run: ${loads.join("; ")}`;
  const figure = (name: string, key: string, what: string) =>
    result(`floor.${name}`, median(of(key)), "reports/s", undefined, `${what}; ${shape}; ${runsNote(key)}`);
  const pieces = `pieces of ${BULK_PIECE} (the bulk import's), ${chosen.writers} writers`;
  const formsOfRuns = forms.join("; ");
  const profiledFigures = profiles.map((run) => {
    const floorKey = run.path === "bulk" ? "bulk" : "push100";
    return result(
      `floor.profiled_${run.path}_reports_per_s`,
      run.reportsPerSecond,
      "reports/s",
      median(of(floorKey)),
      "the service's own " +
        `${{ bulk: "bulk import (one job)", push: "JSON push burst", hl7: "ORU^R01 over MLLP (the hl7 group's windowed connections)" }[run.path]} ` +
        `of ${run.reports} reports under --cpu-prof and statement timing (slower than unprofiled), first byte -> ` +
        "read models at the store's head; baseline: its floor above; where the time went: " +
        "bench/profile-summary.json",
    );
  });
  return [
    ...profiledFigures,
    figure(
      "bulk_reports_per_s",
      "bulk",
      `the bulk import's floor: per piece of ${BULK_PIECE}, one transaction with the events and the item rows ` +
        `(each by the form that was the fastest in the run: ${formsOfRuns}), the job's checkpoint event and the ` +
        `report rows, ${chosen.writers} writers; what bulk.floor_ratio divides by`,
    ),
    result(
      "floor.bulk_compact_mapping_per_s",
      median(of("bulk_compact")),
      "reports/s",
      median(of("bulk")),
      "deliverable 3: the bulk floor with a compact item mapping in the events " +
        `(${Math.round(bytesOf(withCompactMapping(templates)))} B of JSON instead of ${Math.round(eventBytes)}: ` +
        "per item only the standard code, converted value, unit status and how it was mapped; names, categories " +
        "and units left to the dictionary version); baseline: floor.bulk_reports_per_s of the same runs; " +
        `${chosen.reports} reports; ${runsNote("bulk_compact")}`,
    ),
    figure(
      "events_insert_per_s",
      "events_unnest",
      "events as the store keeps them (jsonb, lz4 out of line, its indexes) by one INSERT … SELECT from " +
        `unnest(text[] streams, text[] payloads) per piece, ${pieces}`,
    ),
    figure(
      "events_values_per_s",
      "events_values",
      `the same events by one multi-row INSERT per piece with each payload a parameter of its own (as appendToStreams sends them), ${pieces}`,
    ),
    figure("events_copy_per_s", "events_copy", `the same events by COPY FROM STDIN (text format) per piece, ${pieces}`),
    figure(
      "events_uncompressed_per_s",
      "events_uncompressed",
      `the events by multi-row INSERT with the payload column stored out of line uncompressed (storage external): against events_values_per_s, what lz4 costs`,
    ),
    figure(
      "items_per_s",
      "items",
      `item rows only: ${ITEMS.length} lab_results rows a report with its primary key and the two indexes ` +
        `report SQL reads (by item, by patient), one INSERT … SELECT from unnest arrays per piece, ${pieces}`,
    ),
    figure("items_copy_per_s", "items_copy", `the same item rows by COPY FROM STDIN per piece, ${pieces}`),
    figure(
      "items_from_events_per_s",
      "items_from_events",
      "item rows as the projection writes them: one INSERT … SELECT from the stored payloads (RECEIVED, " +
        `decompressed once each) per piece of stored events, ${pieces}`,
    ),
    figure(
      "reports_rows_per_s",
      "report_rows",
      `report rows only: lab_reports (with its 3 indexes) and lab_report_days (3) rows, one statement from unnest arrays per piece, ${pieces}`,
    ),
    figure(
      "push100_reports_per_s",
      "push100",
      `the JSON push's floor: pushes of ${PUSH} reports, ${SENDERS} at once (as the ingest group sends), each ` +
        "one transaction with the events, item rows (forms as the bulk floor's) and report rows",
    ),
    figure(
      "rebuild_items_per_s",
      "rebuild",
      "the rebuild's floor for the item rows: a new generation's lab_results (primary key only) loaded from " +
        `every stored event by one INSERT … SELECT (median ${median(of("rebuild_load_s")).toFixed(1)} s), then ` +
        `its finishLoad: two indexes and the summaries (${median(of("rebuild_finish_s")).toFixed(1)} s)`,
    ),
  ];
}

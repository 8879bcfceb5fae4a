import { randomUUID } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import { createPool, type Db } from "../db/pool.ts";
import { labResultsProjection } from "../projections/ingestion/labResults.ts";
import { rebuildProjection } from "../projections/runtime/rebuild.ts";
import { silentLogger } from "../src/logger.ts";
import { JOB_REPORTS, upload } from "./bulkJobs.ts";
import { httpJson } from "./httpJson.ts";
import { atStoreHead, benchService, until } from "./ingest.ts";
import { getJson, ITEMS, makeBatch, REPORTS_PER_BATCH } from "./ingestSenders.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/*
 * Contract F.1's re-mapping (#36): a store of BENCH_REMAP_REPORTS reports of 20 items (default
 * 100,000: two million item rows), each with one item the dictionary does not know (the sender's
 * own code for pre-dialysis urea), imported by bulk jobs. Then an author maps that item: the
 * figure is its stored results re-mapped per second, from the POST until the mapping's progress
 * says DONE (the item rows, summaries and latest results re-mapped), against the per-result rate
 * of a rebuild of the item rows (lab_results) on the same store in the same run. One sender pushes
 * 100-report batches back to back before the mapping (idle) and during the re-mapping: the second
 * figure is their p99, during against idle.
 */

const LOCAL = { itemCode: "LIS-0815", itemName: "本院项目0815" };
const IDLE_PUSHES = 40;
const DAYS = 1000;
const dayOf = (batch: number) => new Date(Date.UTC(2020, 0, 1 + (batch % DAYS))).toISOString().slice(0, 10);
const LOCAL_AT = ITEMS.findIndex((item) => item.code === "UREA_PRE");

/** Batch `b` of run `run` with its pre-dialysis urea sent under the laboratory's own code. */
function batchWithLocalItem(run: string, b: number) {
  const batch = makeBatch(run, 0, b, dayOf(b));
  for (const report of batch.reports) report.items[LOCAL_AT] = { ...report.items[LOCAL_AT], ...LOCAL };
  return batch.reports;
}

async function writeJob(file: string, from: number, to: number): Promise<void> {
  const out = createWriteStream(file);
  for (let b = from; b < to; b++) {
    if (
      !out.write(
        batchWithLocalItem("R", b)
          .map((report) => JSON.stringify(report))
          .join("\n") + "\n",
      )
    )
      await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** Where the re-mapping's time went: when the mapping and each of its steps were recorded, from the POST. */
async function printTimeline(db: Db, startedAt: Date): Promise<void> {
  const { rows } = await db.query(
    `select type, (data->>'results')::int as results, extract(epoch from recorded_at - $1::timestamptz)::float8 as at
     from events where type in ('ItemMappingAdded', 'ItemMappingApplied') order by position`,
    [startedAt],
  );
  console.error(
    "  remap timeline (s from the POST): " +
      `${rows.map((row) => `${row.type === "ItemMappingAdded" ? "added" : `step ${row.results}`} ${Number(row.at).toFixed(2)}`).join(", ")}`,
  );
}

/**
 * How long one plain UPDATE takes to find the unmapped rows of the laboratory's own item and write
 * them as mapped, rolled back; VACUUM then removes the versions it wrote.
 */
async function plainUpdate(databaseUrl: string): Promise<{ seconds: number; rows: number }> {
  const floorDb = createPool(databaseUrl, { max: 1, applicationName: "bench-remap-floor" });
  const client = await floorDb.connect();
  try {
    const { rows } = await client.query(
      "select schema_name from projection_generations where name = 'lab_results' and state = 'live'",
    );
    const table = `${rows[0].schema_name}.lab_results`;
    await client.query("begin");
    const started = performance.now();
    const { rowCount } = await client.query(
      `update ${table} set std_code = 'UREA_PRE', std_name = 'Urea (pre-dialysis)', category = 'dialysis_adequacy', std_unit = 'mmol/L',
         unit_status = 'standard', std_value = value_num, mapping_id = $2
       where tenant = $1 and std_code is null and item_code = $3`,
      ["bench", randomUUID(), LOCAL.itemCode],
    );
    const seconds = (performance.now() - started) / 1000;
    await client.query("rollback");
    await client.query(`vacuum ${table}`);
    return { seconds, rows: rowCount ?? 0 };
  } finally {
    client.release();
    await floorDb.end();
  }
}

export async function remapBenchmarks(): Promise<BenchResult[]> {
  const reports = Number(process.env.BENCH_REMAP_REPORTS ?? 100_000);
  if (!Number.isInteger(reports) || reports < REPORTS_PER_BATCH || reports % REPORTS_PER_BATCH !== 0)
    throw new Error(`BENCH_REMAP_REPORTS must be a multiple of ${REPORTS_PER_BATCH}`);
  const batches = reports / REPORTS_PER_BATCH;
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-remap-"));
  const { service, db, tenant, databaseUrl } = await benchService();
  try {
    const perJob = JOB_REPORTS / REPORTS_PER_BATCH;
    const jobIds: string[] = [];
    for (let from = 0; from < batches; from += perJob) {
      const file = path.join(dir, `job-${jobIds.length}.ndjson`);
      await writeJob(file, from, Math.min(batches, from + perJob));
      const answer = await upload(`${service.url}/open/v1/lab/reports/bulk`, tenant.client.key, file);
      if (answer.status !== 202) throw new Error(`the upload answered ${answer.status}`);
      jobIds.push(answer.body.data.jobId);
    }
    for (const jobId of jobIds)
      await until(
        "job done",
        async () =>
          (await getJson(`${service.url}/open/v1/bulk/${jobId}`, tenant.client.key)).body.data.status === "DONE",
        3_600_000,
      );
    await until("item rows caught up", () => atStoreHead(db, "lab_results"), 600_000);
    console.error(`  remap: ${reports} reports stored, each with one unmapped item`);

    const pushUrl = `${service.url}/open/v1/lab/reports`;
    const pushHeaders = { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/json" };
    let pushed = 0;
    const push = async (): Promise<number> => {
      const body = Buffer.from(JSON.stringify({ reports: makeBatch("P", 1, pushed++, dayOf(pushed)).reports }));
      const sent = performance.now();
      const { status } = await httpJson("POST", pushUrl, pushHeaders, body);
      if (status !== 200) throw new Error(`a push answered ${status}`);
      return performance.now() - sent;
    };
    const idleMs: number[] = [];
    for (let i = 0; i < IDLE_PUSHES; i++) idleMs.push(await push());

    // The floor, with a sender pushing as during the re-mapping: the item's rows found and their
    // standard columns written by one plain UPDATE (a new version of each row, with its entries
    // in every index, as a re-mapping writes), rolled back; VACUUM then takes the versions away,
    // so that the re-mapping finds the table as it would have.
    let pushing = true;
    const floorMs: number[] = [];
    const floorPusher = (async () => {
      while (pushing) floorMs.push(await push());
    })();
    const floor = await plainUpdate(databaseUrl);
    pushing = false;
    await floorPusher;
    // The re-mapping starts, as the floor did, with the item rows holding every report pushed.
    await until("item rows caught up", () => atStoreHead(db, "lab_results"), 600_000);

    const author = {
      authorization: `Bearer ${tenant.authorToken}`,
      "content-type": "application/json",
      "x-service-tenant": "bench",
    };
    const started = performance.now();
    const startedAt = new Date();
    const made = await httpJson(
      "POST",
      `${service.url}/api/dictionary/mappings`,
      author,
      Buffer.from(JSON.stringify({ ...LOCAL, stdCode: "UREA_PRE" })),
    );
    if (made.status !== 201) throw new Error(`the mapping answered ${made.status} ${JSON.stringify(made.answer)}`);
    const mappingId = (made.answer as { mappingId: string }).mappingId;
    let remapping = true;
    const duringMs: number[] = [];
    const pusher = (async () => {
      while (remapping) duringMs.push(await push());
    })();
    let remap = { status: "RUNNING", results: 0, total: 0 };
    await until(
      "re-mapping done",
      async () => {
        const listed = (await httpJson("GET", `${service.url}/api/dictionary/mappings`, author, null)).answer as Array<{
          mappingId: string;
          remap: typeof remap;
        }>;
        remap = listed.find((mapping) => mapping.mappingId === mappingId)!.remap;
        return remap.status === "DONE";
      },
      3_600_000,
    );
    const remapSeconds = (performance.now() - started) / 1000;
    remapping = false;
    await pusher;
    console.error(
      `  remap: ${remap.results} results re-mapped in ${remapSeconds.toFixed(1)} s during ${duringMs.length} pushes; rebuilding lab_results`,
    );
    await printTimeline(db, startedAt);

    await until("item rows caught up", () => atStoreHead(db, "lab_results"), 600_000);
    const rebuildDb = createPool(databaseUrl, { max: 4, applicationName: "bench-remap-rebuild" });
    let rebuildSeconds = 0;
    let rows = 0;
    try {
      const rebuilding = performance.now();
      const outcome = await rebuildProjection(rebuildDb, labResultsProjection, silentLogger, { batchSize: 5000 });
      if (outcome.status !== "rebuilt") throw new Error(`the rebuild did not finish: ${JSON.stringify(outcome)}`);
      rebuildSeconds = (performance.now() - rebuilding) / 1000;
      rows = Number((await rebuildDb.query("select count(*) as n from read.lab_results")).rows[0].n);
    } finally {
      await rebuildDb.end();
    }
    const rate = remap.results / remapSeconds;
    const rebuildRate = rows / rebuildSeconds;
    const idleP99 = percentile(idleMs, 99);
    const duringP99 = percentile(duringMs, 99);
    return [
      result(
        "remap.results_per_s",
        rate,
        "results/s",
        rebuildRate,
        `${remap.results} stored results of one item re-mapped (of ${remap.total} counted) in ` +
          `${remapSeconds.toFixed(1)} s, POST /api/dictionary/mappings -> its progress DONE (item rows, ` +
          `summaries, latest results), on a store of ${reports} reports x ${ITEMS.length} items; baseline: a ` +
          `rebuild of lab_results on the same store, ${rows} item rows in ${rebuildSeconds.toFixed(1)} s; ` +
          "target ratio >= 0.5",
      ),
      result(
        "remap.floor_results_per_s",
        floor.rows / floor.seconds,
        "results/s",
        rebuildRate,
        `the least work of a re-mapping in the same run: one plain UPDATE finding the item's ${floor.rows} ` +
          "unmapped results and writing their standard columns (a new row version with its index entries each; " +
          `no rules, no summaries) in ${floor.seconds.toFixed(1)} s, before the mapping, a sender pushing ` +
          "meanwhile, rolled back; against the same rebuild",
      ),
      result(
        "remap.push100_p99_ratio",
        duringP99 / idleP99,
        "ratio",
        undefined,
        `p99 of ${duringMs.length} pushes of ${REPORTS_PER_BATCH} reports, one after the other, during the ` +
          `re-mapping (${duringP99.toFixed(0)} ms) against ${IDLE_PUSHES} before it (${idleP99.toFixed(0)} ` +
          "ms); target <= 1.2",
      ),
      result(
        "remap.floor_push100_p99_ratio",
        percentile(floorMs, 99) / idleP99,
        "ratio",
        undefined,
        `the same during the floor's plain UPDATE: p99 of ${floorMs.length} pushes ` +
          `(${percentile(floorMs, 99).toFixed(0)} ms) against the same ${IDLE_PUSHES} idle ones`,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.end();
    await service.stop();
  }
}

import { BENCH_ADMIN_TOKEN, benchHeaders, publishBenchReport } from "./benchService.ts";
import { Writable } from "node:stream";
import ExcelJS from "exceljs";
import pg from "pg";
import { createPool } from "../db/pool.ts";
import { buildServer } from "../src/buildServer.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { spawnService } from "../test/support/serviceProcess.ts";
import { peakResidentBytes, residentBytes, resetPeakResident } from "./processStats.ts";
import { columnTypeOf } from "../queries/reports/queryResult.ts";
import { textToCell, type CellValue } from "../src/reports/export/xlsxCells.ts";
import { columnStyles, writeXlsx, type SheetEvent, type XlsxColumn } from "../src/reports/export/xlsxExport.ts";
import { awaitCompression, workbookWriter } from "../src/reports/export/xlsxStreamingWorkbook.ts";
import { median, result, type BenchResult } from "./results.ts";

const ROWS = 100_000;
const BATCH = 2000;
const RSS_RUNS = 3;
const TIMED_RUNS = 5;

/** 100,000 rows × 10 mixed columns: text (Chinese too), double, numeric, integer, boolean, date, timestamp. */
const EXPORT_SQL = `select external_id, patient_ref, item_name, unit, value_num, round(std_value::numeric, 2) as std_value,
  extract(doy from reported_at)::int as day_of_year, value_num > 120 as high, reported_at::date as day, reported_at
  from lab_results where std_code = 'HGB' order by reported_at, external_id`;

const spec = {
  version: 1,
  title: "导出基准",
  params: [],
  queries: { rows: { sql: EXPORT_SQL } },
  nodes: [{ id: "t", type: "table", query: "rows" }],
};

/** What each seeded row holds, by column (`g` is the row's number); columns the live table lacks are left out. */
const SEED_COLUMNS: Record<string, string> = {
  tenant: "'bench'",
  external_id: "'R' || lpad(g::text, 7, '0')",
  item_index: "0",
  patient_ref: "'P' || (1 + g % 500)",
  item_code: "'HGB'",
  item_name: "'血红蛋白'",
  std_code: "'HGB'",
  std_name: "'血红蛋白'",
  value_num: "100 + (g % 40) + (g % 7) * 0.25",
  unit: "'g/L'",
  std_value: "100 + (g % 40) * 1.0125",
  std_unit: "'g/L'",
  unit_status: "'standard'",
  ref_low: "115",
  ref_high: "150",
  result_type: "'NUMERIC'",
  reported_at: "timestamp '2026-01-01 07:00:00' + (g % 365) * interval '1 day' + (g % 600) * interval '1 minute'",
  reported_on:
    "(timestamp '2026-01-01 07:00:00' + (g % 365) * interval '1 day' + (g % 600) * interval '1 minute')::date",
};

/** 100,000 HGB results of one tenant, written straight into the live read model (the export is measured, not ingestion). */
async function seed(db: pg.Pool): Promise<void> {
  const { rows } = await db.query(
    "select schema_name from projection_generations where name = 'lab_results' and state = 'live'",
  );
  const labSchema = rows[0].schema_name as string;
  const present = await db.query(
    "select column_name from information_schema.columns where table_schema = $1 and table_name = 'lab_results'",
    [labSchema],
  );
  const columns = Object.keys(SEED_COLUMNS).filter((name) => present.rows.some((row) => row.column_name === name));
  await db.query(
    `insert into ${labSchema}.lab_results (${columns.join(", ")})
     select ${columns.map((name) => SEED_COLUMNS[name]).join(", ")} from generate_series(1, ${ROWS}) g`,
  );
  await db.query(`analyze ${labSchema}.lab_results`);
}

/**
 * The service process's peak RSS while `work` runs: its VmHWM, reset before (exact), or where that
 * is not allowed its RSS sampled every 20 ms.
 */
async function withPeakRss<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  const exact = resetPeakResident(pid);
  let peak = residentBytes(pid);
  const timer = exact ? null : setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 20);
  try {
    const value = await work();
    peak = exact ? peakResidentBytes(pid) : Math.max(peak, residentBytes(pid));
    return { value, peakMb: peak / 1024 / 1024 };
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** For rows and empty cells: no style (a row's own style is otherwise worked out anew for every row). */
const PLAIN_STYLE = Object.freeze({});

/** exceljs's own way of writing rows (Row and Cell objects, each row committed), with the shared styles that make it fastest. */
function writeRowsWithExceljs(
  worksheet: ExcelJS.Worksheet,
  rows: readonly CellValue[][],
  styles: readonly object[],
): void {
  const width = styles.length;
  for (const values of rows) {
    const row = worksheet.addRow(values as unknown[]);
    (row as unknown as { style: object }).style = PLAIN_STYLE;
    for (let c = 0; c < width; c++)
      row.getCell(c + 1).style = (values[c] === null ? PLAIN_STYLE : styles[c]) as ExcelJS.Style;
    row.commit();
  }
}

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

/** Our own writer on the same rows from memory: what the export costs without reading PostgreSQL and HTTP. */
async function writeOursFromMemory(columns: XlsxColumn[], cells: CellValue[][]): Promise<void> {
  async function* events(): AsyncGenerator<SheetEvent> {
    yield { kind: "columns", columns };
    for (let start = 0; start < cells.length; start += BATCH)
      yield { kind: "rows", rows: cells.slice(start, start + BATCH) };
    yield { kind: "end" };
  }
  const about = {
    report: "bench",
    version: "v1",
    mode: "dynamic",
    publishedAt: "",
    exportedAt: "",
    datasource: "clinical",
    filters: [],
  };
  await writeXlsx(discard(), about, [{ query: "rows", events: events() }], new AbortController().signal);
}

/** The ceiling: the same rows, already in memory as cells, through exceljs's streaming writer into a discarding stream. */
async function writeFromMemory(columns: XlsxColumn[], cells: CellValue[][]): Promise<void> {
  const workbook = workbookWriter(discard());
  const sheet = workbook.addWorksheet("rows", { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = columns.map(() => ({ width: 12 }));
  sheet.addRow(columns.map((column) => column.name)).commit();
  const styles = columnStyles(columns);
  for (let start = 0; start < cells.length; start += BATCH) {
    writeRowsWithExceljs(sheet, cells.slice(start, start + BATCH), styles);
    // As the export does between batches: let the loop turn, and let deflate catch up.
    await new Promise((resolve) => setImmediate(resolve));
    await awaitCompression(sheet);
  }
  sheet.commit();
  await workbook.commit();
}

export async function xlsxExportBenchmarks(): Promise<BenchResult[]> {
  const databaseUrl = await createTestDatabase(false);
  await buildServer();
  // The service as `npm start` runs it, in a process of its own: its memory is the service's alone,
  // not this client's nor the baseline's (the ingest bench measures it the same way).
  const service = await spawnService({ databaseUrl, env: { LOG_LEVEL: "info", ADMIN_TOKEN: BENCH_ADMIN_TOKEN } });
  const db = createPool(databaseUrl, { max: 2, applicationName: "bench-seed" });
  try {
    await seed(db);
    const headers = benchHeaders;
    await publishBenchReport(service, "bench-export", spec);
    // The read model follows the events: wait until the published version can be opened.
    for (
      let tries = 0;
      (await fetch(`${service.url}/api/reports/bench-export/view`, { headers })).status !== 200;
      tries++
    ) {
      if (tries > 200) throw new Error("the published report never became viewable");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    // Ours: the HTTP export end to end, the whole response read (and dropped).
    const exportOnce = async () => {
      const started = performance.now();
      const response = await fetch(`${service.url}/api/reports/bench-export/export/xlsx`, {
        method: "POST",
        headers,
        body: "{}",
      });
      if (response.status !== 200) throw new Error(`export failed: ${response.status} ${await response.text()}`);
      let bytes = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
      return { seconds: (performance.now() - started) / 1000, bytes };
    };
    const rssIdle = residentBytes(service.pid) / 1024 / 1024;
    await exportOnce(); // warm-up
    const rssBefore = residentBytes(service.pid) / 1024 / 1024;
    let peakMb = 0;
    let bytes = 0;
    for (let run = 0; run < RSS_RUNS; run++) {
      const measured = await withPeakRss(service.pid, exportOnce);
      bytes = measured.value.bytes;
      peakMb = Math.max(peakMb, measured.peakMb);
    }

    // The ceiling's rows: the same query's result fetched beforehand, shaped into cells the same way.
    const raw = new pg.Client({
      connectionString: databaseUrl,
      types: { getTypeParser: () => (text: string) => text } as never,
    });
    await raw.connect();
    let columns: XlsxColumn[];
    let cells: CellValue[][];
    let fetchSeconds: number;
    try {
      await raw.query(
        "insert into report_sessions (pid, server_started, tenant) select pg_backend_pid(), " +
          "pg_postmaster_start_time(), 'bench' on conflict (pid, server_started) do update set tenant = 'bench'",
      );
      const started = performance.now();
      const fetched = await raw.query({
        text: EXPORT_SQL.replace(/\blab_results\b/, "clinical.lab_results"),
        rowMode: "array",
      });
      fetchSeconds = (performance.now() - started) / 1000;
      columns = fetched.fields.map((field) => ({ name: field.name, type: columnTypeOf(field.dataTypeID) }));
      const convert = fetched.fields.map((field, i) => textToCell(field.dataTypeID, columns[i]!.type));
      cells = (fetched.rows as (string | null)[][]).map((row) => row.map((text, i) => convert[i]!(text)));
    } finally {
      await raw.end();
    }
    if (cells.length !== ROWS) throw new Error(`expected ${ROWS} rows, fetched ${cells.length}`);
    await writeFromMemory(columns, cells); // warm-up
    await writeOursFromMemory(columns, cells);

    // Time: ours and the ceiling taking turns, so that both see the same machine.
    const ours: number[] = [];
    const ceiling: number[] = [];
    const writer: number[] = [];
    for (let run = 0; run < TIMED_RUNS; run++) {
      ours.push((await exportOnce()).seconds);
      const started = performance.now();
      await writeFromMemory(columns, cells);
      ceiling.push((performance.now() - started) / 1000);
      const writerStarted = performance.now();
      await writeOursFromMemory(columns, cells);
      writer.push((performance.now() - writerStarted) / 1000);
    }

    const oursS = median(ours);
    const ceilingS = median(ceiling);
    const writerS = median(writer);
    return [
      result(
        "export.xlsx_100k_s",
        oursS,
        "s",
        { value: ceilingS, ratio: ceilingS / oursS },
        `HTTP export of ${ROWS} rows x 10 mixed columns from PostgreSQL, whole response read ` +
          `(${(bytes / 1024 / 1024).toFixed(1)} MB), median of ${TIMED_RUNS} taking turns with the baseline: the ` +
          "same rows from memory through exceljs's streaming writer, rows written its own way (Row and Cell " +
          "objects) (ratio = baseline / ours); the query alone, fetched in one go, took " +
          `${fetchSeconds.toFixed(2)} s`,
      ),
      result(
        "export.xlsx_100k_writer_s",
        writerS,
        "s",
        { value: ceilingS, ratio: ceilingS / writerS },
        "our writer alone on the same rows from memory (no PostgreSQL, no HTTP), same turns; the export above " +
          "minus this is what reading PostgreSQL and serving HTTP add",
      ),
      result(
        "export.xlsx_100k_rss_mb",
        peakMb,
        "MB",
        undefined,
        "peak RSS of the service's process (started as npm start starts it; the client is this process) during " +
          `${RSS_RUNS} exports; ${rssIdle.toFixed(0)} MB before the first export ` +
          `(${(peakMb - rssIdle).toFixed(0)} MB more at the peak), ${rssBefore.toFixed(0)} MB after the ` +
          "warm-up; target <= 200 MB",
      ),
    ];
  } finally {
    await db.end();
    await service.stop();
  }
}

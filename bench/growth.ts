import { ingestionDeps } from "../src/app/ingestionDeps.ts";
import { checkReports, storeCheckedReports, type PushingClient } from "../commands/ingestion/pushReports.ts";
import { reportKinds } from "../commands/ingestion/reportKinds.ts";
import { EventStore, type StreamAppend, type TransactionWriter, type WrittenEvent } from "../db/eventStore.ts";
import { sealPending } from "../db/ledger.ts";
import { createPool, type Db } from "../db/pool.ts";
import { loadDefaultDictionary } from "../db/seed/defaultDictionary.ts";
import { allProjections } from "../src/app/allProjections.ts";
import { rebuildProjection } from "../projections/runtime/rebuild.ts";
import { measureRebuildFloor } from "./rebuildFloor.ts";
import { generateDemoData, demoPeriod, type DemoLabReport } from "../src/demo/demoData.ts";
import { demoReports, DEMO_REPORT_IDS } from "../src/demo/demoReports.ts";
import { localDate } from "../db/localDateTime.ts";
import { silentLogger } from "../src/logger.ts";
import { ADMIN, httpClient } from "../test/support/http.ts";
import { spawnService, type ServiceProcess } from "../test/support/serviceProcess.ts";
import { projectionsCaughtUp } from "../test/support/storedReports.ts";
import { benchService, until } from "./ingest.ts";
import { runSenders } from "./ingestSenders.ts";
import { percentile, result, type BenchResult } from "./results.ts";

/*
 * Years of history (#17): the same figures on an empty store and on one of BENCH_GROWTH_REPORTS
 * lab reports (2,000,000 by default) of the demo's shape, in the same run. The big store is the
 * demo's generator scaled up: groups of 220 patients (one seed each) with five years of monthly
 * panels, spread over BENCH_GROWTH_TENANTS tenants. Its reports are not pushed over HTTP: they go
 * through the push's own check and decision (so every event is what a push would have stored)
 * and are inserted into the event store by SQL, dated as received over the five years; the read
 * models are then built by a full rebuild of every projection, itself one of the figures.
 */

const YEARS = 5;
const GROUP_PATIENTS = 220;
/*
 * Calls per latency figure. A p99 of sixty calls is their second-slowest: one hiccup of the
 * machine moved the history ratio between 1.35 and 4.18 from one run to the next. Three hundred
 * calls after a warm-up (the first calls of a freshly started service open its pools) measure
 * the store, not the moment.
 */
const CALLS = 300;
const WARMUP_CALLS = 20;
/** The patient chart's five items (#21): monthly in the demo panels, and all with a clinical target. */
const CHART_CODES = ["HGB", "ALB", "P", "CA", "IPTH"];
/** Batches of 100 reports per sender: 4 senders x 25, a hundred pushes per p99. */
const PUSH_BATCHES = 25;
const DASHBOARD_CALLS = 15;
const INSERT_ROWS = 500;
/** A day before any generated report. */
const PROBE_DAY = "2015-06-01";

export interface Tenant {
  name: string;
  client: { clientId: string; key: string; name: string };
  authorToken: string;
}

interface Figures {
  push100P99: number;
  /** From the last push answered until every projection held the pushes. */
  catchUpSeconds: number;
  reconcileP99: number;
  historyP99: number;
  /** FHIR Observation search: one patient's haemoglobin over three years. */
  fhirSearchP99: number;
  fhirSearchResults: number;
  /** The patient chart: one patient's five items over five years. */
  patientResultsP99: number;
  patientResultsPoints: number;
  dashboards: Record<
    string,
    {
      defaultP50: number;
      defaultP99: number;
      fiveYearsP50: number;
      fiveYearsP99: number;
      failedQueries: number;
      queries: number;
    }
  >;
}

const yearsBefore = (now: Date, years: number) => new Date(now.getFullYear() - years, now.getMonth(), now.getDate());

async function timed(call: () => Promise<{ status: number }>): Promise<number> {
  const started = performance.now();
  const answer = await call();
  if (answer.status !== 200) throw new Error(`a measured call answered ${answer.status}`);
  return performance.now() - started;
}

async function repeat(times: number, call: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) ms.push(await timed(() => call(i)));
  return ms;
}

/** The growth tenants, each with a client, an author and the two demo dashboards published over the demo's period. */
async function setUpTenants(url: string, count: number, now: Date): Promise<Tenant[]> {
  const call = httpClient(url);
  const tenants: Tenant[] = [];
  for (let t = 0; t < count; t++) {
    const name = `growth${t}`;
    const client = (
      await call("POST", "/api/admin/clients", { token: ADMIN, body: { name: `LIS of ${name}`, tenant: name } })
    ).body;
    const author = (
      await call("POST", "/api/admin/authors", { token: ADMIN, body: { name: `Author of ${name}`, tenant: name } })
    ).body;
    for (const report of demoReports(demoPeriod(now))) {
      await call("PUT", `/api/reports/${report.id}/draft`, {
        token: author.token,
        tenant: name,
        body: { title: report.title, datasource: report.datasource, spec: report.spec },
      });
      const published = await call("POST", `/api/reports/${report.id}/publish`, {
        token: author.token,
        tenant: name,
        body: { mode: "dynamic", note: "growth" },
      });
      if (published.status !== 201)
        throw new Error(`publishing ${report.id} for ${name}: ${published.status} ${JSON.stringify(published.body)}`);
    }
    tenants.push({
      name,
      client: { clientId: client.clientId, key: client.key, name: `LIS of ${name}` },
      authorToken: author.token,
    });
  }
  return tenants;
}

/**
 * Registers every group's patients over HTTP (a few tens of thousands: small beside the reports),
 * each in the demo's ward or the one `wardOf` names for its group.
 */
export async function registerPatients(
  url: string,
  tenants: Tenant[],
  groups: number,
  now: Date,
  wardOf: (group: number, ward: string) => string = (_group, ward) => ward,
): Promise<void> {
  const call = httpClient(url);
  const work: Array<() => Promise<void>> = [];
  for (let g = 0; g < groups; g++) {
    const tenant = tenants[g % tenants.length]!;
    for (const { patientRef, ...patient } of generateDemoData(now, g + 1).patients) {
      work.push(async () => {
        const put = () =>
          call("PUT", `/api/patients/G${g}-${patientRef}`, {
            token: tenant.authorToken,
            tenant: tenant.name,
            body: { ...patient, ward: wardOf(g, patient.ward) },
          });
        // A kept-alive connection the service closes as a request goes out fails in transport: a PUT may be sent again.
        const answer = await put().catch(() => put());
        // Two seeds may draw the same id card: one id card, one patient; that group's reports match the first.
        if (answer.status !== 200 && answer.status !== 409)
          throw new Error(`patient G${g}-${patientRef}: ${answer.status} ${JSON.stringify(answer.body)}`);
      });
    }
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < work.length; i = next++) await work[i]!();
    }),
  );
}

/** A group's five years of monthly panels, its external ids and report numbers made its own. */
export function groupReports(g: number, now: Date): DemoLabReport[] {
  const reports: DemoLabReport[] = [];
  for (let y = YEARS - 1; y >= 0; y--) {
    for (const report of generateDemoData(yearsBefore(now, y), g + 1).labReports) {
      reports.push({ ...report, externalId: `G${g}-${report.externalId}`, reportNo: `G${g}-${report.reportNo}` });
    }
  }
  return reports;
}

/**
 * The events a push of these reports would store, made by the push's own check and decision (a
 * writer that keeps the appends instead of writing them; every stream new), inserted by SQL with
 * the moment each report would have been received: an hour after it was reported.
 */
export async function insertAsPushed(
  db: Db,
  store: EventStore,
  tenant: Tenant,
  reports: DemoLabReport[],
): Promise<number> {
  const dictionary = loadDefaultDictionary();
  const deps = ingestionDeps(store, dictionary);
  const client: PushingClient = {
    clientId: tenant.client.clientId,
    name: tenant.client.name,
    tenant: tenant.name,
    codeMap: new Map(),
  };
  const receivedAt = new Map(reports.map((report) => [report.externalId, report.reportedAt]));
  const appends: StreamAppend[] = [];
  const writer: TransactionWriter = {
    append: () => Promise.reject(new Error("not used")),
    appendMany: async (_tenant, collected) => {
      appends.push(...collected);
      return [];
    },
  };
  const noStreamsYet = { query: async () => ({ rows: [] }) } as unknown as Db;
  const metadata = { actor: client.name, client: client.clientId, requestId: "growth" };
  const checked = await checkReports(deps, reportKinds.lab, client, [...reports]);
  await storeCheckedReports(writer, noStreamsYet, reportKinds.lab, client, checked, metadata);
  for (let i = 0; i < appends.length; i += INSERT_ROWS) {
    const rows = appends.slice(i, i + INSERT_ROWS);
    const params: unknown[] = [tenant.name, JSON.stringify(metadata)];
    const values = rows.map((append) => {
      const event = append.events[0] as WrittenEvent;
      const externalId = reportKinds.lab.stream.key(append.streamId);
      params.push(append.streamId, event.type, event.dataJson, receivedAt.get(externalId));
      const p = params.length;
      return `($1, $${p - 3}, 1, $${p - 2}, $${p - 1}::jsonb, $2::jsonb, $${p}::timestamp + interval '1 hour')`;
    });
    await db.query(
      `insert into events (tenant, stream_id, stream_version, type, data, metadata, recorded_at) values ${values.join(", ")}`,
      params,
    );
  }
  return appends.length;
}

async function measure(
  service: ServiceProcess,
  bench: { key: string },
  tenant: Tenant,
  run: string,
  now: Date,
  historyIds: string[],
): Promise<Figures> {
  const url = service.url!;
  const call = httpClient(url);
  await runSenders({ serviceUrl: url, key: bench.key, run: `${run}W`, batches: 2, sample: false });
  const pushes = await runSenders({ serviceUrl: url, key: bench.key, run, batches: PUSH_BATCHES, sample: false });
  // The reads below are measured on the store, not beside projections still applying the pushes
  // just measured (which a bigger store makes them do for longer: the projection lag, a figure of
  // the ingest bench).
  const caughtUp = performance.now();
  await projectionsCaughtUp(url, 600_000);
  const catchUpSeconds = (performance.now() - caughtUp) / 1000;
  const reconcileCall = () => call("GET", `/open/v1/reconcile/lab?date=${PROBE_DAY}`, { token: tenant.client.key });
  const historyCall = (i: number) =>
    call("GET", `/api/history/lab/${encodeURIComponent(historyIds[i % historyIds.length]!)}`, {
      token: tenant.authorToken,
      tenant: tenant.name,
    });
  await repeat(WARMUP_CALLS, reconcileCall);
  const reconcile = await repeat(CALLS, reconcileCall);
  await repeat(WARMUP_CALLS, historyCall);
  const history = await repeat(CALLS, historyCall);
  // A patient of the first group (the probes' patients): three years of one code, as a regional platform asks.
  const patientRef = `G0-${generateDemoData(now, 1).patients[0]!.patientRef}`;
  const searchPath = `/fhir/r4/Observation?${new URLSearchParams([
    ["patient", patientRef],
    ["code", "http://loinc.org|718-7"],
    ["date", `ge${localDate(yearsBefore(now, 3))}`],
    ["date", `le${localDate(now)}`],
    ["_count", "100"],
  ])}`;
  const searchCall = () => call("GET", searchPath, { token: tenant.authorToken, tenant: tenant.name });
  await repeat(WARMUP_CALLS, searchCall);
  const fhirSearch = await repeat(CALLS, searchCall);
  const fhirSearchResults = ((await searchCall()).body as { entry?: unknown[] }).entry?.length ?? 0;
  const fiveYears = [localDate(yearsBefore(now, YEARS)), localDate(now)];
  const chartQuery = new URLSearchParams({ codes: CHART_CODES.join(","), from: fiveYears[0]!, to: fiveYears[1]! });
  const chartPath = `/api/patients/${encodeURIComponent(patientRef)}/results?${chartQuery}`;
  const chartCall = () => call("GET", chartPath, { token: tenant.authorToken, tenant: tenant.name });
  await repeat(WARMUP_CALLS, chartCall);
  const patientResults = await repeat(CALLS, chartCall);
  const chart = (await chartCall()).body as { series?: Array<{ points: unknown[] }> };
  const patientResultsPoints = (chart.series ?? []).reduce((sum, series) => sum + series.points.length, 0);
  const dashboards: Figures["dashboards"] = {};
  for (const id of DEMO_REPORT_IDS) {
    // A query over its statement timeout answers { error } inside a 200: counted, or a timeout would pass for a figure.
    let queries = 0;
    let failedQueries = 0;
    const data = (params: Record<string, unknown>) => async () => {
      const answer = await call("POST", `/api/reports/${id}/data`, { tenant: tenant.name, body: { params } });
      for (const query of Object.values((answer.body?.queries ?? {}) as Record<string, { error?: string }>)) {
        queries++;
        if (query.error) failedQueries++;
      }
      return answer;
    };
    const defaults = await repeat(DASHBOARD_CALLS, data({}));
    const five = await repeat(DASHBOARD_CALLS, data({ period: fiveYears }));
    dashboards[id] = {
      defaultP50: percentile(defaults, 50),
      defaultP99: percentile(defaults, 99),
      fiveYearsP50: percentile(five, 50),
      fiveYearsP99: percentile(five, 99),
      failedQueries,
      queries,
    };
  }
  return {
    push100P99: percentile(pushes.pushMs, 99),
    catchUpSeconds,
    reconcileP99: percentile(reconcile, 99),
    historyP99: percentile(history, 99),
    fhirSearchP99: percentile(fhirSearch, 99),
    fhirSearchResults,
    patientResultsP99: percentile(patientResults, 99),
    patientResultsPoints,
    dashboards,
  };
}

export async function growthBenchmarks(): Promise<BenchResult[]> {
  const target = Number(process.env.BENCH_GROWTH_REPORTS ?? 2_000_000);
  const tenantCount = Number(process.env.BENCH_GROWTH_TENANTS ?? 8);
  const now = new Date();
  const perGroup = generateDemoData(now, 1).labReports.length * YEARS;
  const groups = Math.max(1, Math.round(target / perGroup));
  const first = await benchService();
  let service = first.service;
  const { db, tenant: bench, databaseUrl } = first;
  try {
    const tenants = await setUpTenants(service.url!, tenantCount, now);
    console.error(`  growth: ${tenantCount} tenants; registering ${groups * GROUP_PATIENTS} patients`);
    await registerPatients(service.url!, tenants, groups, now);
    await until(
      "patients in the read model",
      async () =>
        Number((await db.query("select count(*) from read.patients where tenant like 'growth%'")).rows[0].count) >=
        groups * GROUP_PATIENTS * 0.99,
      300_000,
    );
    // What reconcile and history are measured on, in both stores: a hundred reports pushed to the
    // first tenant on a day before the generated years, so that the day holds the same reports
    // whatever the store's size (a day of the big store holds more reports, and costs more for that alone).
    const probes = generateDemoData(now, 1)
      .labReports.slice(0, 100)
      .map((report) => ({
        ...report,
        externalId: `PROBE-${report.externalId}`,
        collectedAt: `${PROBE_DAY} 07:00:00`,
        reportedAt: `${PROBE_DAY} 11:00:00`,
      }));
    const pushed = await httpClient(service.url!)("POST", "/open/v1/lab/reports", {
      token: tenants[0]!.client.key,
      body: { reports: probes },
    });
    if (pushed.status !== 200 || pushed.body.data.accepted !== probes.length)
      throw new Error(`the probe reports were not stored: ${JSON.stringify(pushed.body).slice(0, 300)}`);
    const historyIds = probes.map((report) => report.externalId);
    const empty = await measure(service, bench.client, tenants[0]!, "E", now, historyIds);
    await service.stop();

    console.error(`  growth: generating ${groups} groups x ${perGroup} reports`);
    const store = new EventStore(db);
    const generated = performance.now();
    let reports = 0;
    const writerDb = createPool(databaseUrl, { max: 2, applicationName: "bench-growth" });
    try {
      for (let g = 0; g < groups; g++)
        reports += await insertAsPushed(writerDb, store, tenants[g % tenants.length]!, groupReports(g, now));
    } finally {
      await writerDb.end();
    }
    const generateSeconds = (performance.now() - generated) / 1000;
    console.error(
      `  growth: ${reports} reports stored in ${generateSeconds.toFixed(0)} s; rebuilding every projection`,
    );
    const rebuilt = performance.now();
    const rebuildDb = createPool(databaseUrl, {
      max: allProjections.length + 4,
      applicationName: "bench-growth-rebuild",
    });
    const projectionSeconds: Record<string, number> = {};
    try {
      await Promise.all(
        allProjections.map(async (projection) => {
          const outcome = await rebuildProjection(rebuildDb, projection, silentLogger, { batchSize: 5000 });
          if (outcome.status !== "rebuilt")
            throw new Error(`the rebuild of ${projection.name} did not finish: ${JSON.stringify(outcome)}`);
          projectionSeconds[projection.name] = outcome.seconds;
        }),
      );
    } finally {
      await rebuildDb.end();
    }
    const rebuildSeconds = (performance.now() - rebuilt) / 1000;
    console.error(`  growth: rebuilt in ${rebuildSeconds.toFixed(0)} s; measuring the rebuild's floor`);
    // The floor starts on a quiet server, as the rebuild did: not beside the checkpoint of its gigabytes.
    await db.query("checkpoint");
    const floor = await measureRebuildFloor(db);
    // Measured as a store of years stands day to day: its ledger sealed (a fresh service would
    // otherwise seal two million events while the figures are taken), its tables vacuumed and
    // analysed, as autovacuum would have done long since, and its writes checkpointed (a checkpoint
    // of the gigabytes just written, running while the figures are taken, would count as growth).
    console.error(`  growth: floor ${floor.seconds.toFixed(0)} s; sealing the ledger, vacuuming`);
    while ((await sealPending(db)).length > 0);
    await db.query("vacuum (analyze)");
    await db.query("checkpoint");
    const size = Number((await db.query("select pg_database_size(current_database()) as bytes")).rows[0].bytes);
    service = await spawnService({ databaseUrl, env: { LOG_LEVEL: "info" } });
    const big = await measure(service, bench.client, tenants[0]!, "G", now, historyIds);

    const ratio = (name: string, bigValue: number, emptyValue: number, note: string) =>
      result(
        `growth.${name}_ratio`,
        bigValue / emptyValue,
        "ratio",
        undefined,
        `${note}: ${bigValue.toFixed(1)} ms on ${reports} reports against ${emptyValue.toFixed(1)} ms on an empty store; target <= 1.2`,
      );
    const figures: BenchResult[] = [
      result(
        "growth.rebuild_reports_per_s",
        reports / rebuildSeconds,
        "reports/s",
        reports / floor.seconds,
        `every projection rebuilt side by side from the first event over ${reports} lab reports in ` +
          `${rebuildSeconds.toFixed(0)} s (generated in ${generateSeconds.toFixed(0)} s); baseline: the ` +
          "rebuild's floor; target >= 20,000",
      ),
      result(
        "growth.rebuild_floor_ratio",
        floor.seconds / rebuildSeconds,
        "ratio",
        undefined,
        `the rebuild's floor, ${floor.seconds.toFixed(1)} s, against the rebuild's ` +
          `${rebuildSeconds.toFixed(1)} s: the ${floor.itemRows} item rows by one statement from the stored ` +
          `payloads into a bare table ${floor.itemRowsSeconds.toFixed(1)} s (reading the payloads decompressed ` +
          `alone ${floor.decompressSeconds.toFixed(1)} s), then the live item table's indexes ` +
          `${Object.entries(floor.indexSeconds)
            .map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`)
            .join(", ")}; target >= 0.6`,
      ),
      ...Object.entries(projectionSeconds).map(([name, seconds]) =>
        result(
          `growth.rebuild_seconds.${name}`,
          seconds,
          "s",
          undefined,
          "its rebuild's wall time, every projection rebuilt side by side",
        ),
      ),
      ratio(
        "push100_p99",
        big.push100P99,
        empty.push100P99,
        `push of 100 reports p99, 4 senders x ${PUSH_BATCHES}; every projection held them ` +
          `${big.catchUpSeconds.toFixed(1)} s after the last answer (${empty.catchUpSeconds.toFixed(1)} s ` +
          "on the empty store)",
      ),
      ratio(
        "reconcile_p99",
        big.reconcileP99,
        empty.reconcileP99,
        `reconcile p99 of a day of 100 reports, ${CALLS} calls`,
      ),
      ratio("history_p99", big.historyP99, empty.historyP99, `history of a report p99, ${CALLS} calls`),
      result(
        "fhir.search_p99_ms",
        big.fhirSearchP99,
        "ms",
        empty.fhirSearchP99,
        `GET /fhir/r4/Observation of one patient's LOINC 718-7 over 3 years (${big.fhirSearchResults} results; ` +
          `${empty.fhirSearchResults} on the empty store), ${CALLS} calls, on ${reports} lab reports; baseline: ` +
          "the empty store; target <= 50",
      ),
      result(
        "patient.results_p99_ms",
        big.patientResultsP99,
        "ms",
        empty.patientResultsP99,
        `GET /api/patients/{ref}/results of one patient's ${CHART_CODES.join(", ")} over ${YEARS} years ` +
          `(${big.patientResultsPoints} points; ${empty.patientResultsPoints} on the empty store), ${CALLS} ` +
          `calls, on ${reports} lab reports; baseline: the empty store; target <= 30`,
      ),
      result(
        "growth.database_mb",
        size / 1024 / 1024,
        "MB",
        undefined,
        `pg_database_size with ${reports} lab reports in ${tenantCount} tenants over ${YEARS} years`,
      ),
    ];
    for (const id of DEMO_REPORT_IDS) {
      const [b, e] = [big.dashboards[id]!, empty.dashboards[id]!];
      figures.push(
        result(
          `growth.dashboard_p50_ms.${id}.default`,
          b.defaultP50,
          "ms",
          e.defaultP50,
          `data call, the published period (12 months), p99 ${b.defaultP99.toFixed(0)} ms; baseline: the empty store`,
        ),
        result(
          `growth.dashboard_p50_ms.${id}.5y`,
          b.fiveYearsP50,
          "ms",
          e.fiveYearsP50,
          `data call over 5 years, p99 ${b.fiveYearsP99.toFixed(0)} ms; ${b.failedQueries} of ${b.queries} ` +
            "query results on the big store were errors (the statement timeout) in all its calls; baseline: the " +
            "empty store; target <= 300",
        ),
      );
    }
    return figures;
  } finally {
    await db.end();
    await service.stop();
  }
}

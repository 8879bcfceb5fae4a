import pg from "pg";
import { BENCH_ADMIN_TOKEN, publishBenchReport, startBenchService } from "./benchService.ts";
import { httpJson } from "./httpJson.ts";
import { seedLiveReadModels } from "./liveReadModels.ts";
import { median, percentile, result, type BenchResult } from "./results.ts";

/** Lab reports of the store, of 20 items each: 100,000 make the target's 2 M item rows. */
const REPORTS = Number(process.env.BENCH_ACCESS_REPORTS ?? 100_000);
/** Calls of each caller, alternated; after WARMUP_CALLS of each. */
const CALLS = Number(process.env.BENCH_ACCESS_WARD_CALLS ?? 200);
const WARMUP_CALLS = 10;
const WARDS = ["3A", "3B", "5A", "5B"];
/** A patient has a report every fortnight or so: 50 over the store's two years. */
const REPORTS_PER_PATIENT = 50;
const DAYS = 730;
const FIRST_DAY = "2024-04-01";
/** Twenty items a report, as a dialysis panel. */
const ITEMS = [
  "HGB",
  "ALB",
  "KTV",
  "P",
  "CA",
  "K",
  "NA",
  "CL",
  "CO2",
  "CR",
  "UREA_PRE",
  "UREA_POST",
  "URR",
  "IPTH",
  "FER",
  "TSAT",
  "GLU",
  "WBC",
  "PLT",
  "HCT",
];

/**
 * What a ward's dashboard asks of a quarter (the reports' own default period): the monthly count,
 * patients and mean of five items; and its patient list, the fifty patients whose latest
 * haemoglobin is lowest, with their latest albumin, Kt/V and phosphate. Both answers have the same
 * size for every caller (months x items; fifty patients), so the figures compare what the ward
 * scope costs the database, not how many rows are shaped and recorded. `ward`, left empty by the
 * target's two callers, lets a caller of every ward ask for one ward's rows in SQL: the same rows
 * the scope gives a caller of that ward.
 */
const spec = {
  version: 1,
  title: "Ward dashboard",
  params: [
    { name: "period", label: "Period", type: "dateRange", default: ["2026-01-01", "2026-03-31"] },
    { name: "ward", label: "Ward", type: "text" },
  ],
  queries: {
    monthly: {
      sql: `select date_trunc('month', reported_on)::date as month, std_code, count(*) as results,
              count(distinct patient_ref) as patients, avg(std_value) as mean
            from lab_results where std_code in ('HGB', 'ALB', 'KTV', 'P', 'K')
            [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]] [[and ward = {{ward}}]] group by 1, 2 order by 1, 2`,
    },
    patients: {
      sql: `select patient_ref, ward,
                   (array_agg(std_value order by reported_at desc) filter (where std_code = 'HGB'))[1] as hgb,
                   (array_agg(std_value order by reported_at desc) filter (where std_code = 'ALB'))[1] as alb,
                   (array_agg(std_value order by reported_at desc) filter (where std_code = 'KTV'))[1] as ktv,
                   (array_agg(std_value order by reported_at desc) filter (where std_code = 'P'))[1] as p,
                   max(reported_on) as last_report
            from lab_results where std_code in ('HGB', 'ALB', 'KTV', 'P')
            [[and reported_on >= {{period.from}}]] [[and reported_on <= {{period.to}}]] [[and ward = {{ward}}]]
            group by patient_ref, ward order by hgb, patient_ref limit 50`,
    },
  },
  nodes: [
    { id: "m", type: "table", query: "monthly" },
    { id: "p", type: "table", query: "patients" },
  ],
};

/**
 * REPORTS lab reports of 20 items, written straight into the live read models (the data call is
 * measured, not ingestion): REPORTS / 50 patients spread over four wards in turn, each with a
 * report every 730 / 50 days over two years, so that every ward has a quarter of the rows of
 * every item and day.
 */
async function seedStore(databaseUrl: string): Promise<number> {
  const patients = Math.max(WARDS.length, Math.round(REPORTS / REPORTS_PER_PATIENT));
  // A client of its own: the service's pool gives up on a statement after its read timeout, and
  // two million rows take longer than that.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await seedLiveReadModels(
      db as unknown as pg.Pool,
      { count: patients, namePrefix: "Patient ", wards: WARDS },
      (labSchema) =>
        `insert into ${labSchema}.lab_results (tenant, external_id, item_index, patient_ref, item_code, item_name, std_code, std_name, category,
                                             value_num, unit, std_value, std_unit, unit_status, collected_at, reported_at, collected_on, reported_on)
       select 'bench', 'R' || r, i, 'P' || (1 + r % ${patients}), code, code, code, code, 'lab',
              v, 'u', v, 'u', 'standard', day + interval '7 hours', day + interval '11 hours', day::date, day::date
       from generate_series(0, ${REPORTS - 1}) r,
            lateral (select (date '${FIRST_DAY}' + (r::bigint * ${DAYS} / ${REPORTS})::int)::timestamp as day) d,
            lateral unnest(array[${ITEMS.map((code) => `'${code}'`).join(", ")}]) with ordinality as t(code, i),
            lateral (select 80 + ((r * 7 + i * 13) % 60)::double precision / 2 as v) value`,
    );
  } finally {
    await db.end();
  }
  return patients;
}

const time = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

/**
 * `access.report_data_ward_p99_ratio` (issue #51, target <= 1.1): the same report's data call by a
 * caller of one ward against one of every ward (contract G.1: the clinical views keep to the
 * wards bound to the report connection), on a store of four wards and REPORTS x 20 item rows; p99
 * of CALLS each, taken in turn so that both share the machine's moments. The 3A caller reads a
 * quarter of the rows, so beside it `access.report_data_ward_scope_p99_ratio` compares the scope
 * with the every-ward caller's own `ward = '3A'` over the same rows: what binding the wards adds.
 */
export async function accessWardReportBenchmarks(): Promise<BenchResult[]> {
  const service = await startBenchService();
  try {
    const seedStarted = performance.now();
    const patients = await seedStore(service.databaseUrl);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    await publishBenchReport(service, "ward-dashboard", spec);
    const tokenOf = async (name: string, wards: string[] | null) => {
      const made = await httpJson(
        "POST",
        `${service.url}/api/admin/authors`,
        { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
        Buffer.from(JSON.stringify({ name, tenant: "bench", roles: ["viewer"], ...(wards ? { wards } : {}) })),
      );
      if (made.status !== 201) throw new Error(`no author token: ${made.status} ${JSON.stringify(made.answer)}`);
      return made.answer.token as string;
    };
    const wardNurse = await tokenOf("Nurse of 3A", [WARDS[0]!]);
    const headNurse = await tokenOf("Head nurse", null);
    const period = ["2026-01-01", "2026-03-31"];
    /** One data call; answers its rows, query by query. */
    const dataCall = async (token: string, ward?: string): Promise<Record<string, unknown[][]>> => {
      const body = Buffer.from(JSON.stringify({ version: "v1", params: ward ? { period, ward } : { period } }));
      const { status, answer } = await httpJson(
        "POST",
        `${service.url}/api/reports/ward-dashboard/data`,
        { authorization: `Bearer ${token}`, "content-type": "application/json", "x-service-tenant": "bench" },
        body,
      );
      if (status !== 200) throw new Error(`data call answered ${status}: ${JSON.stringify(answer)}`);
      const queries = answer.queries as Record<string, { error?: string; rows: unknown[][] }>;
      const failed = Object.entries(queries).find(([, outcome]) => outcome.error);
      if (failed) throw new Error(`query ${failed[0]} failed: ${failed[1].error}`);
      if (queries.patients!.rows.length !== 50)
        throw new Error(`the patient list has ${queries.patients!.rows.length} rows, not 50`);
      return Object.fromEntries(Object.entries(queries).map(([name, outcome]) => [name, outcome.rows]));
    };
    const callers = {
      /** The target's: a caller of ward 3A … */
      scoped: () => dataCall(wardNurse),
      /** … against a caller of every ward, same report. */
      unscoped: () => dataCall(headNurse),
      /** The same rows as the scoped caller's, by the every-ward caller's own filter in SQL. */
      filtered: () => dataCall(headNurse, WARDS[0]),
    };
    // The figures mean something only if the scope holds: the 3A caller's answer is 3A's alone,
    // row for row what the every-ward caller gets by asking for 3A.
    const wardsIn = (answer: Record<string, unknown[][]>) => new Set(answer.patients!.map((row) => String(row[1])));
    const [scopedAnswer, unscopedAnswer, filteredAnswer] = [
      await callers.scoped(),
      await callers.unscoped(),
      await callers.filtered(),
    ];
    if ([...wardsIn(scopedAnswer)].join() !== WARDS[0])
      throw new Error(`the 3A caller's patient list shows wards ${[...wardsIn(scopedAnswer)].join(", ")}`);
    if (wardsIn(unscopedAnswer).size < 2)
      throw new Error(
        `the every-ward caller's patient list shows wards ${[...wardsIn(unscopedAnswer)].join(", ")} only`,
      );
    if (JSON.stringify(scopedAnswer) !== JSON.stringify(filteredAnswer))
      throw new Error("the 3A caller's answer differs from the every-ward caller's asking for 3A");
    const order = Object.keys(callers) as Array<keyof typeof callers>;
    for (let i = 0; i < WARMUP_CALLS; i++) for (const who of order) await callers[who]();
    const times: Record<keyof typeof callers, number[]> = { scoped: [], unscoped: [], filtered: [] };
    for (let i = 0; i < CALLS; i++) {
      // Who goes first turns too: none always follows another's rebinding of the report pool.
      for (let k = 0; k < order.length; k++) {
        const who = order[(i + k) % order.length]!;
        times[who].push(await time(callers[who]));
      }
    }
    const p99 = (who: keyof typeof callers) => percentile(times[who], 99);
    const ms = (who: keyof typeof callers) => `p99 ${p99(who).toFixed(1)} ms (p50 ${median(times[who]).toFixed(1)} ms)`;
    const how =
      `${CALLS} calls each, the three callers in turn after ${WARMUP_CALLS} rounds of warm-up; store: ${REPORTS} ` +
      `reports x 20 items (${REPORTS * 20} item rows) of ${patients} patients in 4 wards, seeded in ` +
      `${seedSeconds.toFixed(0)} s`;
    return [
      result(
        "access.report_data_ward_p99_ratio",
        p99("scoped") / p99("unscoped"),
        "ratio",
        { value: p99("unscoped"), ratio: p99("scoped") / p99("unscoped") },
        "POST /api/reports/{id}/data of a ward dashboard (a quarter's monthly counts, patients and means of 5 " +
          "items; the 50 patients with the lowest latest haemoglobin, with 3 more latest values) " +
          `by an author token of ward 3A, ${ms("scoped")}, against one of every ward (baseline), ${ms("unscoped")}; ${how}; target <= 1.1`,
      ),
      result(
        "access.report_data_ward_scope_p99_ratio",
        p99("scoped") / p99("filtered"),
        "ratio",
        { value: p99("filtered"), ratio: p99("scoped") / p99("filtered") },
        `what the scope itself costs: the same call by the 3A caller, ${ms("scoped")}, against the every-ward ` +
          "caller asking for ward 3A in the report's SQL (baseline; the same rows, checked), " +
          `${ms("filtered")}; same run`,
      ),
    ];
  } finally {
    await service.stop();
  }
}

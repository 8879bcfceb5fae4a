import { expect } from "chai";
import { reportRunnerUrl } from "../../db/reportRunner.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { DataSources } from "../../queries/reports/dataSources.ts";
import { runReportQuery } from "../../queries/reports/runReportQuery.ts";
import { tableReportSpec } from "../support/reports.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { until, useTestService } from "../support/service.ts";

/**
 * Report SQL (contract A.4, C.5) cannot write, cannot read outside the clinical relations, and is
 * stopped by the statement timeout — over HTTP, as an author would try. The runner's own checks
 * are in test/queries/runReportQuery.test.ts (delete, events, read.*, pg_authid, report_sessions,
 * set_config tenant hijack, pg_sleep at the function level) and the parser's in
 * test/commands/reports/sqlSafety.test.ts.
 */

const TIMEOUT_MS = 300;

/** Statements that write or change the session: each refused when the draft is saved. */
const WRITING = [
  "insert into patients (patient_ref, name) values ('X', 'x')",
  "update lab_results set std_value = 0",
  "delete from lab_results",
  "merge into patients p using lab_reports r on p.patient_ref = r.patient_ref when matched then delete",
  "truncate lab_results",
  "copy lab_results to stdout",
  "copy (select 1) to '/tmp/report-copy'",
  "copy patients from stdin",
  "set role postgres",
  "set session authorization postgres",
  "reset role",
  "set statement_timeout = 0",
  "create table planted (a int)",
  "drop view lab_results",
  "grant select on lab_results to public",
  "lock table lab_results",
  "do $$ begin perform 1; end $$",
  "prepare planted as select 1",
  "notify channel",
  "listen channel",
  "begin",
  "explain analyze delete from lab_results",
  "select 1; delete from lab_results",
  "with gone as (delete from lab_results returning 1) select count(*) from gone",
  "select * into planted from lab_results",
  "select * from lab_results for update",
  "select lo_from_bytea(0, 'planted'::bytea)",
  "select lo_create(0)",
  "select set_config('role', 'postgres', false)",
  "select set_config('DateStyle', 'SQL, DMY', false)",
  "select pg_advisory_lock(4242)",
  "select pg_notify('channel', 'x')",
  "select pg_terminate_backend(pid) from (select 1 as pid) p",
  "select query_to_xml('delete from lab_results', true, false, '')",
  "select x from (select nextval('events_position_seq') as x) s",
];

const specWith = (queries: Record<string, string>) => tableReportSpec("Barriers", queries);

describe("security: what report SQL can do", function () {
  this.timeout(60_000);
  const hub = useTestService({
    projections: allProjections,
    env: { REPORT_QUERY_TIMEOUT_MS: String(TIMEOUT_MS), REPORT_POOL_SIZE: "1" },
  });
  let north: SeededTenant;
  let south: SeededTenant;
  const count = async (sql: string) => (await hub.service.db.query(sql)).rows[0].n as number;

  before(async () => {
    // One report connection, so what one query leaves behind meets the next query, of any tenant.
    north = await seedTenant(hub.service, "north", "NORTH");
    south = await seedTenant(hub.service, "south", "SOUTH");
  });

  /** Saves `queries` as the draft of `reportId` and runs them; the data answer's queries. */
  async function runDraft(tenant: SeededTenant, reportId: string, queries: Record<string, string>) {
    const saved = await tenant.asAuthor("PUT", `/api/reports/${reportId}/draft`, { spec: specWith(queries) });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const data = await tenant.call("POST", `/api/reports/${reportId}/data`, { body: { version: "draft" } });
    expect(data.status).to.equal(200);
    return data.body.queries as Record<string, { rows?: unknown[][]; error?: string }>;
  }

  /**
   * Stores `queries` as the draft of `reportId` as a save-time check that failed would (appended to
   * the event store directly), then runs it: the run-time barriers on their own.
   */
  async function runPastTheSaveCheck(
    tenant: SeededTenant,
    tenantName: string,
    reportId: string,
    queries: Record<string, string>,
  ) {
    await runDraft(tenant, reportId, { ok: "select 1 as n" });
    const saved = await hub.service.db.query(
      "select data from events where tenant = $1 and stream_id = $2 and type = 'ReportDraftSaved' order by position desc limit 1",
      [tenantName, `report:${reportId}`],
    );
    const draft = saved.rows[0].data;
    draft.spec = specWith(queries);
    await hub.service.eventStore.append({
      tenant: tenantName,
      streamId: `report:${reportId}`,
      expectedVersion: "any",
      events: [{ type: "ReportDraftSaved", data: draft }],
      metadata: { actor: "a save check that failed" },
    });
    const names = Object.keys(queries).sort().join();
    await until(
      async () =>
        Object.keys((await tenant.call("GET", `/api/reports/${reportId}/view?version=draft`)).body.spec?.queries ?? {})
          .sort()
          .join() === names,
      10_000,
    );
    const data = await tenant.call("POST", `/api/reports/${reportId}/data`, { body: { version: "draft" } });
    expect(data.status).to.equal(200);
    return data.body.queries as Record<string, { rows?: unknown[][]; error?: string }>;
  }

  it("refuses at save time every statement that writes or changes the session, naming the query and not echoing it", async () => {
    const accepted: string[] = [];
    for (const sql of WRITING) {
      for (const where of ["queries", "drills"] as const) {
        const spec =
          where === "queries"
            ? specWith({ bad: sql })
            : {
                ...specWith({ ok: "select 1 as n" }),
                drills: { more: { title: "More", args: [], queries: { bad: { sql } } } },
              };
        const answer = await north.asAuthor("PUT", "/api/reports/writer/draft", { spec });
        if (answer.status !== 400) accepted.push(`${where}: ${sql}`);
        else {
          expect(answer.body.error).to.include(
            where === "queries" ? "spec.queries.bad.sql" : "spec.drills.more.queries.bad.sql",
          );
          expect(answer.body.error, "the sentence does not quote the SQL").not.to.include(sql);
        }
      }
    }
    expect(accepted, "statements saved although they write").to.deep.equal([]);
    expect((await north.call("GET", "/api/reports/writer/view?version=draft")).status).to.equal(404);
  });

  it("stops them at run time too when one gets past the save check: nothing written, nothing left for the next query", async () => {
    // A draft as a save-time check that failed would store it: appended to the event store directly.
    await runDraft(north, "bypass", { ok: "select 1 as n" });
    const saved = await hub.service.db.query(
      "select data from events where tenant = 'north' and stream_id = 'report:bypass' and type = 'ReportDraftSaved' order by position desc limit 1",
    );
    const draft = saved.rows[0].data;
    draft.spec = specWith(Object.fromEntries(WRITING.map((sql, i) => [`q${i}`, sql])));
    await hub.service.eventStore.append({
      tenant: "north",
      streamId: "report:bypass",
      expectedVersion: "any",
      events: [{ type: "ReportDraftSaved", data: draft }],
      metadata: { actor: "a save check that failed" },
    });
    await until(
      async () =>
        Object.keys((await north.call("GET", "/api/reports/bypass/view?version=draft")).body.spec?.queries ?? {})
          .length === WRITING.length,
      10_000,
    );

    // Counted once every projection has applied every event: rows still arriving are no write.
    await until(
      async () =>
        (
          await hub.service.db.query(
            "select 1 from projection_generations g where g.state = 'live' and exists (select 1 from events e " +
              "where (e.transaction_id, e.position) > (g.last_tx, g.last_position))",
          )
        ).rowCount === 0,
      60_000,
    );
    const before = {
      events: await count("select count(*)::int as n from events"),
      results: await count("select count(*)::int as n from read.lab_results"),
      patients: await count("select count(*)::int as n from read.patients"),
    };
    const data = await north.call("POST", "/api/reports/bypass/data", { body: { version: "draft" } });
    expect(data.status).to.equal(200);
    const outcomes = WRITING.map((sql, i) => [sql, data.body.queries[`q${i}`]] as const);
    // What writes or takes another role fails; the rest (reset role, set, do, prepare, listen, notify,
    // lo_create, set_config of a setting, an advisory lock) may run, but must leave nothing behind.
    const mustFail = new RegExp(
      String.raw`^(insert|update|delete|merge|truncate|copy|set role|set session|create|drop|grant|lock|explain|` +
        String.raw`select 1;|with gone|select \* into|select \* from lab_results for|select set_config\('role'|` +
        String.raw`select query_to_xml)`,
    );
    for (const [sql, outcome] of outcomes.filter(([sql]) => mustFail.test(sql)))
      expect(outcome, sql).to.have.property("error").that.is.a("string");
    expect({
      events: await count("select count(*)::int as n from events"),
      results: await count("select count(*)::int as n from read.lab_results"),
      patients: await count("select count(*)::int as n from read.patients"),
    }).to.deep.equal(before);
    expect(await count("select count(*)::int as n from pg_largeobject_metadata"), "no large object was kept").to.equal(
      0,
    );
    expect(await count("select count(*)::int as n from pg_tables where tablename = 'planted'")).to.equal(0);
    const locks = await count(
      "select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid) where l.locktype = 'advisory' and a.usename = 'dh_report_runner'",
    );
    expect(locks, "no advisory lock outlives its report query").to.equal(0);

    // The same (only) report connection now serves south: with the settings it had, not north's.
    // (Report SQL may no longer read pg_prepared_statements: a prepared statement left behind shows
    // as "already exists" when the same name is prepared again.)
    const next = await runPastTheSaveCheck(south, "south", "settings", {
      s:
        "select current_setting('DateStyle') as style, current_setting('role') as role, " +
        "current_setting('transaction_read_only') as ro, date '2026-03-01' as d",
      p: "prepare planted as select 1",
    });
    expect(next.s!.rows).to.deep.equal([["ISO, MDY", "none", "on", "2026-03-01"]]);
    expect(next.p, "no prepared statement left by north").to.not.have.property("error");
  });

  it("reads nothing outside the clinical relations, and only its own tenant's rows", async () => {
    const outside = {
      events: "select count(*) as n from events",
      publicEvents: "select count(*) as n from public.events",
      readModel: "select count(*) as n from read.patients",
      generation: "select count(*) as n from proj_lab_reports_g1.lab_reports",
      passwords: "select count(*) as n from pg_authid",
      sessions: "select count(*) as n from report_sessions",
      jobs: "select count(*) as n from pgboss.job",
      migrations: "select count(*) as n from schema_migrations",
    };
    for (const [name, sql] of Object.entries(outside)) {
      const saved = await south.asAuthor("PUT", "/api/reports/outside/draft", { spec: specWith({ [name]: sql }) });
      expect(saved.status, name).to.equal(400);
      expect(saved.body.error, name).to.match(
        /which is not a relation of the clinical data source: read patients, lab_reports/,
      );
    }
    // A version saved before the rule fails the same way when run (E.5)…
    const refused = await runPastTheSaveCheck(south, "south", "outside", outside);
    for (const name of Object.keys(outside))
      expect(refused[name], name)
        .to.have.property("error")
        .that.matches(/which is not a relation of the clinical data source/);
    // …and the database refuses it too, were the check ever passed: the report role has no rights there.
    const sources = new DataSources({
      serviceDb: hub.service.db,
      clinicalUrl: reportRunnerUrl(hub.service.databaseUrl),
      others: {},
      poolSize: 1,
    });
    try {
      for (const [name, sql] of Object.entries(outside)) {
        const outcome = await runReportQuery(
          sources.get("clinical")!,
          { text: sql, values: [] },
          { tenant: "south", wards: null, timeoutMs: 5000, timeZone: "UTC" },
        );
        expect(outcome, name)
          .to.have.property("error")
          .that.matches(/outside its data source|does not exist/);
      }
    } finally {
      await sources.end();
    }

    const own = await runDraft(south, "own-rows", {
      labs: "select external_id from lab_reports order by 1",
      results: "select distinct external_id from lab_results order by 1",
      exams: "select external_id from exam_reports order by 1",
      patients: "select patient_ref from patients order by 1",
    });
    for (const name of ["labs", "results", "exams"]) {
      const ids = own[name]!.rows!.map((row) => String(row[0]));
      expect(ids.length, name).to.be.greaterThan(0);
      expect(
        ids.filter((id) => !id.startsWith("SOUTH-")),
        name,
      ).to.deep.equal([]);
    }
    expect(own.patients!.rows).to.deep.equal([["P001"]]);
  });

  it("keeps each tenant to its rows while tenants take turns on one report connection", async () => {
    const calls = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? north : south));
    const answers = await Promise.all(
      calls.map((tenant) => tenant.call("POST", "/api/reports/every-param/data", { body: { version: "v1" } })),
    );
    answers.forEach((answer, i) => {
      const ids = answer.body.queries.results.rows.map((row: unknown[]) => String(row[0]));
      const prefix = calls[i] === north ? "NORTH-" : "SOUTH-";
      expect(ids.length).to.be.greaterThan(0);
      expect(
        ids.every((id: string) => id.startsWith(prefix)),
        `call ${i}: ${ids}`,
      ).to.equal(true);
    });
  });

  it("cannot list sessions, relations or roles of the database, nor cancel another tenant's query: refused at save", async () => {
    const looking = {
      sessions: "select pid, query from pg_stat_activity",
      sessionsByFunction: "select pid from pg_stat_get_activity(null)",
      locks: "select pid from pg_locks",
      relations: "select relname from pg_class",
      schemas: "select nspname from pg_namespace",
      tables: "select table_schema, table_name from information_schema.tables",
      roles: "select rolname from pg_roles",
      lookup: "select to_regclass('public.events') is not null as found",
      cast: "select 'public.events'::regclass::oid as oid",
      cancel: "select pg_cancel_backend(pid) from (select 0 as pid) p",
      terminate: "select pg_catalog.pg_terminate_backend(pid) from (select 0 as pid) p",
    };
    // north's query runs while south tries.
    const northRunning = runDraft(north, "long-running", {
      slow: "select count(*) as n from generate_series(1, 100000) g",
    });
    for (const [name, sql] of Object.entries(looking)) {
      const saved = await south.asAuthor("PUT", "/api/reports/looking/draft", { spec: specWith({ [name]: sql }) });
      expect(saved.status, name).to.equal(400);
      expect(saved.body.error, name).to.match(/^spec\.queries\.\w+\.sql: The query (reads|calls|casts)/);
      expect(saved.body.error, "the sentence does not quote the SQL").not.to.include(sql);
    }
    expect((await south.call("GET", "/api/reports/looking/view?version=draft")).status).to.equal(404);
    expect((await northRunning).slow, "north's query ran to its end").to.deep.include({ rows: [[100000]] });
  });

  it("cannot read another tenant's report SQL while it runs (pg_stat_activity)", async () => {
    // Both tenants' report connections are the same database role; two of them, side by side.
    const sources = new DataSources({
      serviceDb: hub.service.db,
      clinicalUrl: reportRunnerUrl(hub.service.databaseUrl),
      others: {},
      poolSize: 2,
    });
    try {
      const run = (tenant: string, text: string) =>
        runReportQuery(
          sources.get("clinical")!,
          { text, values: [] },
          { tenant, wards: null, timeoutMs: 5000, timeZone: "UTC" },
        );
      const northRunning = run("north", "select pg_sleep(1), 'north ward literal' as w");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const spy = await run(
        "south",
        "select coalesce(string_agg(query, ' | '), '') as q from pg_stat_activity where pid <> pg_backend_pid()",
      );
      await northRunning;
      expect(spy).not.to.have.property("error");
      expect(JSON.stringify(spy)).not.to.include("north ward literal");
    } finally {
      await sources.end();
    }
  });

  it(`stops a CPU-bound query at REPORT_QUERY_TIMEOUT_MS (${TIMEOUT_MS} ms), answering the other queries`, async () => {
    const started = Date.now();
    const queries = await runDraft(south, "slow", {
      burn: "select count(*) as n from generate_series(1, 500000000) g",
      fine: "select count(*) as n from lab_reports",
    });
    expect(Date.now() - started).to.be.lessThan(4000);
    expect(queries.burn!.error).to.match(/longer than/);
    expect(queries.fine!.rows).to.deep.equal([
      [await count("select count(*)::int as n from read.lab_reports where tenant = 'south'")],
    ]);
  });

  it("fails, in its own place and with the save's sentence, a version saved before E.5 that sleeps, takes a transaction id or reads the server", async () => {
    const refusedAtSave = await south.asAuthor("PUT", "/api/reports/stalling/draft", {
      spec: specWith({ stall: "select txid_current(), pg_sleep(9)" }),
    });
    expect(refusedAtSave.status).to.equal(400);
    expect(refusedAtSave.body.error).to.equal(
      "spec.queries.stall.sql: The query calls txid_current(), which takes a transaction id, which holds back " +
        "every reader of new results until the report ends, but a query may only read: remove it.",
    );
    const started = Date.now();
    const queries = await runPastTheSaveCheck(south, "south", "stalling", {
      stall: "select txid_current(), pg_sleep(9)",
      server: "select version() as v, count(*) as n from lab_reports",
      xml: "select table_to_xml('pg_roles', true, false, '') as x",
      fine: "select count(*) as n from lab_reports",
    });
    expect(Date.now() - started, "nothing slept").to.be.lessThan(5000);
    expect(queries.stall).to.deep.equal({
      error: refusedAtSave.body.error.replace("spec.queries.stall.sql: ", ""),
      code: "query-refused",
    });
    expect(queries.server!.error).to.match(/^The query calls version, which looks beyond the clinical data source/);
    expect(queries.xml!.error).to.match(/^The query calls table_to_xml, which reads relations by name/);
    expect(queries.fine!.rows).to.deep.equal([
      [await count("select count(*)::int as n from read.lab_reports where tenant = 'south'")],
    ]);
  });
});

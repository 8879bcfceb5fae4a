import { expect } from "chai";
import pg from "pg";
import { createPool } from "../../db/pool.ts";
import { prepareReportRunner, reportRunnerUrl } from "../../db/reportRunner.ts";
import { DataSources } from "../../queries/reports/dataSources.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import { configSchema } from "../../src/app/config.ts";
import { createTestDatabase, testServerUrl } from "../support/database.ts";
import { ingestionTenant, useIngestionService } from "../support/ingestion.ts";
import { BURNING_QUERY, runDraftData, saveTableDraft, tableReportSpec, type QueryAnswers } from "../support/reports.ts";
import { startTestService, until } from "../support/service.ts";

/*
 * Contract E.5: "The report role has a connection limit, temp_file_limit and work_mem set", and a
 * report query that cannot get a connection fails in its own place instead of waiting for ever.
 * The role belongs to the whole PostgreSQL server (its connection limit counts there); its other
 * settings are made for the service's database only, so each suite's database has its own.
 */

const ROLE = "dh_report_runner";

/** The report role's settings made for the database of `db` (pg_db_role_setting), by name. */
async function roleSettingsIn(db: pg.Pool): Promise<Record<string, string>> {
  const { rows } = await db.query(
    `select s.setconfig from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
     where r.rolname = $1 and s.setdatabase = (select oid from pg_database where datname = current_database())`,
    [ROLE],
  );
  const settings: string[] = rows[0]?.setconfig ?? [];
  return Object.fromEntries(settings.map((setting) => setting.split("=", 2) as [string, string]));
}

async function connectionLimit(db: pg.Pool | pg.Client): Promise<number> {
  return (await db.query("select rolconnlimit from pg_roles where rolname = $1", [ROLE])).rows[0].rolconnlimit;
}

/** Sets the report role's connection limit as the test server's superuser; the limit it had. */
async function setConnectionLimit(limit: number): Promise<number> {
  const admin = new pg.Client({ connectionString: await testServerUrl() });
  await admin.connect();
  try {
    const before = await connectionLimit(admin);
    await admin.query(`alter role ${ROLE} connection limit ${limit}`);
    return before;
  } finally {
    await admin.end();
  }
}

describe("the report role's limits (E.5)", function () {
  this.timeout(60_000);
  // The role is the server's: an earlier run may have set its limit (the service must set it), and
  // other runs on the same server find it as it was.
  let limitBefore = -1;
  before(async () => {
    limitBefore = await setConnectionLimit(-1);
  });
  after(() => setConnectionLimit(limitBefore));

  describe("with REPORT_WORK_MEM 64kB and REPORT_TEMP_FILE_LIMIT 1MB", () => {
    const hub = useIngestionService({ env: { REPORT_WORK_MEM: "64kB", REPORT_TEMP_FILE_LIMIT: "1MB" } });

    it("has the connection limit, work_mem and temp_file_limit set on the role, and a report connection has them", async () => {
      expect(await connectionLimit(hub.service.db), "REPORT_ROLE_CONNECTION_LIMIT's default").to.equal(
        configSchema.parse({}).REPORT_ROLE_CONNECTION_LIMIT,
      );
      expect(await roleSettingsIn(hub.service.db)).to.deep.include({ work_mem: "64kB", temp_file_limit: "1MB" });
      const report = new pg.Client({ connectionString: reportRunnerUrl(hub.service.databaseUrl) });
      await report.connect();
      try {
        const shown = await report.query(
          "select current_setting('work_mem') as work_mem, current_setting('temp_file_limit') as temp_file_limit",
        );
        expect(shown.rows[0]).to.deep.equal({ work_mem: "64kB", temp_file_limit: "1MB" });
        // The role cannot lift the limit for itself: temp_file_limit is a superuser's setting.
        const lifted = await report.query("select set_config('temp_file_limit', '-1', true)").then(
          () => "lifted",
          (error: Error) => error.message,
        );
        expect(lifted).to.match(/permission denied/);
      } finally {
        await report.end();
      }
    });

    it("fails a query that spills more than temp_file_limit in its own place, the other query answering", async () => {
      await saveTableDraft(hub.tenant, "spill", {
        sorted: "select count(*) as n from (select g from generate_series(1, 500000) g order by md5(g::text)) s",
        fine: "select 1 as n",
      });
      const queries = await runDraftData(hub.tenant, "spill");
      expect(queries.sorted).to.deep.equal({
        error: "temporary file size exceeds temp_file_limit (1024kB).",
        code: "query-temp-limit",
      });
      expect(queries.fine).to.deep.include({ rows: [[1]] });
    });

    it("ends a report transaction left idle longer than its statement may run", async () => {
      const sources = new DataSources({
        serviceDb: hub.service.db,
        clinicalUrl: reportRunnerUrl(hub.service.databaseUrl),
        others: {},
        poolSize: 1,
      });
      try {
        const source = sources.get("clinical")!;
        const client = await source.pool.connect();
        try {
          const pid = (client as pg.PoolClient & { processID: number }).processID;
          await client.query(source.begin(300, "UTC").join("; "));
          // The server ends the session: the connection goes from the server's list of sessions.
          await until(
            async () =>
              (await hub.service.db.query("select count(*)::int as n from pg_stat_activity where pid = $1", [pid]))
                .rows[0].n === 0,
            3000,
          );
        } finally {
          client.release(true);
        }
      } finally {
        await sources.end();
      }
    });
  });

  describe("with REPORT_POOL_SIZE 1 and REPORT_QUEUE_WAIT_MS 500", () => {
    const hub = useIngestionService({
      env: { REPORT_POOL_SIZE: "1", REPORT_QUEUE_WAIT_MS: "500", REPORT_QUERY_TIMEOUT_MS: "5000" },
    });

    it("fails a query that gets no connection within REPORT_QUEUE_WAIT_MS in its own place, with a sentence", async () => {
      await saveTableDraft(hub.tenant, "burning", { burn: BURNING_QUERY });
      await saveTableDraft(hub.tenant, "small", { one: "select 1 as n" });
      // The one report connection burns for the whole statement timeout.
      const burning = runDraftData(hub.tenant, "burning");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      const small = await runDraftData(hub.tenant, "small");
      const waited = Date.now() - started;
      expect(small.one).to.deep.equal({
        error: "Every report connection of the data source clinical stayed in use; try again shortly.",
        code: "source-busy",
      });
      expect(waited, "it waited for a connection about REPORT_QUEUE_WAIT_MS, not for the burning query").to.be.within(
        400,
        3000,
      );
      expect((await burning).burn!.error).to.match(/longer than 5 s/);
    });
  });

  it("is prepared by the services of two databases of one server at the same instant, neither failing to start", async () => {
    const urls = [await createTestDatabase(), await createTestDatabase()];
    const pools = urls.map((url) => createPool(url, { max: 1 }));
    try {
      // Without the retry some round of the twenty failed with "tuple concurrently updated" (as a service of the suite once did at its start).
      for (let round = 0; round < 20; round++)
        await Promise.all(pools.map((pool, i) => prepareReportRunner(pool, urls[i]!)));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  describe("on a configured data source (DATASOURCE_<NAME>_URL), with REPORT_WORK_MEM 64kB and REPORT_TEMP_FILE_LIMIT 1MB", () => {
    const limits = { REPORT_WORK_MEM: "64kB", REPORT_TEMP_FILE_LIMIT: "1MB" };
    const user = `dh_test_quality_reader_${process.pid}`;
    let qualityUrl: string;
    let readerUrl: string;
    let admin: pg.Pool;

    before(async () => {
      qualityUrl = await createTestDatabase(false);
      admin = createPool(qualityUrl, { max: 1 });
      await admin.query("create table audits (ward text, score numeric); insert into audits values ('A', 92.5)");
      // A user with read rights only, as operations.md asks for a data source.
      await admin.query(`create role ${user} login`);
      await admin.query(`grant select on audits to ${user}`);
      const url = new URL(qualityUrl);
      url.username = user;
      url.password = "";
      readerUrl = url.toString();
    });
    after(async () => {
      await admin?.query(`drop owned by ${user}`).catch(() => {});
      await admin?.query(`drop role if exists ${user}`);
      await admin?.end();
    });

    /** The data answer of a draft of `queries` on the quality source, in a service whose source logs in by `sourceUrl`. */
    async function onQualitySource(sourceUrl: string, queries: Record<string, string>): Promise<QueryAnswers> {
      const service = await startTestService({
        projections: allProjections,
        env: { ...limits, DATASOURCE_QUALITY_URL: sourceUrl },
      });
      try {
        const tenant = await ingestionTenant(service, "h1");
        const saved = await tenant.call("PUT", "/api/reports/quality/draft", {
          token: tenant.authorToken,
          body: { datasource: "quality", spec: tableReportSpec("quality", queries) },
        });
        expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
        return await runDraftData(tenant, "quality");
      } finally {
        await service.stop();
      }
    }

    it("holds its sessions to the report role's work_mem and temp_file_limit: a query that spills more fails in its own place", async () => {
      const queries = await onQualitySource(qualityUrl, {
        settings:
          "select current_setting('work_mem') as work_mem, current_setting('temp_file_limit') as " +
          "temp_file_limit, current_setting('track_activities') as tracked",
        sorted: "select count(*) as n from (select g from generate_series(1, 500000) g order by md5(g::text)) s",
        fine: "select ward from audits",
      });
      expect(queries.settings).to.deep.include({ rows: [["64kB", "1MB", "off"]] });
      expect(queries.sorted).to.deep.equal({
        error: "temporary file size exceeds temp_file_limit (1024kB).",
        code: "query-temp-limit",
      });
      expect(queries.fine).to.deep.include({ rows: [["A"]] });
    });

    it("still answers as a user who may not set temp_file_limit, with work_mem held, and names what does not hold", async () => {
      const queries = await onQualitySource(readerUrl, {
        settings: "select current_setting('work_mem') as work_mem",
        fine: "select ward, score from audits",
      });
      expect(queries.settings).to.deep.include({ rows: [["64kB"]] });
      expect(queries.fine).to.deep.include({ rows: [["A", 92.5]] });
      const sources = new DataSources({
        serviceDb: admin,
        clinicalUrl: qualityUrl,
        others: { quality: readerUrl },
        poolSize: 1,
        limits: { workMem: "64kB", tempFileLimit: "1MB" },
      });
      try {
        expect(await sources.unsetLimits()).to.deep.equal([
          { source: "quality", setting: "temp_file_limit", code: "42501" },
          { source: "quality", setting: "track_activities", code: "42501" },
        ]);
      } finally {
        await sources.end();
      }
    });
  });

  describe("when the service's database user is no superuser", () => {
    const user = `dh_test_report_limits_${process.pid}`;
    let admin: pg.Pool;
    let asUser: pg.Pool;
    let databaseUrl: string;

    before(async () => {
      databaseUrl = await createTestDatabase();
      admin = createPool(databaseUrl, { max: 1 });
      // CREATEROLE lets it set the report role's password, as a service's user must; from
      // PostgreSQL 16 it needs the ADMIN option on the role too.
      await admin.query(`create role ${user} login createrole`);
      await admin.query(`grant ${ROLE} to ${user} with admin option`);
      const url = new URL(databaseUrl);
      url.username = user;
      url.password = "";
      asUser = createPool(url.toString(), { max: 1 });
    });

    after(async () => {
      await asUser?.end();
      await admin?.query(`drop role if exists ${user}`);
      await admin?.end();
    });

    it("makes what it may, leaves the superuser's settings as they are and says which", async () => {
      const limits = {
        connectionLimit: configSchema.parse({}).REPORT_ROLE_CONNECTION_LIMIT,
        workMem: "2MB",
        tempFileLimit: "3MB",
      };
      await setConnectionLimit(-1);
      // The password is derived from the URL given, the same every test service derives.
      const unset = await prepareReportRunner(asUser, databaseUrl, limits);
      expect(unset).to.deep.equal([
        { setting: "track_activities", code: "42501" },
        { setting: "temp_file_limit", code: "42501" },
      ]);
      expect(await connectionLimit(admin)).to.equal(limits.connectionLimit);
      const settings = await roleSettingsIn(admin);
      expect(settings).to.deep.include({ work_mem: "2MB" });
      expect(settings).not.to.have.property("temp_file_limit");
    });
  });
});

import { spawn } from "node:child_process";
import { expect } from "chai";
import type { RunningService } from "../../src/app/service.ts";
import { createTestDatabase } from "../support/database.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { sample, scrape } from "../support/metrics.ts";
import { recordingProjection } from "../support/projections.ts";
import { startTestService, until, useTestService } from "../support/service.ts";
import type { ProjectionsReport } from "../support/storedReports.ts";
import { SERVER_ENTRY } from "../../src/buildServer.ts";

/*
 * The runtime's side is tested in test/projections/runtime.test.ts; this is what an operator sees:
 * the error in GET /api/admin/projections, and `projections retry` from the command line.
 */

function retryFromCommandLine(databaseUrl: string, name: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [SERVER_ENTRY, "projections", "retry", name], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout }));
  });
}

describe("a tenant's event a projection cannot apply, seen by an operator", function () {
  this.timeout(60_000);
  let service: RunningService;
  let databaseUrl: string;
  let poisoned = true;
  const fragile = recordingProjection(
    "fragile",
    ["Counted"],
    (event) => poisoned && event.tenant === "t1" && (event.data as { n: number }).n === 3,
  );

  before(async () => {
    databaseUrl = await createTestDatabase(false);
    service = await startTestService({ databaseUrl, projections: [fragile], safetyNetMs: 200 });
  });
  after(() => service.stop());

  const status = async () =>
    (await httpClient(service.url!)<ProjectionsReport>("GET", "/api/admin/projections", { token: ADMIN })).body;
  const named = (report: ProjectionsReport, name: string) => report.projections.find((p) => p.name === name)!;
  const append = (tenant: string, n: number) =>
    service.eventStore.append({
      tenant,
      streamId: "s",
      expectedVersion: n - 1,
      events: [{ type: "Counted", data: { n } }],
      metadata: { actor: "test" },
    });
  const seen = async (tenant: string) =>
    (await service.db.query("select n from read.fragile_seen where tenant = $1 order by n", [tenant])).rows.map(
      (row) => row.n,
    );

  it("holds back that tenant only, names it with a fixed sentence, and catches it up after `projections retry`", async () => {
    for (let n = 1; n <= 5; n++) {
      await append("t1", n);
      await append("t2", n);
    }
    const held = await until(async () => {
      const report = await status();
      return named(report, "fragile").heldTenants.length > 0 && named(report, "fragile").position === report.head
        ? report
        : null;
    }, 10_000);
    const third = Number(
      (await service.db.query("select position from events where tenant = 't1' and data->>'n' = '3'")).rows[0].position,
    );
    const [heldTenant] = named(held, "fragile").heldTenants;
    expect(named(held, "fragile").error, "the projection goes on for everyone else").to.equal(null);
    expect(heldTenant).to.deep.include({
      tenant: "t1",
      position: third,
      tries: 1,
      error: { code: "PROJECTION_ERROR", message: "the projection could not apply the event" },
    });
    expect(await seen("t1")).to.deep.equal([1, 2]);
    expect(await seen("t2")).to.deep.equal([1, 2, 3, 4, 5]);

    // Another tenant's new events keep being applied; the held-back one's wait.
    await append("t2", 6);
    await append("t1", 6);
    await until(async () => (await seen("t2")).length === 6, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await seen("t1")).to.deep.equal([1, 2]);

    poisoned = false; // the fix is deployed
    const retried = await retryFromCommandLine(databaseUrl, "fragile");
    expect(retried).to.deep.equal({ code: 0, stdout: "fragile will retry\n" });
    await until(async () => named(await status(), "fragile").heldTenants.length === 0, 10_000);
    expect(await seen("t1")).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });
});

describe("a tenant's event the database refuses for good, seen by /readyz, /metrics and an administrator", function () {
  this.timeout(60_000);
  const METRICS_TOKEN = "metrics-token-0123456789";
  let service: RunningService;
  let databaseUrl: string;
  const refused = recordingProjection("refused");

  before(async () => {
    databaseUrl = await createTestDatabase(false);
    service = await startTestService({ databaseUrl, projections: [refused], safetyNetMs: 200, env: { METRICS_TOKEN } });
    await until(
      async () =>
        (await service.db.query("select 1 from projection_generations where name = 'refused' and state = 'live'"))
          .rowCount === 1,
      30_000,
    );
  });
  after(() => service.stop());

  const call = () => httpClient(service.url!);
  const status = async () => (await call()<ProjectionsReport>("GET", "/api/admin/projections", { token: ADMIN })).body;
  const named = (report: ProjectionsReport, name: string) => report.projections.find((p) => p.name === name)!;
  const append = (tenant: string, n: number) =>
    service.eventStore.append({
      tenant,
      streamId: "s",
      expectedVersion: n - 1,
      events: [{ type: "Counted", data: { n } }],
      metadata: { actor: "test" },
    });
  const seen = async (tenant: string) =>
    (await service.db.query("select n from read.refused_seen where tenant = $1 order by n", [tenant])).rows.map(
      (row) => row.n,
    );
  const metrics = () => scrape(`${service.url}/metrics`, METRICS_TOKEN);
  const allChecksPass = { database: true, migrations: true, workers: true, projections: true };

  it("answers 200 degraded naming it with a safe error, gauges it, serves every other tenant, and is ready again after `projections retry`", async () => {
    expect(await call()("GET", "/readyz")).to.deep.include({
      status: 200,
      body: { status: "ready", checks: allChecksPass, stoppedProjections: [], heldBackTenants: [] },
    });

    // A trigger refuses tenant t1's event n = 2 with P0001: not a fault of the database, so no
    // retry helps. Its message holds SQL text and a value, which no answer and no log line shows.
    await service.db.query(`
      create function refuse() returns trigger language plpgsql as $$
      begin raise exception 'refused: select id_card from patients where n = %', new.n using errcode = 'P0001'; end $$;
      create trigger refuse_two before insert on proj_refused_g1.refused_seen for each row when (new.n = 2 and new.tenant = 't1') execute function refuse()`);
    for (let n = 1; n <= 3; n++) {
      await append("t1", n);
      await append("t2", n);
    }
    const held = await until(async () => {
      const report = await status();
      return named(report, "refused").heldTenants.length > 0 && named(report, "refused").position === report.head
        ? report
        : null;
    }, 10_000);
    const second = Number(
      (await service.db.query("select position from events where tenant = 't1' and data->>'n' = '2'")).rows[0].position,
    );
    const heldTenant = named(held, "refused").heldTenants[0]!;
    expect(heldTenant, "the administrator sees the tenant, the event and the SQLSTATE").to.deep.include({
      tenant: "t1",
      position: second,
      error: { code: "P0001", message: "raised by a database function or trigger" },
    });
    expect(JSON.stringify(held), "no SQL text, no value of the event, even for the administrator").to.not.match(
      /select|id_card|refused:/,
    );

    const ready = await call()("GET", "/readyz");
    expect(ready.status, "it serves on").to.equal(200);
    expect(ready.body).to.deep.equal({
      status: "degraded",
      checks: { ...allChecksPass, projections: false },
      stoppedProjections: [],
      heldBackTenants: [
        {
          name: "refused",
          position: second,
          since: heldTenant.since,
          error: { code: "P0001", message: "raised by a database function or trigger" },
        },
      ],
    });
    expect(JSON.stringify(ready.body), "no SQL text, no value of the event, no tenant").to.not.match(
      /select|id_card|refused:|t1/,
    );
    const scraped = await metrics();
    expect(sample(scraped, "dialysis_hub_projection_held_tenants", { projection: "refused", state: "live" })).to.equal(
      1,
    );
    expect(
      sample(scraped, "dialysis_hub_projection_tenant_held", {
        projection: "refused",
        state: "live",
        tenant: "t1",
        code: "P0001",
      }),
    ).to.equal(1);
    expect(sample(scraped, "dialysis_hub_projection_failed", { projection: "refused", state: "live" })).to.equal(0);

    // Every other tenant keeps being served.
    await append("t2", 4);
    await until(async () => (await seen("t2")).length === 4, 10_000);
    expect(await seen("t1")).to.deep.equal([1]);

    await service.db.query("drop trigger refuse_two on proj_refused_g1.refused_seen"); // the fix is deployed
    expect(await retryFromCommandLine(databaseUrl, "refused")).to.deep.equal({
      code: 0,
      stdout: "refused will retry\n",
    });
    await until(async () => named(await status(), "refused").heldTenants.length === 0, 10_000);
    expect(await seen("t1")).to.deep.equal([1, 2, 3]);
    expect(await call()("GET", "/readyz")).to.deep.include({
      status: 200,
      body: { status: "ready", checks: allChecksPass, stoppedProjections: [], heldBackTenants: [] },
    });
    expect(
      sample(await metrics(), "dialysis_hub_projection_held_tenants", { projection: "refused", state: "live" }),
    ).to.equal(0);
  });
});

describe("a projection meeting a database fault while it applies (disk full, then a deadlock)", function () {
  this.timeout(60_000);
  const flaky = recordingProjection("flaky");
  const hub = useTestService({ projections: [flaky], safetyNetMs: 200 });

  before(async () => {
    await until(
      async () =>
        (await hub.service.db.query("select 1 from projection_generations where name = 'flaky' and state = 'live'"))
          .rowCount === 1,
      30_000,
    );
    // The fault, injected for real: a trigger on the read model's table raises the SQLSTATE the switch names.
    await hub.service.db.query(`
      create table fault_switch (sqlstate text);
      insert into fault_switch values (null);
      create function raise_fault() returns trigger language plpgsql as $$
      declare code text := (select sqlstate from fault_switch);
      begin
        if code is not null then raise exception 'injected fault %', code using errcode = code; end if;
        return new;
      end $$;
      create trigger injected_fault before insert on proj_flaky_g1.flaky_seen for each row execute function raise_fault()`);
  });

  const status = async () =>
    (await httpClient(hub.service.url!)<ProjectionsReport>("GET", "/api/admin/projections", { token: ADMIN })).body;
  const flakyStatus = async () => (await status()).projections.find((p) => p.name === "flaky")!;
  const seen = async () =>
    (await hub.service.db.query("select n from read.flaky_seen order by n")).rows.map((row) => row.n);
  const inject = (sqlstate: string | null) => hub.service.db.query("update fault_switch set sqlstate = $1", [sqlstate]);

  it("pauses without stopping and catches up by itself once the fault is gone, with no `projections retry`", async () => {
    await inject("53100");
    await hub.service.eventStore.append({
      tenant: "t1",
      streamId: "s",
      expectedVersion: 0,
      events: [{ type: "Counted", data: { n: 1 } }],
      metadata: { actor: "test" },
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await flakyStatus(), "disk full is not the event's fault").to.include({ error: null, lagEvents: 1 });
    await inject("40P01");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await flakyStatus(), "nor is a deadlock").to.include({ error: null, lagEvents: 1 });
    expect(await seen()).to.deep.equal([]);

    await inject(null);
    await until(async () => (await seen()).length === 1, 45_000);
    expect(await flakyStatus()).to.include({ error: null, lagEvents: 0 });
  });
});

describe("many projections outdated at once, with a small connection pool", function () {
  this.timeout(120_000);

  it("rebuilds every one of them, a few at a time, none left behind", async () => {
    const names = ["outdated_a", "outdated_b", "outdated_c", "outdated_d", "outdated_e", "outdated_f"];
    const databaseUrl = await createTestDatabase(false);
    const first = await startTestService({
      databaseUrl,
      projections: names.map((name) => recordingProjection(name)),
      env: { DB_POOL_MAX: "4" },
    });
    for (let n = 1; n <= 20; n++)
      await first.eventStore.append({
        tenant: "t1",
        streamId: "s",
        expectedVersion: n - 1,
        events: [{ type: "Counted", data: { n } }],
        metadata: { actor: "test" },
      });
    await first.stop();

    // A new release changes every one of them: each is built again by replay when the service starts.
    const second = await startTestService({
      databaseUrl,
      projections: names.map((name) => ({ ...recordingProjection(name), version: 2 })),
      env: { DB_POOL_MAX: "4" },
    });
    try {
      const liveAtVersion2 =
        "select count(*)::int as n from projection_generations where state = 'live' and version = 2 and name like 'outdated_%'";
      await until(async () => (await second.db.query(liveAtVersion2)).rows[0].n === names.length, 90_000, 200);
      for (const name of names)
        expect((await second.db.query(`select count(*)::int as n from read.${name}_seen`)).rows[0].n, name).to.equal(
          20,
        );
    } finally {
      await second.stop();
    }
  });
});

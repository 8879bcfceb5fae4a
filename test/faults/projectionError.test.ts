import { spawn } from "node:child_process";
import { expect } from "chai";
import type { RunningService } from "../../src/app/service.ts";
import { createTestDatabase } from "../support/database.ts";
import { ADMIN, httpClient } from "../support/http.ts";
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

describe("a projection that throws on one event, seen by an operator", function () {
  this.timeout(60_000);
  let service: RunningService;
  let databaseUrl: string;
  let poisoned = true;
  const fragile = recordingProjection("fragile", ["Counted"], (event) => poisoned && (event.data as { n: number }).n === 3);
  const sturdy = recordingProjection("sturdy");

  before(async () => {
    databaseUrl = await createTestDatabase(false);
    service = await startTestService({ databaseUrl, projections: [fragile, sturdy], safetyNetMs: 200 });
  });
  after(() => service.stop());

  const status = async () => (await httpClient(service.url!)<ProjectionsReport>("GET", "/api/admin/projections", { token: ADMIN })).body;
  const named = (report: ProjectionsReport, name: string) => report.projections.find((p) => p.name === name)!;
  const append = (n: number, expectedVersion: number) =>
    service.eventStore.append({ tenant: "t1", streamId: "s", expectedVersion, events: [{ type: "Counted", data: { n } }], metadata: { actor: "test" } });
  const seen = async (name: string) => (await service.db.query(`select n from read.${name}_seen order by n`)).rows.map((row) => row.n);

  it("stops there with the error shown while the others go on, and resumes after `projections retry`", async () => {
    for (let n = 1; n <= 5; n++) await append(n, n - 1);
    const stopped = await until(async () => {
      const report = await status();
      return named(report, "fragile").error && named(report, "sturdy").position === report.head ? report : null;
    }, 10_000);
    const third = Number((await service.db.query("select position from events where data->>'n' = '3'")).rows[0].position);
    expect(named(stopped, "fragile").error).to.deep.include({ position: third, message: "cannot apply event " + third });
    expect(named(stopped, "fragile").lagEvents, "events 3 to 5 wait").to.equal(3);
    expect(await seen("fragile")).to.deep.equal([1, 2]);

    // The others keep going; the stopped one stays put, safety-net wake-ups or not.
    await append(6, 5);
    await until(async () => named(await status(), "sturdy").lagEvents === 0 && (await seen("sturdy")).length === 6, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await seen("fragile")).to.deep.equal([1, 2]);
    expect(named(await status(), "fragile").lagEvents).to.equal(4);

    poisoned = false; // the fix is deployed
    const retried = await retryFromCommandLine(databaseUrl, "fragile");
    expect(retried).to.deep.equal({ code: 0, stdout: "fragile will retry\n" });
    const resumed = await until(async () => {
      const report = await status();
      return named(report, "fragile").lagEvents === 0 ? report : null;
    }, 10_000);
    expect(named(resumed, "fragile")).to.include({ error: null, position: resumed.head });
    expect(await seen("fragile")).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });
});

describe("a projection meeting a database fault while it applies (disk full, then a deadlock)", function () {
  this.timeout(60_000);
  const flaky = recordingProjection("flaky");
  const hub = useTestService({ projections: [flaky], safetyNetMs: 200 });

  before(async () => {
    await until(async () => (await hub.service.db.query("select 1 from projection_generations where name = 'flaky' and state = 'live'")).rowCount === 1, 30_000);
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

  const status = async () => (await httpClient(hub.service.url!)<ProjectionsReport>("GET", "/api/admin/projections", { token: ADMIN })).body;
  const flakyStatus = async () => (await status()).projections.find((p) => p.name === "flaky")!;
  const seen = async () => (await hub.service.db.query("select n from read.flaky_seen order by n")).rows.map((row) => row.n);
  const inject = (sqlstate: string | null) => hub.service.db.query("update fault_switch set sqlstate = $1", [sqlstate]);

  it("pauses without stopping and catches up by itself once the fault is gone, with no `projections retry`", async () => {
    await inject("53100");
    await hub.service.eventStore.append({ tenant: "t1", streamId: "s", expectedVersion: 0, events: [{ type: "Counted", data: { n: 1 } }], metadata: { actor: "test" } });
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
    const first = await startTestService({ databaseUrl, projections: names.map((name) => recordingProjection(name)), env: { DB_POOL_MAX: "4" } });
    for (let n = 1; n <= 20; n++) await first.eventStore.append({ tenant: "t1", streamId: "s", expectedVersion: n - 1, events: [{ type: "Counted", data: { n } }], metadata: { actor: "test" } });
    await first.stop();

    // A new release changes every one of them: each is built again by replay when the service starts.
    const second = await startTestService({ databaseUrl, projections: names.map((name) => ({ ...recordingProjection(name), version: 2 })), env: { DB_POOL_MAX: "4" } });
    try {
      const liveAtVersion2 = "select count(*)::int as n from projection_generations where state = 'live' and version = 2 and name like 'outdated_%'";
      await until(async () => (await second.db.query(liveAtVersion2)).rows[0].n === names.length, 90_000, 200);
      for (const name of names) expect((await second.db.query(`select count(*)::int as n from read.${name}_seen`)).rows[0].n, name).to.equal(20);
    } finally {
      await second.stop();
    }
  });
});

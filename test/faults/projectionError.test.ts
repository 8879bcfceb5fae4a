import { spawn } from "node:child_process";
import { expect } from "chai";
import type { RunningService } from "../../src/app/service.ts";
import { createTestDatabase } from "../support/database.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { recordingProjection } from "../support/projections.ts";
import { startTestService, until } from "../support/service.ts";
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

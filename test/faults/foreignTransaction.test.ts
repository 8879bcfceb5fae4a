import { expect } from "chai";
import pg from "pg";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { createTestDatabase } from "../support/database.ts";
import { ingestionTenant, labReport } from "../support/ingestion.ts";
import { startTestService, until } from "../support/service.ts";

/*
 * Hospitals share database servers between applications (issue #32, finding 10). Another
 * application's database on the same PostgreSQL server keeps a writing transaction open for the
 * whole test, as a long batch load would; this service must not notice it.
 */
describe("a transaction held open in another database of the same server", function () {
  this.timeout(90_000);
  let service: RunningService;
  let elsewhere: pg.Client;

  before(async () => {
    service = await startTestService({ projections: allProjections });
    elsewhere = new pg.Client({ connectionString: await createTestDatabase() });
    await elsewhere.connect();
    await elsewhere.query("begin");
    // Writing gives the transaction an id: the oldest running one on the whole server from now on.
    await elsewhere.query("create table batch_load (n int); insert into batch_load values (1)");
  });

  after(async () => {
    await elsewhere.query("rollback").catch(() => {});
    await elsewhere.end();
    await service.stop();
  });

  it("lets a key, a token and a patient just created work on the very next call, and pushes become visible", async () => {
    // Creates a client key and an author token and registers a patient, each call waiting for its read model.
    const tenant = await ingestionTenant(service, "shared-server");
    const patients = await tenant.call("GET", "/api/patients", { token: tenant.authorToken });
    expect(patients.status, "the new author token works").to.equal(200);
    expect(
      patients.body.map((patient: { patientRef: string }) => patient.patientRef),
      "the patient it registered is listed",
    ).to.deep.equal(["P001"]);

    const pushed = Array.from({ length: 10 }, (_, i) => labReport(`FX-${i}`));
    expect((await tenant.push("lab", pushed)).status).to.equal(200);
    const listed = await until(async () => {
      const day = await tenant.reconcile("lab", "date=2026-03-01");
      return day.labReportCount === pushed.length && day;
    }, 20_000);
    expect(listed.externalIds).to.deep.equal(pushed.map((report) => report.externalId).sort());
    expect(
      (await elsewhere.query("select count(*)::int as n from batch_load")).rows[0].n,
      "the other transaction is still open",
    ).to.equal(1);
  });
});

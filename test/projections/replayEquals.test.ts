import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { silentLogger } from "../../src/logger.ts";
import type { RunningService } from "../../src/app/service.ts";
import { labReport, LI_SI } from "../support/ingestion.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { until, useTestService } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";

/*
 * Contract C.6: read tables are projections of the events, and rebuilt by replay to the same
 * content. After a history with every kind of change, every projection is rebuilt (as
 * `npm run cli -- projections rebuild all` does) and every read table compared row for row.
 */

const WANG_WU = { name: "王五", idCard: "110105200002290013" };

/** Row count and a digest of the ordered rows of each read table. */
async function tableDigests(service: RunningService): Promise<Record<string, { rows: number; md5: string }>> {
  const digests: Record<string, { rows: number; md5: string }> = {};
  for (const table of allProjections.flatMap((projection) => projection.tables).sort()) {
    const { rows } = await service.db.query(
      `select count(*)::int as rows, md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as md5 from read.${table} t`,
    );
    digests[table] = rows[0];
  }
  // And every table of each live generation, its own ones included (a reactor's known patients and waiting reports).
  const { rows: own } = await service.db.query(
    `select g.name, g.schema_name, t.table_name from projection_generations g join information_schema.tables t on t.table_schema = g.schema_name
     where g.state = 'live' order by 1, 3`,
  );
  for (const { name, schema_name: schema, table_name: table } of own as Array<{
    name: string;
    schema_name: string;
    table_name: string;
  }>) {
    const { rows } = await service.db.query(
      `select count(*)::int as rows, md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as md5 from ${schema}.${table} t`,
    );
    digests[`${name}: ${table}`] = rows[0];
  }
  return digests;
}

describe("replaying every event gives every read table back, row for row", function () {
  this.timeout(180_000);
  const hub = useTestService({ projections: allProjections });
  let north: SeededTenant;

  before(async () => {
    north = await seedTenant(hub.service, "north");
    await seedTenant(hub.service, "south");
    const steps: Array<[string, Promise<{ status: number; body: unknown }>]> = [];
    const step = (name: string, call: () => Promise<{ status: number; body: unknown }>) => steps.push([name, call()]);
    const run = async () => {
      for (const [name, answer] of steps.splice(0)) {
        const { status, body } = await answer;
        if (status >= 300) throw new Error(`${name}: ${status} ${JSON.stringify(body)}`);
      }
    };
    // Updates: a changed value, and a report moved to another day.
    step("update a value", () =>
      north.push("lab", [
        labReport("NORTH-M1", {
          reportedAt: "2026-01-10 09:00:00",
          items: [{ itemCode: "HGB", value: 104, unit: "g/L" }],
        }),
      ]),
    );
    step("move a report", () => north.push("lab", [labReport("NORTH-DAY", { reportedAt: "2026-03-04 09:00:00" })]));
    step("a report for the queue", () =>
      north.push("lab", [labReport("NORTH-LAB-REQUEUED", { patient: { hisPatientId: "H-7" } })]),
    );
    step("laboratory reports to dismiss", () =>
      north.push("lab", [
        labReport("NORTH-LAB-DISMISSED", { patient: { hisPatientId: "H-10" } }),
        labReport("NORTH-LAB-BACK", { patient: { hisPatientId: "H-11" } }),
      ]),
    );
    await run();
    step("dismiss a laboratory report", () =>
      north.asAuthor("POST", "/api/unmatched/lab/NORTH-LAB-DISMISSED/dismiss", { reason: "not a dialysis patient" }),
    );
    step("dismiss one to be sent back", () =>
      north.asAuthor("POST", "/api/unmatched/lab/NORTH-LAB-BACK/dismiss", { reason: "sent by mistake" }),
    );
    await run();
    step("send a dismissed report back", () =>
      north.push("lab", [labReport("NORTH-LAB-BACK", { patient: { hisPatientId: "H-11" }, status: "CORRECTED" })]),
    );
    await run();
    // Reports left waiting for a patient: a name that differs from the known holder of the id card's, an id card nobody holds.
    step("waiting, the name differs", () =>
      north.push("lab", [
        labReport("NORTH-NAME-DIFFERS", { patient: { name: "张三丰", idCard: "11010519491231002X" } }),
      ]),
    );
    step("waiting for nobody yet", () =>
      north.push("exam", [
        {
          externalId: "NORTH-ECG-NOBODY",
          patient: { name: "赵六", idCard: "11010119900307651X" },
          examType: "ECG",
          reportedAt: "2026-03-03 11:30:00",
        },
      ]),
    );
    await run();
    // The queue: a claim, a dismissal, an update that sends the dismissed report back, an automatic claim.
    step("claim", () => north.asAuthor("POST", "/api/unmatched/lab/NORTH-UNMATCHED/claim", { patientRef: "P001" }));
    step("claim one to be requeued", () =>
      north.asAuthor("POST", "/api/unmatched/lab/NORTH-LAB-REQUEUED/claim", { patientRef: "P001" }),
    );
    step("dismiss", () =>
      north.asAuthor("POST", "/api/unmatched/exam/NORTH-ECG-UNMATCHED/dismiss", { reason: "not a dialysis patient" }),
    );
    await run();
    // A claimed laboratory report updated to name someone else: its rows leave the claimed patient (a rebuild by set must not apply the claim).
    step("requeue a laboratory report", () =>
      north.push("lab", [labReport("NORTH-LAB-REQUEUED", { patient: { hisPatientId: "H-8" }, status: "CORRECTED" })]),
    );
    step("requeue", () =>
      north.push("exam", [
        {
          externalId: "NORTH-ECG-UNMATCHED",
          patient: { hisPatientId: "H-9" },
          examType: "ECG",
          reportedAt: "2026-03-02 11:30:00",
        },
      ]),
    );
    step("wait for a patient", () => north.push("lab", [labReport("NORTH-WANG", { patient: WANG_WU })]));
    await run();
    step("register, claiming automatically", () =>
      north.asAuthor("PUT", "/api/patients/P003", { ...WANG_WU, ward: "C" }),
    );
    // A patient corrected: another ward, then 李四 registered under a second reference.
    step("correct a patient", () =>
      north.asAuthor("PUT", "/api/patients/P001", { name: "张三", idCard: "11010519491231002X", ward: "B" }),
    );
    step("register another", () => north.asAuthor("PUT", "/api/patients/P002", { ...LI_SI, ward: "A" }));
    // Reports: a snapshot published, an old version restored, a draft discarded.
    step("publish a snapshot", () =>
      north.asAuthor("POST", "/api/reports/hb-monthly/publish", { mode: "snapshot", note: "month end" }),
    );
    step("restore v1", () => north.asAuthor("POST", "/api/reports/every-param/restore", { version: "v1" }));
    await run();
    step("draft", () =>
      north.asAuthor("PUT", "/api/reports/every-param/draft", {
        title: "To be discarded",
        spec: { version: 1, title: "x", params: [], queries: { q: { sql: "select 1 as n" } }, nodes: [] },
      }),
    );
    await run();
    step("discard", () => north.asAuthor("DELETE", "/api/reports/every-param/draft"));
    await run();
    // A month's figures closed for the tenant, then for a ward: their frozen rows are rebuilt too.
    step("close a month", () =>
      north.call("POST", "/api/quality/months/2026-01/close", { token: north.adminToken, body: {} }),
    );
    await run();
    step("close a ward's month", () =>
      north.call("POST", "/api/quality/months/2026-01/close", { token: north.adminToken, body: { ward: "B" } }),
    );
    await run();
    // A bulk job: a new report, an update of a pushed one, and a rejected line.
    const bulk = await fetch(`${hub.service.url}/open/v1/lab/reports/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${north.client.key}`, "content-type": "application/x-ndjson" },
      body: [labReport("NORTH-BULK"), labReport("NORTH-DAY", { status: "CORRECTED" }), "{not json"]
        .map((line) => (typeof line === "string" ? line : JSON.stringify(line)))
        .join("\n"),
    });
    const { jobId } = ((await bulk.json()) as { data: { jobId: string } }).data;
    await until(
      async () =>
        (await north.call("GET", `/open/v1/bulk/${jobId}`, { token: north.client.key })).body.data.status === "DONE",
      15_000,
    );
    await projectionsCaughtUp(hub.service.url!);
    // Access records are written off their calls' path, within ACCESS_LOG_FLUSH_MS (200 ms) when
    // the machine is idle, later under the whole suite's load: the log is complete once it stops growing.
    let accessRows = -1;
    await until(async () => {
      const before = accessRows;
      await new Promise((resolve) => setTimeout(resolve, 500));
      await projectionsCaughtUp(hub.service.url!);
      accessRows = (await hub.service.db.query("select count(*)::int as n from read.access_log")).rows[0].n;
      return accessRows === before;
    }, 15_000);
  });

  it("rebuilds every projection to the same rows, appending no event", async () => {
    const before = await tableDigests(hub.service);
    expect(before.lab_reports!.rows).to.be.greaterThan(10);
    expect(before.lab_report_days!.rows, "more versions than reports").to.be.greaterThan(before.lab_reports!.rows);
    expect(before["auto_claim: pending_reports"]!.rows, "reports left waiting for a patient").to.be.at.least(2);
    expect(before.quality_closed_figures!.rows, "two closes' figures").to.be.greaterThan(0);
    const events = async () =>
      (await hub.service.db.query("select count(*)::int as n from events")).rows[0].n as number;
    const eventsBefore = await events();

    for (const projection of allProjections) {
      const result = await rebuildProjection(hub.service.db, projection, silentLogger);
      expect(result.status, projection.name).to.equal("rebuilt");
      // What can load by set did: the batches, which would stand in for a failed load, are not what is compared.
      if (projection.loadThrough && result.status === "rebuilt")
        expect(result.loadedAtOnce, `${projection.name} loaded by set`).to.be.greaterThan(0);
    }

    expect(await tableDigests(hub.service)).to.deep.equal(before);
    expect(await events(), "replay appends nothing (auto_claim reacts only once)").to.equal(eventsBefore);
  });
});

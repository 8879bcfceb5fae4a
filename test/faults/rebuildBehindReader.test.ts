import { expect } from "chai";
import pg from "pg";
import { labReportsProjection } from "../../projections/ingestion/labReports.ts";
import { rebuildProjection } from "../../projections/runtime/rebuild.ts";
import { silentLogger } from "../../src/logger.ts";
import { labReport, LI_SI, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";

/*
 * Issue #32, finding 1: a long reader of a read view (a stalled export's transaction) held the
 * view while a rebuild of its projection asked for it exclusively, and every later reader queued
 * behind that request: GET /api/unmatched answered 503 after 30 s. Here the reader is a plain
 * transaction left open on read.lab_reports.
 */
describe("a rebuild while a long transaction reads the projection's view", function () {
  this.timeout(90_000);
  const hub = useIngestionService();

  it("keeps the view's other readers answering, and finishes once the long reader has gone", async () => {
    expect((await hub.tenant.push("lab", [labReport("RB-1", { patient: LI_SI })])).status).to.equal(200);
    await until(async () => (await hub.tenant.unmatched()).length === 1, 10_000);

    const reader = new pg.Client({ connectionString: hub.service.databaseUrl });
    await reader.connect();
    try {
      await reader.query("begin");
      await reader.query("select count(*) from read.lab_reports");
      const rebuilt = rebuildProjection(hub.service.db, labReportsProjection, silentLogger);
      // Long enough for the rebuild to reach its swap and ask for the view.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const answered = await Promise.race([
        hub.tenant.unmatched().then((queue) => queue.map((report) => report.externalId)),
        new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 5000)),
      ]);
      expect(answered, "the unmatched queue answers while the rebuild waits for the reader").to.deep.equal(["RB-1"]);
      await reader.query("commit");
      expect((await rebuilt).status).to.equal("rebuilt");
    } finally {
      await reader.end();
    }
    expect((await hub.tenant.unmatched()).map((report) => report.externalId)).to.deep.equal(["RB-1"]);
  });
});

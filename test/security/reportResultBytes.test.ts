import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { tableReportSpec } from "../support/reports.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { useTestService } from "../support/service.ts";

/*
 * Contract E.5: a result is capped at REPORT_RESULT_MAX_BYTES besides its row cap; past it the
 * answer is truncated and the service does not hold the rest (here 1 MiB, and a row of one 50 MB
 * value, which came back whole before).
 */
describe("report results past REPORT_RESULT_MAX_BYTES", function () {
  this.timeout(60_000);
  const hub = useTestService({ projections: allProjections, env: { REPORT_RESULT_MAX_BYTES: String(1024 * 1024) } });
  let north: SeededTenant;

  before(async () => {
    north = await seedTenant(hub.service, "north", "NORTH");
    const spec = tableReportSpec("Big", {
      huge: "select repeat('x', 50 * 1024 * 1024) as value",
      wide: "select g, repeat('y', 1000) as filler from generate_series(1, 4000) g",
      small: "select count(*) as n from lab_reports",
    });
    const saved = await north.asAuthor("PUT", "/api/reports/big/draft", { spec });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
  });

  it("answers truncated with the whole rows that fit, and the other queries as usual", async () => {
    const answer = await north.call("POST", "/api/reports/big/data", { body: { version: "draft" } });
    expect(answer.status).to.equal(200);
    const { huge, wide, small } = answer.body.queries;
    expect(huge).to.deep.include({ columns: ["value"], rows: [], truncated: true });
    expect(wide.truncated).to.equal(true);
    expect(wide.rows.length, "about a megabyte of 1 kB rows").to.be.within(500, 1100);
    expect(wide.rows.map((row: unknown[]) => row[0])).to.deep.equal(Array.from({ length: wide.rows.length }, (_, i) => i + 1));
    expect(small).to.deep.include({ truncated: false });
    expect(JSON.stringify(answer.body).length, "the answer itself stays small").to.be.below(2 * 1024 * 1024);
  });
});

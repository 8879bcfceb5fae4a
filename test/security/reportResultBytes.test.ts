import { expect } from "chai";
import { allProjections } from "../../src/app/allProjections.ts";
import { tableReportSpec } from "../support/reports.ts";
import { seedTenant, type SeededTenant } from "../support/seededTenant.ts";
import { useTestService } from "../support/service.ts";
import { unzip } from "../support/zipText.ts";

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
    expect(wide.rows.map((row: unknown[]) => row[0])).to.deep.equal(
      Array.from({ length: wide.rows.length }, (_, i) => i + 1),
    );
    expect(small).to.deep.include({ truncated: false });
    expect(JSON.stringify(answer.body).length, "the answer itself stays small").to.be.below(2 * 1024 * 1024);
  });

  it("stops an xlsx export's query at a batch of rows past the cap, and its sheet says why; the other sheets are whole (issue #52, finding 6)", async () => {
    const response = await fetch(`${hub.service.url}/api/reports/big/export/xlsx`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "north" },
      body: JSON.stringify({ version: "draft" }),
    });
    expect(response.status).to.equal(200);
    const sheets = unzip(Buffer.from(await response.arrayBuffer()));
    const huge = sheets.get("xl/worksheets/sheet1.xml")!.toString("utf8");
    // Said by its code, in the file's words (issue #54).
    expect(huge).to.include(
      "The query&apos;s rows hold values too large to export; the report&apos;s author must leave them out or shorten them",
    );
    expect(huge.length, "the 50 MB value never written").to.be.below(100_000);
    const wide = sheets.get("xl/worksheets/sheet2.xml")!.toString("utf8");
    expect(
      wide.match(/<row /g) ?? [],
      "the header and 4,000 rows of 1 kB: an export is not cut at the cap, only its batches are sized by it",
    ).to.have.length(4001);
  });
});

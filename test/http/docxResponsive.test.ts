import { expect } from "chai";
import { createTestDatabase } from "../support/database.ts";
import { pollHealthz } from "../support/healthPolls.ts";
import { ingestionTenant } from "../support/ingestion.ts";
import { downloadExport, manyChartsSpec } from "../support/reports.ts";
import { useServiceProcesses } from "../support/serviceProcess.ts";
import { unzip } from "../support/zipText.ts";

const CHARTS = 20;
const POINTS = 2000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/*
 * Issue #32 finding 5: a docx of many big charts drew them on the event loop, and the service
 * stopped answering (/healthz waited up to 23 s) until the export was done. The service here is
 * the production build (dist/cli.js, its chart worker a file of the build) in a process of its own.
 */
describe("a docx export of many big charts (the built service)", function () {
  this.timeout(240_000);
  const deployment = useServiceProcesses(() => createTestDatabase(false));
  let url: string;

  before(async () => {
    url = (await deployment.spawn()).url!;
    const tenant = await ingestionTenant({ url }, "h1");
    const saved = await tenant.call("PUT", "/api/reports/big/draft", {
      token: tenant.authorToken,
      body: { title: "Big", spec: manyChartsSpec(CHARTS, POINTS) },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
  });

  it("keeps answering /healthz while it draws, and the document holds every chart, thinned and saying so", async () => {
    const polls = pollHealthz(url);
    const started = performance.now();
    const download = await downloadExport({ url }, "big", "docx", { version: "draft" });
    const exportMs = performance.now() - started;
    const health = await polls.stop();
    console.log(
      `      export ${Math.round(exportMs)} ms; ${health.polls} /healthz checks, the slowest ` +
        `${Math.round(health.longestMs)} ms, ${health.failures.length} failed`,
    );

    expect(download.status, download.json?.error).to.equal(200);
    const files = unzip(download.buffer);
    const images = [...files.keys()].filter((name) => name.startsWith("word/media/"));
    expect(images, "one image per chart").to.have.length(CHARTS);
    for (const name of images)
      expect(files.get(name)!.subarray(0, 8).equals(PNG_SIGNATURE), `${name} is a PNG`).to.equal(true);

    expect(health.polls, "health checks answered through the export, one every 250 ms at least").to.be.at.least(
      Math.floor(exportMs / 250),
    );
    expect(health.failures, "health checks that failed").to.deep.equal([]);
    expect(health.longestMs, `the slowest /healthz answer against an export of ${Math.round(exportMs)} ms`).to.be.below(
      Math.min(1000, exportMs / 5),
    );
    const xml = files.get("word/document.xml")!.toString("utf8");
    expect(xml.match(/Thinned: drawn from \d+ of 2000 rows/g) ?? [], "a note under each thinned chart").to.have.length(
      CHARTS,
    );
  });
});

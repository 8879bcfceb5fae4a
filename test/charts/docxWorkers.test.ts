import { expect } from "chai";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { ChartNode } from "../../src/reports/charts/chartOptions.ts";
import type { DocxAnswer, DocxJob } from "../../src/reports/export/docxExport.ts";
import { WorkerPool } from "../../src/reports/export/workerPool.ts";
import { unzip } from "../support/zipText.ts";

const SIZE = { width: 800, height: 400, scale: 1.5 };
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

type ChartJob = Extract<DocxJob, { kind: "chart" }>;

function barChart(id: string, bars: number): ChartJob {
  const node: ChartNode = { id, type: "chart", chart: "bar", title: `病区 ${id}`, query: "q", x: "ward", y: ["n"] };
  const rows = Array.from({ length: bars }, (_, i) => [`ward ${i}`, (i * 7) % 23]);
  return {
    kind: "chart",
    node,
    result: { columns: ["ward", "n"], columnTypes: ["string", "integer"], rows },
    size: SIZE,
  };
}

const pngOf = (answer: DocxAnswer) => ("png" in answer ? Buffer.from(answer.png) : expect.fail(JSON.stringify(answer)));

describe("the docx export's worker threads (src/reports/export/workerPool, docxWorker)", function () {
  this.timeout(60_000);
  let pool: WorkerPool<DocxJob, DocxAnswer>;
  afterEach(() => pool?.close());

  it("draws charts as PNGs in their order on a worker thread, the event loop free meanwhile", async () => {
    pool = new WorkerPool("docxWorker", { threads: 1 });
    await pool.run(barChart("warm-up", 3)); // the thread's start: loading ECharts, resvg and the font
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const pngs = (await pool.runAll([barChart("a", 1500), barChart("b", 3), barChart("c", 1500)], 3)).map(pngOf);
    delay.disable();
    for (const png of pngs) {
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).to.equal(true);
      expect(png.readUInt32BE(16)).to.equal(1200);
    }
    expect(pngs[1]!.length, "the chart of 3 bars is the small one, in its place").to.be.lessThan(pngs[0]!.length);
    expect(delay.max / 1e6, "the longest the event loop waited (ms)").to.be.below(200);
  });

  it("answers a column the query lacks as the sentence for the chart's place", async () => {
    pool = new WorkerPool("docxWorker", { threads: 1 });
    const job = barChart("a", 3);
    expect(await pool.run({ ...job, node: { ...job.node, y: ["missing"] } })).to.deep.equal({
      problem: 'Chart a: y column "missing" is not a column of query q (its columns: ward, n).',
    });
  });

  it("builds and zips the document on a worker thread", async () => {
    pool = new WorkerPool("docxWorker", { threads: 1 });
    const png = pngOf(await pool.run(barChart("a", 3)));
    const layer = {
      title: "血红蛋白",
      version: "v1",
      mode: "dynamic" as const,
      publishedAt: "2026-03-01T08:00:00",
      exportedAt: "2026-03-02T08:00:00",
      note: "",
      filters: [],
      nodes: [barChart("a", 3).node],
      results: {},
    };
    const answer = await pool.run({
      kind: "document",
      layer,
      images: new Map([["a", { png, thinning: { from: 2000, kept: 998 } }]]),
    });
    const files = unzip("file" in answer ? Buffer.from(answer.file) : expect.fail(JSON.stringify(answer)));
    const media = [...files.keys()].filter((name) => name.startsWith("word/media/"));
    expect(media.map((name) => files.get(name)!.equals(png))).to.deep.equal([true]);
    expect(files.get("word/document.xml")!.toString("utf8"))
      .to.include("血红蛋白")
      .and.include("Thinned: drawn from 998 of 2000 rows");
  });

  it("has at most `atOnce` jobs of one call in the pool, so that two calls take turns", async () => {
    pool = new WorkerPool("docxWorker", { threads: 1 });
    const finished: string[] = [];
    const exported = (name: string, jobs: DocxJob[]) => pool.runAll(jobs, 1).then(() => finished.push(name));
    await Promise.all([
      exported(
        "big export",
        Array.from({ length: 6 }, (_, i) => barChart(`big${i}`, 200)),
      ),
      exported("small export", [barChart("small", 3)]),
    ]);
    expect(finished).to.deep.equal(["small export", "big export"]);
  });

  it("fails a job with the worker's error, ends an idle thread, and fails the jobs still waiting when closed", async () => {
    pool = new WorkerPool("docxWorker", { threads: 1, idleMs: 100 });
    const broken = { kind: "document", layer: null, images: new Map() } as unknown as DocxJob;
    const failure = await pool.run(broken).then(
      () => "answered",
      (error: Error) => error.message,
    );
    expect(failure).to.match(/TypeError/);
    expect(pool.size, "the thread goes on after a failed job").to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(pool.size, "ended after 100 ms without work").to.equal(0);
    expect("png" in (await pool.run(barChart("b", 3)))).to.equal(true);
    const waiting = pool.runAll([barChart("c", 1500), barChart("d", 3)], 2).then(
      () => "answered",
      (error: Error) => error.message,
    );
    await pool.close();
    expect(await waiting).to.match(/stopped/);
  });
});

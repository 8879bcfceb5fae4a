import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { summariseCpuProfile, type CpuProfile } from "../../bench/cpuProfileSummary.ts";
import { runNode } from "../support/cliProcess.ts";

/* The floor group (#35): the figures the ratios divide by, and the profile summary that says where the time goes. */

const RUNNER = fileURLToPath(new URL("../../bench/run.ts", import.meta.url));

describe("npm run bench -- floor", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-bench-floor-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes every floor figure, each a positive rate with a note", async function () {
    this.timeout(300_000);
    const out = path.join(dir, "results.json");
    const { code, stderr } = await runNode(["--import", "tsx", RUNNER, "floor"], {
      BENCH_RESULTS: out,
      BENCH_FLOOR_REPORTS: "500",
      BENCH_FLOOR_REPEATS: "1",
    });

    expect(code, stderr).to.equal(0);
    const figures = JSON.parse(readFileSync(out, "utf8")) as Array<{
      name: string;
      value: number;
      unit: string;
      note?: string;
    }>;
    expect(figures.map((figure) => figure.name)).to.have.members([
      "floor.bulk_reports_per_s",
      "floor.events_insert_per_s",
      "floor.events_values_per_s",
      "floor.events_copy_per_s",
      "floor.events_uncompressed_per_s",
      "floor.bulk_compact_mapping_per_s",
      "floor.items_per_s",
      "floor.items_copy_per_s",
      "floor.items_from_events_per_s",
      "floor.reports_rows_per_s",
      "floor.push100_reports_per_s",
      "floor.rebuild_items_per_s",
    ]);
    for (const figure of figures) {
      expect(figure.value, figure.name).to.be.greaterThan(0);
      expect(figure.unit, figure.name).to.equal("reports/s");
      expect(figure.note, figure.name).to.be.a("string").and.not.equal("");
    }
  });
});

describe("a CPU profile summarised by category", () => {
  const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });
  // root -> pushReports (ours, by its path) -> jsonStringify (jsonFrames.mjs) ; root -> pg Writer -> a builtin ; root -> (idle)
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame("(root)", ""), children: [2, 4, 6, 7] },
      { id: 2, callFrame: frame("checkReports", "file:///repo/commands/ingestion/pushReports.ts"), children: [3] },
      { id: 3, callFrame: frame("jsonStringify", "file:///repo/bench/jsonFrames.mjs") },
      {
        id: 4,
        callFrame: frame("addString", "file:///repo/node_modules/pg-protocol/dist/buffer-writer.js"),
        children: [5],
      },
      { id: 5, callFrame: frame("write", "node:buffer") },
      { id: 6, callFrame: frame("(idle)", "") },
      { id: 7, callFrame: frame("safeParse", "file:///repo/node_modules/zod/v4/core/parse.js") },
    ],
    startTime: 1_000,
    endTime: 8_000,
    samples: [2, 3, 3, 5, 6, 7, 7, 2],
    timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };

  it("gives each sample's time to the innermost frame with a category, node's own frames to their callers", () => {
    const { categories } = summariseCpuProfile(profile);
    const ms = Object.fromEntries(categories.map((c) => [c.category, c.ms]));
    expect(ms).to.deep.equal({
      "push command (decide, append)": 1,
      "JSON parse/stringify": 2,
      "pg driver": 1,
      idle: 1,
      "validation (zod, report schemas)": 2,
    });
  });

  it("counts only the samples of the window", () => {
    const { categories } = summariseCpuProfile(profile, 3_500, 5_500);
    expect(Object.fromEntries(categories.map((c) => [c.category, c.ms]))).to.deep.equal({ "pg driver": 1, idle: 1 });
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { runNode } from "../support/cliProcess.ts";

/* `npm run bench` on a machine that lacks a group's tools, as a new developer's often does. */

const RUNNER = fileURLToPath(new URL("../../bench/run.ts", import.meta.url));

describe("npm run bench on a machine without Chromium", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-bench-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("skips the embed group with its reason and still prints and writes the other groups' figures", async function () {
    this.timeout(120_000);
    const out = path.join(dir, "results.json");
    const { code, stdout, stderr } = await runNode(["--import", "tsx", RUNNER, "append", "embed"], {
      CHROMIUM_PATH: path.join(dir, "no-chromium-here"),
      BENCH_RESULTS: out,
    });

    expect(code, stderr).to.equal(0);
    expect(stderr).to.match(/skipping embed: no chromium at .*no-chromium-here.*apt-get install -y chromium/);
    expect(stdout).to.match(/^append\.events_per_s\s+\d/m);
    expect(stdout).to.match(/embed skipped: no chromium/);
    expect(existsSync(out), "results file written").to.equal(true);
    const names = (JSON.parse(readFileSync(out, "utf8")) as { name: string }[]).map((figure) => figure.name);
    expect(names).to.include.members(["append.events_per_s", "append.vs_emmett_events_per_s"]);
    expect(names.filter((name) => name.startsWith("embed."))).to.deep.equal([]);
  });
});

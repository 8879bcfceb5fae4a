import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { launchChromium, type Chromium } from "../browser/chromium.ts";
import { ensureStaffBundle } from "../browser/staffBundle.ts";
import { freePort } from "../support/privatePostgres.ts";
import { until } from "../support/service.ts";
import { SERVER_ENTRY } from "../../src/buildServer.ts";
import { expectQuiet } from "../support/quietLog.ts";

/** Issue #53's bound on a stop; the test allows more, for a machine shared with other work. */
const STOP_WITHIN_MS = 2000;
const ASSERTED_MS = 3000;

/*
 * Issue #53 deliverable 5, as a newcomer meets it: `npm start` on a fresh machine (an embedded
 * PostgreSQL, the demo tenant loaded through HTTP once the service serves), the staff pages open,
 * then Ctrl-C. /readyz answered "ready" about 20 s before the demo data was in and said nothing of
 * it; the Ctrl-C, which the terminal sends to its whole process group, stopped the embedded
 * PostgreSQL at once as well, and the stop logged "job queue fault" warnings with stack traces.
 */
describe("npm start on a fresh machine: readiness and Ctrl-C (issue #53)", function () {
  this.timeout(180_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-newcomer-"));
  let child: ChildProcess;
  let output = "";
  let exited: Promise<number | string>;
  let base: string;
  let browser: Chromium | undefined;
  const printed = () => `the service printed:\n${output || "(nothing)"}`;
  const readiness = async () => (await (await fetch(`${base}/readyz`)).json()) as { status: string; demoData?: string };

  before(async () => {
    ensureStaffBundle();
    const port = await freePort();
    base = `http://localhost:${port}`;
    const pgPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
    };
    Object.assign(env, { LOG_LEVEL: "info", LOG_FORMAT: "json" }); // as a person sees it, in lines a test can read
    for (const name of ["DATABASE_URL", "ADMIN_TOKEN"]) delete env[name];
    // A process group of its own, as a terminal gives the job it runs in the foreground.
    child = spawn(process.execPath, [SERVER_ENTRY, "start"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  });

  after(async () => {
    await browser?.close();
    if (child.exitCode === null && child.signalCode === null) {
      // A test that failed first: stopped as it should be (which stops its PostgreSQL), else killed.
      child.kill("SIGTERM");
      const killer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers /readyz ready with demoData loading while the demo data loads, and the banner says where to see when it is in", async () => {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}; ${printed()}`);
        return (await fetch(`${base}/readyz`).catch(() => null))?.status === 200;
      },
      90_000,
      100,
    ).catch((error: Error) => expect.fail(`${error.message}; ${printed()}`));
    expect(await readiness(), printed()).to.deep.include({ status: "ready", demoData: "loading" });
    await until(async () => output.includes("Dialysis Hub is running"), 10_000);
    const banner = `Demo:          loading demo data … (the service already answers; ${base}/readyz says "demoData": "loaded" once it is in`;
    expect(output, "the banner says the demo is loading and where to see when it is in").to.include(banner);
  });

  it("answers demoData loaded once the demo data is in, as the console says", async () => {
    const loaded = await until(
      async () => {
        const answer = await readiness();
        return answer.demoData === "loading" ? null : answer;
      },
      120_000,
      250,
    ).catch((error: Error) => expect.fail(`${error.message}; ${printed()}`));
    expect(loaded, printed()).to.deep.include({ status: "ready", demoData: "loaded" });
    expect(output).to.match(/Demo data loaded in \d+\.\d s/);
  });

  it("stops on a Ctrl-C with the staff pages open within 2 s, exits 0, and logs no warning and no stack trace", async () => {
    // The demo's author signs in on the staff pages: its keys are on file once the demo is in.
    const credentials = path.join(dataDir, "demo-credentials.json");
    await until(async () => existsSync(credentials) && output.includes("Demo data loaded"), 120_000, 250).catch(() =>
      expect.fail(`the demo was not loaded; ${printed()}`),
    );
    const { authorToken } = JSON.parse(readFileSync(credentials, "utf8")) as { authorToken: string };
    browser = await launchChromium();
    for (const fragment of ["#alerts", "#unmatched", "#patients", "#reports"]) {
      const page = await browser.context.newPage();
      await page.goto(`${base}/staff?tenant=demo&lang=en${fragment}`);
      await page.locator("#sign-in-tenant").fill("demo");
      await page.locator("#sign-in-token").fill(authorToken);
      await page.locator("#sign-in-token").press("Enter");
      await page.locator(".who").waitFor();
      if (fragment === "#alerts") await page.locator('.live[data-live="true"]').waitFor();
    }

    const before = output.length;
    const asked = Date.now();
    process.kill(-child.pid!, "SIGINT"); // what the terminal does on Ctrl-C
    const code = await exited;
    const tookMs = Date.now() - asked;
    const stopping = output.slice(before);
    console.log(`      Ctrl-C with 4 staff pages open: stopped in ${tookMs} ms (bound ${STOP_WITHIN_MS} ms)`);

    expect(code, printed()).to.equal(0);
    expect(tookMs, stopping).to.be.below(ASSERTED_MS);
    expectQuiet(stopping);
    expect(
      existsSync(path.join(dataDir, "pg", "postmaster.pid")),
      "PostgreSQL stopped cleanly, removing its pid file",
    ).to.equal(false);
  });
});

import { expect } from "chai";
import pg from "pg";
import type { Page } from "playwright-core";
import { createTestDatabase } from "../support/database.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { useServiceProcesses } from "../support/serviceProcess.ts";
import { launchChromium, type Chromium } from "./chromium.ts";
import { ensureStaffBundle } from "./staffBundle.ts";
import { expectQuiet } from "../support/quietLog.ts";

/** Issue #53's bound on a stop; the test allows more, for a machine shared with other work. */
const STOP_WITHIN_MS = 2000;
const ASSERTED_MS = 3000;

/*
 * Issue #53 deliverable 5: a normal stop (SIGTERM, as an orchestrator asks) of
 * `node dist/cli.js start` while staff pages are open in a browser took up to SHUTDOWN_GRACE_MS:
 * a keep-alive connection still answering when the stop began stayed open once its answer was
 * sent, the browser kept sending on it, and the alert streams the pages opened again on it failed
 * with a 500 and a stack trace ("the alert feed has stopped"). It ends at once, at info level
 * only, and exits 0. (The Ctrl-C of a terminal: test/src/newcomerStartAndStop.test.ts.)
 */
describe("a stop with staff pages open (issue #53)", function () {
  this.timeout(180_000);
  const deployment = useServiceProcesses(() => createTestDatabase(false));
  let browser: Chromium | undefined;

  before(async () => {
    ensureStaffBundle();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  it("ends within 2 s, exits 0 and logs nothing at warn or above, and no stack trace", async () => {
    // At info, as npm start logs: a warning or a stack trace would show.
    const service = await deployment.spawn({
      env: { LOG_LEVEL: "info", LOG_FORMAT: "json", SHUTDOWN_GRACE_MS: "10000" },
    });
    const url = service.url!;
    const staff = { name: "Staff", tenant: "default", roles: ["author", "clinician"] };
    const made = await httpClient(url)("POST", "/api/admin/authors", { token: ADMIN, body: staff });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const token = (made.body as { token: string }).token;

    const pages: Page[] = [];
    for (const fragment of ["#alerts", "#unmatched", "#patients", "#reports"]) {
      const page = await browser!.context.newPage();
      await page.goto(`${url}/staff?tenant=default&lang=en${fragment}`);
      await page.locator("#sign-in-tenant").fill("default");
      await page.locator("#sign-in-token").fill(token);
      await page.locator("#sign-in-token").press("Enter");
      await page.locator(".who").waitFor();
      pages.push(page);
    }
    // The alert stream is open (the pages hold it, and keep-alive connections, while they stay open).
    await pages[0]!.locator('.live[data-live="true"]').waitFor();
    // A request in flight when the stop comes, on a connection the browser keeps using: the page
    // asks /readyz again and again, and this test holds it for a moment with a lock on a table its
    // answer reads (a busy database does the same).
    const lock = new pg.Client({ connectionString: deployment.databaseUrl });
    await lock.connect();
    await lock.query("begin");
    await lock.query("lock table projection_quarantines in access exclusive mode");
    await pages[1]!.evaluate(() => {
      void (async () => {
        for (;;) if (!(await fetch("/readyz").catch(() => null))) return;
      })();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));

    const asked = Date.now();
    process.kill(service.pid, "SIGTERM");
    setTimeout(() => void lock.query("commit").finally(() => lock.end()), 300);
    const code = await service.exited;
    const tookMs = Date.now() - asked;
    const output = service.output();
    console.log(`      stop with ${pages.length} staff pages open took ${tookMs} ms (bound ${STOP_WITHIN_MS} ms)`);

    expect(code, output).to.equal(0);
    expect(tookMs, output).to.be.below(ASSERTED_MS);
    // What it logged from the signal on (the process keeps its last 200 lines).
    const stopping = output.slice(output.indexOf('"msg":"shutting down"'));
    expect(stopping, output).to.match(/^"msg":"shutting down"/);
    expectQuiet(stopping);
  });
});

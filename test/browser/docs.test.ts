import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Page } from "playwright-core";
import type { RunningService } from "../../src/app/service.ts";
import { startTestService } from "../support/service.ts";
import { launchChromium, type Chromium } from "./chromium.ts";

/** Screenshots of this run; the folder is gitignored. */
const OUT = fileURLToPath(new URL("../../test-output/", import.meta.url));

describe("API docs page (/docs) in chromium", function () {
  this.timeout(60_000);
  let service: RunningService;
  let browser: Chromium;

  before(async function () {
    this.timeout(120_000);
    mkdirSync(OUT, { recursive: true });
    [service, browser] = await Promise.all([startTestService(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("serves the page with a CSP that allows scripts of this origin only, and no inline script", async () => {
    const answer = await fetch(`${service.url}/docs`);
    expect(answer.status).to.equal(200);
    const csp = answer.headers.get("content-security-policy")!;
    expect(csp).to.include("script-src 'self'").and.include("default-src 'none'");
    expect(csp).not.to.include("unsafe-inline");
    expect(csp).not.to.include("unsafe-eval");
    const html = await answer.text();
    expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g), "inline scripts").to.equal(null);
    expect((await fetch(`${service.url}/docs/assets/swagger-ui-bundle.js`)).status).to.equal(200);
    expect((await fetch(`${service.url}/docs/assets/..%2Fpackage.json`)).status).to.equal(404);
    expect((await fetch(`${service.url}/docs/assets/index.html`)).status).to.equal(404);
  });

  it("renders every operation of the document, from this origin only, with no error or CSP violation", async () => {
    const page: Page = await browser.context.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || /Content[- ]Security[- ]Policy/i.test(message.text()))
        problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("request", (request) => {
      if (!request.url().startsWith(`${service.url}/`) && !request.url().startsWith("data:"))
        elsewhere.push(request.url());
    });
    // Reported by the browser for every blocked script, style, image or connection.
    await page.addInitScript(() =>
      document.addEventListener("securitypolicyviolation", (event: SecurityPolicyViolationEvent) =>
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
      ),
    );

    await page.goto(`${service.url}/docs`);
    await page.waitForSelector(".opblock", { timeout: 20_000 });
    const document = await (await fetch(`${service.url}/openapi.json`)).json();
    const operations = Object.values<Record<string, unknown>>(document.paths).reduce(
      (count, item) => count + Object.keys(item).length,
      0,
    );
    await page.waitForFunction((n) => window.document.querySelectorAll(".opblock").length === n, operations, {
      timeout: 20_000,
    });
    const paths = await page.$$eval(".opblock-summary-path", (nodes) =>
      nodes.map((node) => node.getAttribute("data-path")),
    );
    expect(paths).to.include.members([
      "/open/v1/lab/reports",
      "/open/v1/ping",
      "/api/reports/{id}/view",
      "/api/patients/{patientRef}",
      "/api/admin/clients",
    ]);
    expect(await page.locator(".info .title").innerText()).to.include("Dialysis Hub");

    // An operation opens with its request body, rendered from the LabReport schema.
    await page.locator("#operations-Ingestion_open_API-pushLabReports .opblock-summary").click();
    await page
      .locator("#operations-Ingestion_open_API-pushLabReports .model-example")
      .first()
      .waitFor({ timeout: 10_000 });
    expect(await page.locator("#operations-Ingestion_open_API-pushLabReports").innerText()).to.include("externalId");
    await page.screenshot({ path: `${OUT}docs.png`, fullPage: true });
    await page.locator("#operations-Ingestion_open_API-pushLabReports").screenshot({ path: `${OUT}docs-lab-push.png` });

    expect(problems).to.deep.equal([]);
    expect(elsewhere, "requests leaving this origin").to.deep.equal([]);
    await page.close();
  });
});

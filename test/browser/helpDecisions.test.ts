import { readdirSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import type { Page } from "playwright-core";
import { DOCS_DIR } from "../../src/docs/helpRoutes.ts";
import { useTestService } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { launchChromium, type Chromium } from "./chromium.ts";
import { ensureStaffBundle } from "./staffBundle.ts";
import { OUT } from "./staffSuite.ts";

/*
 * Issue #53: the decisions (docs/decisions) as help pages, reached from /help through their index,
 * each readable on a phone like the articles.
 */
describe("decisions as help pages, in chromium", function () {
  this.timeout(180_000);
  const hub = useTestService();
  let browser: Chromium;
  let page: Page;

  before(async function () {
    this.timeout(120_000);
    ensureStaffBundle();
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  after(() => browser?.close());

  it("leads from /help to the index, to a decision, and on to the articles it links", async () => {
    await page.goto(`${hub.service.url}/help?lang=en`);
    await page.getByRole("link", { name: "Decisions", exact: true }).click();
    await page.waitForURL(/\/help\/decisions\?lang=en$/);
    expect(await page.locator("article h1").textContent()).to.equal("Decisions");
    await page.locator("article a", { hasText: "0002" }).click();
    await page.waitForURL(/\/help\/decisions\/0002-gap-free-reading\?lang=en$/);
    expect(await page.locator("article h1").textContent()).to.match(/^0002\. /);
    await page.locator("article a", { hasText: "0010, nothing holds" }).click();
    await page.waitForURL(/\/help\/decisions\/0010-nothing-holds-the-readers-horizon-for-long\?lang=en$/);
    await page.locator("article a", { hasText: "operations, Read models" }).click();
    await page.waitForURL(/\/help\/operations\?lang=en#read-models-projections$/);
    await expectAccessible(page, "an article reached from a decision");
  });

  it("reads well on a phone in Chinese: every decision, no sideways scroll, accessible", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const names = readdirSync(path.join(DOCS_DIR, "decisions")).filter((name) => /^\d{4}-.*\.md$/.test(name));
    for (const address of ["/help/decisions", ...names.map((name) => `/help/decisions/${name.slice(0, -3)}`)]) {
      const answer = await page.goto(`${hub.service.url}${address}`);
      expect(answer?.status(), address).to.equal(200);
      await expectNoSidewaysScroll(page, address);
      await expectAccessible(page, address);
    }
    await page.screenshot({ path: `${OUT}help-decision-390-zh.png` });
  });
});

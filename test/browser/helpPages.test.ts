import { expect } from "chai";
import type { Page } from "playwright-core";
import { useTestService } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { launchChromium, type Chromium } from "./chromium.ts";
import { ensureStaffBundle } from "./staffBundle.ts";
import { OUT } from "./staffSuite.ts";

/*
 * Issue #34 item 9: the help articles as pages a person reads (GET /help), from the same sources
 * as /md/<slug>.md, which stays markdown for machines.
 */
describe("help articles as pages, in chromium", function () {
  this.timeout(90_000);
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

  it("lists the articles and opens one as a page, its links to other articles leading to their pages and sections", async () => {
    await page.goto(`${hub.service.url}/help?lang=en`);
    expect(await page.locator("h1").textContent()).to.equal("Help");
    await page.getByRole("link", { name: "Getting started" }).click();
    await page.waitForURL(/\/help\/getting-started\?lang=en$/);
    expect(await page.locator("article h1").textContent()).to.equal("Getting started");
    expect(await page.locator("article pre").count(), "code blocks as code").to.be.greaterThan(3);
    const operations = page.locator("article a", { hasText: "Operations" }).first();
    expect(await operations.getAttribute("href")).to.equal("/help/operations?lang=en");
    await operations.click();
    await page.waitForURL(/\/help\/operations\?lang=en$/);
    expect(await page.locator("#roles-and-wards").textContent(), "headings carry their ids, for #links").to.equal(
      "Roles and wards",
    );
    await expectAccessible(page, "a help article");
    await page.screenshot({ path: `${OUT}help-article.png` });
  });

  it("keeps /md/<slug>.md markdown, and answers an unknown article with 404 in the page's language", async () => {
    const markdown = await fetch(`${hub.service.url}/md/getting-started.md`);
    expect(markdown.headers.get("content-type")).to.equal("text/markdown; charset=utf-8");
    const missing = await page.goto(`${hub.service.url}/help/no-such-article`);
    expect(missing?.status()).to.equal(404);
    expect(await page.locator("[role=alert]").textContent()).to.equal("没有这篇帮助文章。");
  });

  it("reads well on a phone in Chinese: no sideways scroll, accessible", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ["/help", "/help/getting-started", "/help/operations", "/help/api-reference"]) {
      await page.goto(`${hub.service.url}${path}`);
      await expectNoSidewaysScroll(page, path);
      await expectAccessible(page, path);
    }
    await page.screenshot({ path: `${OUT}help-390-zh.png` });
  });
});

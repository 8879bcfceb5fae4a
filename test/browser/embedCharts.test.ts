import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Page } from "playwright-core";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { DEMO_TENANT } from "../../src/demo/demoData.ts";
import { ADEQUACY_REPORT_ID } from "../../src/demo/demoReports.ts";
import { loadDemo } from "../../src/demo/loadDemo.ts";
import { startTestService, TEST_ADMIN_TOKEN } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { ensureEmbedBundle, launchChromium, type Chromium } from "./chromium.ts";

/*
 * Issue #54, the embed page's charts. On a phone the legend ran over the y axes' names ("URR" over
 * "URR (%)"), and the target line's name ("target 1.2"), set right of the plot, took half of it;
 * and no SVG chart had a name or could be reached from the keyboard. Now, in Chinese and English
 * at 390 and 1366 px: the legend and the axis names apart, on a phone the line named under the
 * chart and the plot the chart's width, each chart a named image reached with Tab whose Enter
 * opens its data table (whose rows drill through as its points do), and axe-core finds nothing.
 */

const OUT = fileURLToPath(new URL("../../test-output/", import.meta.url));
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1366, height: 768 },
] as const;
/** The legend's and the y axes' names of the demo's charts (demoReports.ts): none may run over another text. */
const NAMES = ["spKt/V", "URR", "URR (%)"];

interface Box {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The texts of a chart's drawing, where they are. */
function textsOf(page: Page, node: string): Promise<Box[]> {
  return page.locator(`.node[data-node-id=${node}] .chart svg`).evaluate((svg) =>
    [...svg.querySelectorAll("text")].map((text) => {
      const box = text.getBoundingClientRect();
      return { text: text.textContent ?? "", left: box.left, right: box.right, top: box.top, bottom: box.bottom };
    }),
  );
}

const meet = (a: Box, b: Box) =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;

describe("the embed page's charts on a phone and for a keyboard (issue #54) in chromium", function () {
  this.timeout(120_000);
  let service: RunningService;
  let browser: Chromium;

  before(async function () {
    this.timeout(180_000);
    mkdirSync(OUT, { recursive: true });
    ensureEmbedBundle();
    service = await startTestService({ projections: allProjections });
    const [demo, chromium] = await Promise.all([loadDemo(service.url!, TEST_ADMIN_TOKEN), launchChromium()]);
    browser = chromium;
    expect(demo?.reports).to.include(ADEQUACY_REPORT_ID);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  for (const lang of ["en", "zh"] as const) {
    for (const viewport of VIEWPORTS) {
      const where = `${lang}, ${viewport.width} px`;
      describe(`in ${lang === "en" ? "English" : "Chinese"} at ${viewport.width} px`, () => {
        let page: Page;
        before(async () => {
          page = await browser.context.newPage();
          await page.setViewportSize(viewport);
          await page.setExtraHTTPHeaders({ "X-Service-Tenant": DEMO_TENANT });
          await page.goto(`${service.url}/embed/reports/${ADEQUACY_REPORT_ID}?lang=${lang}`);
          await page.waitForFunction(() => document.body.dataset.rendered === "true", null, { timeout: 20_000 });
          await page.waitForTimeout(500); // the charts' first frame
        });
        after(() => page.close());

        it("keeps the legend off the y axes' names", async () => {
          for (const node of ["trend", "wards"]) {
            const texts = await textsOf(page, node);
            const named = texts.filter((text) => NAMES.includes(text.text));
            expect(named.length, `${node}: its legend and axis names`).to.be.at.least(4);
            const meeting = named.flatMap((one) =>
              texts.filter((other) => other !== one && meet(one, other)).map((other) => `${one.text} / ${other.text}`),
            );
            expect(meeting, `${node} (${where}): texts running over each other`).to.deep.equal([]);
          }
        });

        it(
          viewport.width < 480
            ? "names the target line under the chart, and gives the plot the chart's width"
            : "names the target line right of the plot, as before",
          async () => {
            const wards = page.locator(".node[data-node-id=wards]");
            const drawn = (await textsOf(page, "wards")).map((text) => text.text);
            const below = wards.locator(".ref-line-names");
            if (viewport.width < 480) {
              expect(await below.isVisible(), "the line's name under the chart").to.equal(true);
              const name = (await below.locator("li").allTextContents())[0]!;
              expect(name).to.match(/1\.2/);
              expect(drawn, "not in the drawing").not.to.include(name);
            } else {
              expect(await below.isVisible()).to.equal(false);
              expect(drawn.some((text) => /1\.2$/.test(text) && text !== "1.2")).to.equal(true);
            }
            // The bars: filled with a series' colour, taller than a legend's sign.
            const { chart, left, right } = await wards.locator(".chart").evaluate((box) => {
              const bars = [...box.querySelectorAll("path")]
                .filter(
                  (path) =>
                    ["#0072B2", "#E69F00"].includes((path.getAttribute("fill") ?? "").toUpperCase()) &&
                    path.getBoundingClientRect().height > 16,
                )
                .map((path) => path.getBoundingClientRect());
              return {
                chart: box.getBoundingClientRect().width,
                left: Math.min(...bars.map((bar) => bar.left)),
                right: Math.max(...bars.map((bar) => bar.right)),
              };
            });
            expect((right - left) / chart, `the bars span most of the chart (${where})`).to.be.at.least(0.6);
          },
        );

        it("names each chart, reaches it with Tab, and opens its data table with Enter, whose rows drill through", async () => {
          const charts = page.locator(".node-chart .chart");
          expect(await charts.count()).to.equal(3);
          for (const chart of await charts.all()) {
            const title = await chart.evaluate(
              (box) => box.closest(".node")!.querySelector(".node-title")!.textContent,
            );
            expect(await chart.getAttribute("role")).to.equal("img");
            expect(await chart.getAttribute("aria-label")).to.equal(title);
            expect(await chart.getAttribute("tabindex")).to.equal("0");
            const description = await chart.evaluate(
              (box) => document.getElementById(box.getAttribute("aria-describedby") ?? "")?.textContent ?? "",
            );
            expect(description).to.match(lang === "en" ? /Press Enter to open the data table/ : /按回车键打开/);
          }

          const trend = page.locator(".node[data-node-id=trend] .chart");
          await page.locator("body").focus();
          let reached = false;
          for (let i = 0; i < 80 && !reached; i++) {
            await page.keyboard.press("Tab");
            reached = await trend.evaluate((box) => box === document.activeElement);
          }
          expect(reached, "Tab reaches the trend chart").to.equal(true);
          await page.keyboard.press("Enter");
          const data = page.locator(".node[data-node-id=trend] details.chart-data");
          expect(await data.getAttribute("open")).to.equal("");
          expect(await page.evaluate(() => document.activeElement?.tagName)).to.equal("SUMMARY");
          const rows = data.locator("tbody tr");
          await rows.first().waitFor();
          expect(await rows.count()).to.equal(Number(await trend.getAttribute("data-categories")));
          expect(await data.locator("thead th").allTextContents()).to.include.members(["spKt/V", "URR"]);
          await expectAccessible(page, `the embed page with a chart's data table open (${where})`);
          if (viewport.width < 480) await expectNoSidewaysScroll(page, `the embed page (${where})`);
          await page.screenshot({ path: `${OUT}embed-charts-${lang}-${viewport.width}.png`, fullPage: true });

          // A row of the table (after its column headers' sort buttons) drills through as a click on its point does.
          for (let i = 0; i < 20; i++) {
            await page.keyboard.press("Tab");
            if (await page.evaluate(() => document.activeElement?.matches(".chart-data tbody tr"))) break;
          }
          const [request] = await Promise.all([
            page.waitForRequest((r) => r.url().endsWith("/drill")),
            page.keyboard.press("Enter"),
          ]);
          expect(request.postDataJSON().args.month).to.match(/^\d{4}-\d{2}-01$/);
          await page.locator(".layer-backdrop[data-state=ready]").waitFor();
          await page.keyboard.press("Escape");
        });
      });
    }
  }
});

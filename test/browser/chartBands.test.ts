import { expect } from "chai";
import type { Page } from "playwright-core";
import { monthlyPanels } from "../support/ingestion.ts";
import { expectAccessible } from "./accessibility.ts";
import { expectViewFits } from "./viewFits.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54, charts on the patient's page: the grey reference band was drawn under the green target
 * band and vanished where they overlap (albumin's laboratory range 40–55 g/L lies inside its
 * target of 35 and above); and a chart was neither named for a keyboard nor reachable by one.
 * Now the reference range is drawn over the target with dashed grey edges that show through the
 * green, the legend names both with signs like theirs, and each chart is a named image reached
 * with Tab, described by its bands and where its values are listed (the table view).
 */

const TENANT = "bands";
const WORDS = {
  en: { reference: "Reference range 40–55", target: "Target ≥ 35", hint: /table view/ },
  zh: { reference: "参考范围 40–55", target: "目标 ≥ 35", hint: /表格/ },
} as const;

/** Rows of the chart's plot (between its top margin and its x axis) that hold a dark grey pixel somewhere in its middle, in runs. */
function greyEdges(page: Page, code: string) {
  return page.locator(`.series-card[data-code=${code}] .series-chart canvas`).evaluate((canvas: HTMLCanvasElement) => {
    const { width, height } = canvas;
    const scale = width / canvas.clientWidth;
    const pixels = canvas.getContext("2d")!.getImageData(0, 0, width, height).data;
    const rows: number[] = [];
    // The grid of seriesChart.ts: 10 px above the plot, 24 below it; the middle of the plot, clear of the axes' labels.
    for (let y = Math.ceil(12 * scale); y < height - Math.ceil(26 * scale); y++) {
      for (let x = Math.floor(width * 0.35); x < Math.floor(width * 0.75); x++) {
        const at = (y * width + x) * 4;
        const [r, g, b] = [pixels[at]!, pixels[at + 1]!, pixels[at + 2]!];
        if (Math.max(r, g, b) - Math.min(r, g, b) < 18 && r > 50 && r < 150) {
          rows.push(y);
          break;
        }
      }
    }
    // Runs of adjacent rows: one for each edge drawn across the plot.
    return rows.filter((y, i) => i === 0 || y - rows[i - 1]! > 2).length;
  });
}

describe("the patient chart's bands and its reach by keyboard (issue #54) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT);

  before(async () => {
    const panels = monthlyPanels("BANDS", 6, (i) => [
      { itemCode: "ALB", itemName: "白蛋白", value: 36 + i, unit: "g/L", refLow: 40, refHigh: 55 },
    ]);
    expect((await staff.tenant.push("lab", panels)).status).to.equal(200);
  });

  for (const lang of ["en", "zh"] as const) {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1366, height: 768 },
    ]) {
      it(`${lang} at ${viewport.width} px: draws the reference range's edges over the target, names both in the legend, and names each chart for a keyboard`, async () => {
        const page = await signedInPage(staff, TENANT, { lang, fragment: "#chart/P001?code=ALB" });
        try {
          await page.setViewportSize(viewport);
          await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
          const card = page.locator(".series-card[data-code=ALB]");
          await card.locator(".series-chart canvas").waitFor();
          await page.waitForTimeout(300); // the chart's first frame

          expect(await card.locator(".bands .band-reference").textContent()).to.equal(WORDS[lang].reference);
          expect(await card.locator(".bands .band-target").textContent()).to.equal(WORDS[lang].target);
          const sign = await card
            .locator(".bands .band-reference")
            .evaluate((item) => getComputedStyle(item, "::before").borderTopStyle);
          expect(sign, "the legend's sign of the reference range has its dashed edge").to.equal("dashed");
          expect(await greyEdges(page, "ALB"), "the reference range's two edges, across the green").to.equal(2);

          // Tab from the Table button reaches the chart, named and described.
          await page.locator(".view-toggle").focus();
          const chart = card.locator(".series-chart");
          let reached = false;
          for (let i = 0; i < 60 && !reached; i++) {
            await page.keyboard.press("Tab");
            reached = await chart.evaluate((element) => element === document.activeElement);
          }
          expect(reached, "Tab reaches the albumin chart").to.equal(true);
          expect(await chart.getAttribute("role")).to.equal("img");
          expect(await chart.getAttribute("aria-label")).to.match(
            lang === "en" ? /^Alb · Albumin: 6 results/ : /白蛋白/,
          );
          const description = await chart.evaluate((element) =>
            (element.getAttribute("aria-describedby") ?? "")
              .split(" ")
              .map((id) => document.getElementById(id)?.textContent ?? "")
              .join(" "),
          );
          expect(description).to.include(WORDS[lang].reference).and.include(WORDS[lang].target);
          expect(description).to.match(WORDS[lang].hint);

          await expectViewFits(page, `the chart's bands (${lang}, ${viewport.width} px)`);
          await expectAccessible(page, `the chart's bands (${lang}, ${viewport.width} px)`);
          await card.screenshot({ path: `${OUT}chart-bands-${lang}-${viewport.width}.png` });
        } finally {
          await page.close();
        }
      });
    }
  }
});

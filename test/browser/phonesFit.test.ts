import { expect } from "chai";
import type { Page } from "playwright-core";
import { ADMIN } from "../support/http.ts";
import { labReport, monthlyPanels } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { expectViewFits } from "./viewFits.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54, phones: on a 390 px phone the English tab bar hid Patients and Credentials off-screen
 * with nothing to say it scrolls; the bulk jobs table scrolled sideways; the chart's table view
 * broke report ids one letter a line; a mapping card's Undo covered its label. Each in Chinese and
 * English at 390 px (and the tabs and tables at a laptop's 1366 px), without sideways scroll, and
 * with nothing axe-core finds.
 */

const TENANT = "phones";
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };

/** Where each labelled cell of a card ends against the label beside it, and where the card's buttons start. */
function cardGeometry(page: Page, row: string) {
  return page.locator(row).evaluate((tr) => {
    const cells = [...tr.querySelectorAll<HTMLElement>("td[data-label]")].filter((cell) => cell.offsetParent !== null);
    const labels = cells.map((cell) => {
      // The label is the cell's ::before: its height at its width and font, measured on a copy.
      const style = getComputedStyle(cell, "::before");
      const probe = document.createElement("span");
      probe.textContent = cell.dataset.label ?? "";
      Object.assign(probe.style, {
        position: "absolute",
        visibility: "hidden",
        display: "block",
        width: style.width,
        font: style.font,
        letterSpacing: style.letterSpacing,
      });
      document.body.append(probe);
      const needs = probe.getBoundingClientRect().height;
      probe.remove();
      const box = cell.getBoundingClientRect();
      return { label: cell.dataset.label, needs, height: box.height, bottom: box.bottom };
    });
    const actions = tr.querySelector(".actions button")?.getBoundingClientRect();
    return { labels, actionsTop: actions?.top ?? null };
  });
}

describe("the staff pages on a phone (issue #54): tabs, bulk jobs, the chart's table, a mapping's card, in chromium", function () {
  this.timeout(180_000);
  const staff = useStaffBrowserSuite(TENANT);
  let adminToken = "";

  before(async function () {
    this.timeout(120_000);
    const { tenant } = staff;
    const made = await tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Admin Wang", tenant: TENANT, roles: ["admin"] },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    adminToken = made.body.token;
    // Reports whose ids are as long as a laboratory's (L20260301-HD0001-…): the table view's buttons.
    const panels = monthlyPanels("L20260301-HD0001-PANEL", 4, (i) => [
      { itemCode: "HGB", value: 100 + i * 3, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: "L" },
    ]);
    expect((await tenant.push("lab", panels)).status).to.equal(200);
    // A sender's local urea code, mapped: its card has an Undo button.
    expect(
      (
        await tenant.push("lab", [
          labReport("PHONE-LOCAL-1", {
            items: [{ itemCode: "L-UREA", itemName: "本院尿素", value: 56, unit: "mg/dL" }],
          }),
        ])
      ).status,
    ).to.equal(200);
    await until(
      async () =>
        ((await tenant.call("GET", "/api/dictionary/unmapped", { token: ADMIN })).body as unknown[]).length === 1,
      10_000,
    );
    expect(
      (
        await tenant.call("POST", "/api/dictionary/mappings", {
          token: ADMIN,
          body: { itemCode: "L-UREA", stdCode: "UREA_PRE", factor: 0.357 },
        })
      ).status,
    ).to.equal(201);
    // A bulk job with a rejected line: its card has a button too.
    const bulk = await fetch(`${staff.service.url}/open/v1/lab/reports/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/x-ndjson" },
      body: [JSON.stringify(labReport("PHONE-BULK-1")), JSON.stringify({ externalId: "PHONE-BULK-BARE" })].join("\n"),
    });
    expect(bulk.status).to.equal(202);
    const jobId = ((await bulk.json()) as { data: { jobId: string } }).data.jobId;
    await until(
      async () =>
        (await tenant.call("GET", `/open/v1/bulk/${jobId}`, { token: tenant.client.key })).body?.data?.status ===
        "DONE",
      30_000,
      200,
    );
  });

  for (const lang of ["en", "zh"] as const) {
    describe(lang === "en" ? "in English" : "in Chinese", () => {
      let page: Page;
      const tab = (name: string) => page.locator(`.tabs a[data-page-link="${name}"]`);
      const ready = (name: string) =>
        page.locator(`.page-${name} .page-body[data-state=ready]`).waitFor({ timeout: 20_000 });
      const go = async (fragment: string, name: string) => {
        await page.evaluate((hash) => (location.hash = hash), fragment);
        await ready(name);
      };
      const fine = async (what: string) => {
        await expectViewFits(page, `${what} (${lang})`);
        await expectAccessible(page, `${what} (${lang})`);
      };

      before(async () => {
        page = await signedInPage(staff, TENANT, { lang, fragment: "#reports" }, adminToken);
        await page.setViewportSize(PHONE);
      });
      after(() => page.close());

      it("says the tab strip goes on past the screen's edge, and scrolls to the last tab from its arrow", async () => {
        await go("#reports", "reports");
        const strip = page.locator(".tabs-strip");
        expect(await strip.count(), "the tabs in a strip with its ends marked").to.equal(1);
        const after = page.locator(".tabs-more-after");
        await after.waitFor({ state: "visible" });
        expect(await strip.getAttribute("data-more-after")).to.equal("true");
        expect(await page.locator(".tabs-more-before").isVisible(), "nothing before the first tab").to.equal(false);
        const arrow = (await after.boundingBox())!;
        expect(arrow.x + arrow.width, "the arrow on the screen's right edge").to.be.within(
          PHONE.width - 2,
          PHONE.width + 0.5,
        );
        const last = tab("access-log");
        const hidden = (await last.boundingBox())!;
        expect(hidden.x + hidden.width, "the last tab ends past the edge").to.be.greaterThan(PHONE.width);
        await page.screenshot({ path: `${OUT}phone-${lang}-tabs-more.png` });

        for (let i = 0; i < 8 && (await strip.getAttribute("data-more-after")) === "true"; i++) {
          await after.click();
          await page.waitForTimeout(400); // a smooth scroll's end
        }
        expect(await strip.getAttribute("data-more-after"), "scrolled to the end").to.equal("false");
        const box = (await last.boundingBox())!;
        expect(box.x, "the last tab whole on the screen").to.be.at.least(0);
        expect(box.x + box.width).to.be.at.most(PHONE.width);
        expect(await page.locator(".tabs-more-before").isVisible(), "the way back is marked").to.equal(true);
        await page.screenshot({ path: `${OUT}phone-${lang}-tabs-end.png` });
        await fine("the tab strip scrolled to its end at 390 px");
        // A keyboard user reaches every tab with Tab: the arrows are not in the way.
        expect(
          await page.locator(".tabs-more").evaluateAll((arrows) => arrows.map((a) => a.getAttribute("tabindex"))),
        ).to.deep.equal(["-1", "-1"]);
      });

      it("shows the bulk jobs as cards, each count named, the page never wider than the phone", async () => {
        await go("#bulk-jobs", "bulk-jobs");
        const table = page.locator("table.jobs");
        expect(await table.getAttribute("class")).to.match(/\bcards\b/);
        const card = page.locator("table.jobs tr[data-job-id]");
        expect(await card.locator("td[data-label]").count()).to.be.at.least(10);
        const wrap = await page.locator(".jobs-view .table-wrap").evaluate((box) => ({
          scroll: box.scrollWidth,
          client: box.clientWidth,
        }));
        expect(wrap.scroll, "the jobs do not scroll sideways in their box").to.be.at.most(wrap.client);
        const button = (await card.locator("button.rejected-lines").boundingBox())!;
        expect(button.x + button.width).to.be.at.most(PHONE.width);
        await fine("the bulk jobs at 390 px");
        await page.screenshot({ path: `${OUT}phone-${lang}-bulk-jobs.png`, fullPage: true });
      });

      it("lists the chart's results as cards whose report ids stay on one line", async () => {
        await go("#chart/P001", "chart");
        await page.locator(".view-toggle").click();
        await page.locator("table.results").waitFor();
        const buttons = await page.locator("table.results .view-report").evaluateAll((all) =>
          all.map((button) => {
            const range = document.createRange();
            range.selectNodeContents(button);
            const box = button.getBoundingClientRect();
            return {
              text: button.textContent,
              lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size,
              left: box.left,
              right: box.right,
            };
          }),
        );
        expect(buttons.length).to.be.at.least(4);
        for (const button of buttons) {
          expect(button.lines, `${button.text} on one line`).to.equal(1);
          expect(button.left, button.text!).to.be.at.least(0);
          expect(button.right, button.text!).to.be.at.most(PHONE.width);
        }
        await fine("the chart's table view at 390 px");
        await page.screenshot({ path: `${OUT}phone-${lang}-chart-table.png`, fullPage: true });
        await page.locator(".view-toggle").click();
      });

      it("keeps each label of a mapping's card beside its value, clear of the Undo button", async () => {
        await go("#mappings", "mappings");
        const { labels, actionsTop } = await cardGeometry(page, "table.item-mappings tbody tr");
        expect(labels.length).to.be.at.least(5);
        for (const label of labels) {
          expect(label.height, `the cell of "${label.label}" holds its label`).to.be.at.least(label.needs - 0.5);
          expect(label.bottom, `"${label.label}" ends above Undo`).to.be.at.most(actionsTop!);
        }
        await fine("the item mappings at 390 px");
        await page.screenshot({ path: `${OUT}phone-${lang}-mapping-card.png`, fullPage: true });
      });

      it("keeps the tabs, the bulk jobs and the chart's results as they were at a laptop's 1366 px", async () => {
        await page.setViewportSize(LAPTOP);
        try {
          await go("#bulk-jobs", "bulk-jobs");
          expect(await page.locator(".tabs-strip").getAttribute("data-more-after"), "every tab fits").to.equal("false");
          expect(await page.locator(".tabs-more-after").isVisible()).to.equal(false);
          expect(await page.locator("table.jobs thead th").first().isVisible(), "the jobs as a table").to.equal(true);
          await fine("the bulk jobs at 1366 px");
          await go("#chart/P001", "chart");
          await page.locator(".view-toggle").click();
          expect(await page.locator("table.results thead th").first().isVisible()).to.equal(true);
          await fine("the chart's table view at 1366 px");
          await page.locator(".view-toggle").click();
        } finally {
          await page.setViewportSize(PHONE);
        }
      });
    });
  }
});

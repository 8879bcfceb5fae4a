import { expect } from "chai";
import type { Page } from "playwright-core";
import { monthlyPanels } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/**
 * Contract F.1 in chromium: an author finds a sender's unknown item on the Item mappings page,
 * maps it in the dialog (the preview says how many stored results it re-maps), sees the
 * re-mapping done and last months' results on the chart; then undoes it. On a phone, in both
 * languages, without sideways scroll or axe-core findings.
 */
describe("the item mappings page in chromium", function () {
  this.timeout(120_000);
  const TENANT = "maps";
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 390, height: 844 } });

  before(async () => {
    const panels = monthlyPanels("MAPS", 3, (i) => [
      { itemCode: "L-UREA", itemName: "本院尿素", value: 50 + i, unit: "mg/dL" },
    ]);
    expect((await staff.tenant.push("lab", panels)).body.data.accepted).to.equal(3);
    await until(
      async () =>
        (
          (await staff.tenant.call("GET", "/api/dictionary/unmapped", { token: staff.tenant.authorToken }))
            .body as unknown[]
        ).length === 1 || null,
      8000,
    );
  });

  const ready = (page: Page) =>
    page.locator(".page-mappings .page-body[data-state=ready]").waitFor({ timeout: 20_000 });
  const fine = async (page: Page, what: string) => {
    await expectNoSidewaysScroll(page, what);
    await expectAccessible(page, what);
  };

  it("maps an unknown item to a standard one: the preview counts the stored results, the re-mapping ends, and the chart shows them", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#mappings" });
    try {
      await ready(page);
      const row = page.locator("table.unmapped-items tr[data-item-code=L-UREA]");
      expect(await row.locator("th").textContent()).to.equal("L-UREA · 本院尿素");
      await fine(page, "the unmapped items (en, phone)");
      await row.locator("button.map").click();
      const dialog = page.locator("dialog.modal");
      await dialog.locator(".preview", { hasText: "It will re-map 3 stored results (3 reports)." }).waitFor();
      await dialog.locator("#map-standard").selectOption("UREA_PRE");
      await fine(page, "the map dialog (en, phone)");
      await page.screenshot({ path: `${OUT}phone-en-map-dialog.png`, fullPage: true });
      await dialog.locator("button[type=submit]").click();
      await dialog.waitFor({ state: "detached" });
      await page.locator("table.item-mappings tr[data-remap=DONE]").waitFor({ timeout: 20_000 });
      expect(await page.locator("table.item-mappings tr[data-remap=DONE] td.remap").textContent()).to.match(
        /done · 3 of 3 results/,
      );
      expect(await page.locator("table.unmapped-items").count(), "nothing left unmapped").to.equal(0);
      const chart = await staff.tenant.call("GET", "/api/patients/P001/results?codes=UREA_PRE", {
        token: staff.tenant.authorToken,
      });
      expect(chart.body.series[0].points).to.have.length(3);
    } finally {
      await page.close();
    }
  });

  it("undoes the mapping from its row, in Chinese: the item is listed as unmapped again", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "zh", fragment: "#mappings" });
    try {
      await ready(page);
      await fine(page, "the mappings (zh, phone)");
      await page.locator("table.item-mappings button.undo").click();
      const dialog = page.locator("dialog.modal");
      await dialog.locator("#undo-reason").fill("代码用错");
      await fine(page, "the undo dialog (zh, phone)");
      await dialog.locator("button[type=submit]").click();
      await dialog.waitFor({ state: "detached" });
      await page.locator("table.unmapped-items tr[data-item-code=L-UREA]").waitFor({ timeout: 20_000 });
      expect(await page.locator("table.item-mappings tr td .muted").textContent()).to.match(/撤销/);
    } finally {
      await page.close();
    }
  });
});

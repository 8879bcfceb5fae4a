import { expect } from "chai";
import type { Page } from "playwright-core";
import { monthlyPanels } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { englishRead } from "./englishRead.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54, deliverable 4: history and mappings readable. The report history showed a bare
 * `REMAPPED` with empty details; the map and undo dialogs showed the dismiss dialog's example
 * reason; the conversion a mapping applied (urea mg/dL × 0.357) was never shown, and the chart then
 * read "31.4173 mmol/L"; the unmapped list stayed as it was until Refresh. Now the history says
 * which item was re-mapped to what, with the conversion, by the person who made the mapping; each
 * dialog has its own example; the mappings list shows the conversion; values are rounded to the
 * dictionary's decimals; the lists update themselves.
 */

const TENANT = "remap";
/** Three months of 张三's pre-dialysis urea, sent by the laboratory's in-house code in mg/dL. */
const UREA_MG_DL = [88, 86.5, 90];

describe("report history and item mappings readable (#54, deliverable 4) in chromium", function () {
  this.timeout(150_000);
  const staff = useStaffBrowserSuite(TENANT);

  const ready = (page: Page, selector: string) =>
    page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 20_000 });
  const unmappedRow = (page: Page, code: string) => page.locator(`table.unmapped-items tr[data-item-code="${code}"]`);

  before(async () => {
    const panels = monthlyPanels("UREA", 3, (i) => [
      { itemCode: "L-UREA", itemName: "本院尿素", value: UREA_MG_DL[i], unit: "mg/dL" },
      // A core item the chart draws whatever is mapped, so the reports stay listed there.
      { itemCode: "HGB", itemName: "血红蛋白", value: 112.4, unit: "g/L" },
    ]);
    expect((await staff.tenant.push("lab", panels)).body.data.accepted).to.equal(3);
    await until(
      async () =>
        (
          (await staff.tenant.call("GET", "/api/dictionary/unmapped", { token: staff.tenant.authorToken }))
            .body as unknown[]
        ).length === 1 || null,
      10_000,
    );
  });

  it("en: the map dialog has its own example; the mapped item leaves the unmapped list by itself; the conversion is shown", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#mappings" });
    try {
      await ready(page, ".page-mappings .page-body");
      expect(await page.locator(".page-mappings button.refresh").count(), "no Refresh button").to.equal(0);
      expect(await page.locator(".page-mappings .live-note").textContent()).to.equal(
        "Both lists update themselves; there is no need to reload.",
      );
      await unmappedRow(page, "L-UREA").locator("button.map").click();
      const dialog = page.locator("dialog.modal");
      const example = await dialog.locator("#map-reason-hint").textContent();
      expect(example, "the map dialog's own example").to.include("pre-dialysis urea");
      expect(example, "not the dismiss dialog's").not.to.include("dialysis patient of this centre");
      await dialog.locator("#map-standard").selectOption("UREA_PRE");
      await dialog.locator("#map-reason").fill("The in-house code of pre-dialysis urea");
      await expectAccessible(page, "the map dialog (en)");
      await dialog.locator("button[type=submit]").click();
      await dialog.waitFor({ state: "detached" });
      // Nothing clicked after the mapping: the list follows the re-mapping by itself.
      await page.locator("table.item-mappings tr[data-remap=DONE]").waitFor({ timeout: 30_000 });
      await unmappedRow(page, "L-UREA").waitFor({ state: "detached", timeout: 30_000 });
      const row = page.locator("table.item-mappings tr[data-remap=DONE]");
      expect(await row.locator("td.conversion").textContent()).to.equal("mg/dL × 0.357015 → mmol/L");
      expect(await row.locator("td.remap").textContent()).to.match(/done · 3 of 3 results/);
      await expectAccessible(page, "the mappings with their conversion (en)");
      await page.screenshot({ path: `${OUT}mappings-conversion-en.png`, fullPage: true });
    } finally {
      await page.close();
    }
  });

  it("en: the chart and its table show the converted urea rounded to the dictionary's one decimal", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#chart/P001" });
    try {
      await ready(page, ".page-chart .page-body");
      const urea = page.locator(".series-card[data-code=UREA_PRE]");
      // 90 mg/dL × 0.357015 = 32.13135: stored as 32.1314, shown as the laboratory would print it.
      expect(await urea.locator(".latest strong").textContent()).to.match(/^32\.1 mmol\/L · /);
      expect(await page.locator(".series-card[data-code=HGB] .latest strong").textContent()).to.match(/^112 g\/L · /);
      await page.getByRole("button", { name: "Table" }).click();
      const cells = await page
        .locator("table tr[data-code=UREA_PRE] td.number")
        .evaluateAll((tds) => tds.map((td) => td.textContent));
      expect(cells).to.deep.equal(["32.1 mmol/L", "30.9 mmol/L", "31.4 mmol/L"]);
      expect(await page.locator(".page-chart").textContent()).not.to.match(/\d\.\d{3,} mmol/);
      await page.screenshot({ path: `${OUT}chart-rounded-en.png`, fullPage: true });
    } finally {
      await page.close();
    }
  });

  it("en: the report's history says which item was re-mapped to what, with the conversion, by whom", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#chart/P001" });
    try {
      await ready(page, ".page-chart .page-body");
      await page.getByRole("button", { name: "History of report UREA-1" }).click();
      const dialog = page.locator("dialog.modal");
      await ready(page, "dialog .history-timeline");
      const remapped = dialog.locator("tr[data-event=REMAPPED]");
      expect(await remapped.count()).to.equal(1);
      expect(await remapped.locator("th").textContent()).to.equal("Items re-mapped");
      expect(await remapped.locator("td").nth(1).textContent(), "the person who made the mapping").to.equal(
        "Nurse Chen",
      );
      expect(await remapped.locator(".remap-line").textContent()).to.equal(
        "L-UREA · 本院尿素 88 mg/dL → Urea (pre) · Urea, pre-dialysis 31.4 mmol/L (mg/dL × 0.357015 → mmol/L)",
      );
      await expectAccessible(page, "the history with a re-mapping (en)");
      await page.screenshot({ path: `${OUT}history-remapped-en.png` });
      const answer = await staff.tenant.call("GET", "/api/history/lab/UREA-1", { token: staff.tenant.authorToken });
      const entry = answer.body.entries.find((one: { event: string }) => one.event === "REMAPPED");
      expect(entry).to.deep.include({ by: "Nurse Chen", stdCode: "UREA_PRE" });
      expect(entry.items).to.deep.equal([
        {
          itemCode: "L-UREA",
          itemName: "本院尿素",
          value: 88,
          unit: "mg/dL",
          stdValue: 31.4173,
          conversion: { unit: "mg/dL", factor: 0.357015, offset: 0 },
        },
      ]);
      expect(entry.standardItem).to.deep.include({ code: "UREA_PRE", unit: "mmol/L", decimals: 1 });
    } finally {
      await page.close();
    }
  });

  it("zh, 390 px: the undo dialog has its own example; the undone item and a newly pushed one come back to the list by themselves", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "zh", fragment: "#mappings" });
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await ready(page, ".page-mappings .page-body");
      await page.locator("table.item-mappings button.undo").click();
      const dialog = page.locator("dialog.modal");
      const example = await dialog.locator("#undo-reason-hint").textContent();
      expect(example, "the undo dialog's own example").to.include("透析后尿素");
      expect(example).not.to.include("非本中心透析患者");
      await dialog.locator("#undo-reason").fill("代码用错");
      await expectNoSidewaysScroll(page, "the undo dialog (zh, 390 px)");
      await expectAccessible(page, "the undo dialog (zh, 390 px)");
      await dialog.locator("button[type=submit]").click();
      await dialog.waitFor({ state: "detached" });
      await unmappedRow(page, "L-UREA").waitFor({ timeout: 30_000 });

      // A sender's new unknown item, pushed while the page is open, shows without a click.
      const pushed = await staff.tenant.push(
        "lab",
        monthlyPanels("NEWITEM", 1, () => [{ itemCode: "L-BNP", itemName: "本院脑钠肽", value: 420, unit: "pg/mL" }]),
      );
      expect(pushed.body.data.accepted).to.equal(1);
      await unmappedRow(page, "L-BNP").waitFor({ timeout: 30_000 });
      await expectNoSidewaysScroll(page, "the mappings page (zh, 390 px)");
      await expectAccessible(page, "the mappings page (zh, 390 px)");
      await page.screenshot({ path: `${OUT}mappings-live-zh-390.png`, fullPage: true });

      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#chart/P001`);
      await ready(page, ".page-chart .page-body");
      await page.getByRole("button", { name: "报告 UREA-1 的历史" }).click();
      await ready(page, "dialog .history-timeline");
      const lines = await page.locator("dialog tr[data-event=REMAPPED] .remap-line").allTextContents();
      expect(lines).to.deep.equal([
        // One language (issue #54): the label "Urea (pre)" is English words, so the Chinese name alone.
        "L-UREA · 本院尿素 88 mg/dL → 透析前尿素 31.4 mmol/L（mg/dL × 0.357015 → mmol/L）",
        "L-UREA · 本院尿素 88 mg/dL：映射已撤销，恢复为未映射",
      ]);
      expect(
        await englishRead(page, ["Nurse Chen", "Central lab LIS", TENANT]),
        "English read in the history (zh)",
      ).to.deep.equal([]);
      await expectNoSidewaysScroll(page, "the history (zh, 390 px)");
      await expectAccessible(page, "the history with a re-mapping undone (zh, 390 px)");
      await page.screenshot({ path: `${OUT}history-remapped-zh-390.png` });
      expect(staff.cspViolations).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
});

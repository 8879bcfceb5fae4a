import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { labReport, monthlyPanels } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { expectViewFits } from "./viewFits.ts";
import { OUT, useStaffBrowserSuite, signedInPage } from "./staffSuite.ts";

/*
 * Issue #34, item 1: the chart opened from a potassium alert showed nothing about potassium (it
 * drew only the core items). Now the alert's patient link opens the chart on the alert's item,
 * first, with the value that raised the alert marked; staff pick any other item the patient has;
 * a click on a chart opens the report of its nearest point. In English and Chinese, at a desk and
 * at a phone's 390 px.
 */

const TENANT = "h1";
/** Five monthly panels of 张三: haemoglobin (core), potassium and sodium (not core), all in range. */
const history = () =>
  monthlyPanels("MONTH", 5, (i) => [
    { itemCode: "HGB", value: 110 + i, unit: "g/L", refLow: 115, refHigh: 150 },
    { itemCode: "K", itemName: "钾", value: 4.5 + i / 10, unit: "mmol/L", refLow: 3.5, refHigh: 5.3 },
    { itemCode: "NA", itemName: "钠", value: 138, unit: "mmol/L", refLow: 137, refHigh: 147 },
  ]);

const WORDS = {
  en: {
    marked: "Marked result",
    shown: /^Items: 14 shown of 15$/,
    other: "This patient's other items",
    more: /^Items: 15 shown of 15$/,
    report: "Report CRIT-K",
    sheet: "Laboratory report",
  },
  zh: {
    marked: "标记的结果",
    shown: /^检验项目：显示 14 个，可选 15 个$/,
    other: "该患者的其他项目",
    more: /^检验项目：显示 15 个，可选 15 个$/,
    report: "报告 CRIT-K",
    sheet: "检验报告单",
  },
} as const;

describe("the patient chart opened from a critical result, on its item and value (#34 item 1) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT);
  let page: Page;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });
  const criticalAt = new Date(Date.now() - 3_600_000);

  before(async () => {
    expect((await staff.tenant.push("lab", history())).status).to.equal(200);
    const critical = labReport("CRIT-K", {
      panelName: "急诊电解质",
      collectedAt: localDateTime(criticalAt),
      reportedAt: localDateTime(new Date()),
      items: [
        { itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L", refLow: 3.5, refHigh: 5.3, abnormalFlag: "HH" },
      ],
    });
    expect((await staff.tenant.push("lab", [critical])).status).to.equal(200);
    await until(async () =>
      (
        (await staff.tenant.call("GET", "/api/alerts", { token: staff.tenant.authorToken })).body as Array<{
          externalId: string;
        }>
      ).some((alert) => alert.externalId === "CRIT-K"),
    );
    page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#alerts" });
  });

  for (const lang of ["en", "zh"] as const) {
    const words = WORDS[lang];

    it(`${lang}: the alert's patient opens the chart on potassium first, the alert's value marked in the card, the chart, the table and the reports`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#alerts`);
      await ready(".page-alerts .page-body");
      await page.locator("tr[data-external-id=CRIT-K] th a").click();
      await ready(".page-chart .page-body");
      expect(new URL(page.url()).hash).to.equal("#chart/P001?code=K&report=CRIT-K");

      const cards = page.locator(".series-card");
      expect(await cards.first().getAttribute("data-code"), "potassium first").to.equal("K");
      const k = page.locator(".series-card[data-code=K]");
      expect(await k.getAttribute("class")).to.equal("series-card focused");
      expect(await k.getAttribute("data-points")).to.equal("6");
      const marked = k.locator(".marked-result");
      expect(await marked.getAttribute("data-external-id")).to.equal("CRIT-K");
      expect(await marked.locator(".marked-label").textContent()).to.equal(words.marked);
      expect(await marked.locator("strong").textContent()).to.equal("6.9 mmol/L HH");
      expect(await marked.textContent())
        .to.include(localDateTime(criticalAt).slice(0, 16))
        .and.include("CRIT-K");
      await k.locator(".series-chart canvas").waitFor();
      expect(await k.locator(".series-chart").getAttribute("data-marked")).to.equal("CRIT-K");
      expect(await k.locator(".series-chart").getAttribute("aria-label")).to.include("6.9 mmol/L HH");
      // The core items are still drawn after it.
      expect(await page.locator(".series-card[data-code=HGB]").getAttribute("data-points")).to.equal("5");
      const listed = page.locator(".patient-report-list li[data-external-id=CRIT-K]");
      expect(await listed.getAttribute("class")).to.equal("marked");
      expect(await listed.locator(".marked-badge").textContent()).to.equal(words.marked);
      await page.screenshot({ path: `${OUT}chart-from-alert-${lang}.png`, fullPage: true });

      await page.locator(".view-toggle").click();
      const row = page.locator("table.results tr.marked");
      expect(await row.count()).to.equal(1);
      expect(await row.getAttribute("data-external-id")).to.equal("CRIT-K");
      expect(await row.locator(".number").textContent()).to.equal("6.9 mmol/L");
      await page.locator(".view-toggle").click();
      expect(staff.cspViolations).to.deep.equal([]);
    });

    it(`${lang}: offers every item the patient has beside the core ones, and draws one more when it is ticked`, async () => {
      const picker = page.locator(".item-picker");
      expect(await picker.locator("summary").textContent()).to.match(words.shown);
      await picker.locator("summary").click();
      const other = picker.locator(".item-group", { has: page.locator("legend", { hasText: words.other }) });
      expect(
        await other
          .locator(".item-option")
          .evaluateAll((options) => options.map((o) => (o as HTMLElement).dataset.code)),
      ).to.deep.equal(["K", "NA"]);
      expect(await other.locator(".item-option[data-code=K] input").isChecked()).to.equal(true);
      expect(await other.locator(".item-option[data-code=K]").textContent()).to.match(
        lang === "en"
          ? /^K · Potassium · 6 results, latest \d{4}-\d\d-\d\d \d\d:\d\d$/
          : /^钾 \(K\) · 6 个结果，最新 \d{4}-\d\d-\d\d \d\d:\d\d$/,
      );
      await other.locator(".item-option[data-code=NA] input").check();
      await page.locator(".series-card[data-code=NA]").waitFor();
      await ready(".page-chart .page-body");
      expect(await page.locator(".series-card[data-code=NA]").getAttribute("data-points")).to.equal("5");
      expect(await picker.locator("summary").textContent()).to.match(words.more);
      await expectAccessible(page, `the chart with its items open (${lang})`);
      await page.screenshot({ path: `${OUT}chart-items-${lang}.png`, fullPage: true });
      await other.locator(".item-option[data-code=NA] input").uncheck();
      await page.locator(".series-card[data-code=NA]").waitFor({ state: "detached" });
      await picker.locator("summary").click();
    });

    it(`${lang}: a click on the potassium chart opens the report of its nearest point, as printed`, async () => {
      const canvas = page.locator(".series-card[data-code=K] .series-chart canvas");
      const box = (await canvas.boundingBox())!;
      // The right end of the chart: nearest in time is the newest point, the critical one.
      await canvas.click({ position: { x: box.width - 14, y: box.height / 2 } });
      const dialog = page.locator("dialog.modal", { has: page.locator(".report-dialog-body") });
      await dialog.waitFor();
      expect(await dialog.locator(".modal-head h2").textContent()).to.equal(words.report);
      await ready("dialog .report-dialog-body");
      expect(await dialog.locator(".report-sheet h3").textContent()).to.match(
        new RegExp(`^${words.sheet} · 急诊电解质`),
      );
      expect(await dialog.locator("tr[data-item=K]").getAttribute("data-flag")).to.equal("HH");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
    });

    it(`${lang}: fits a phone's 390 px without sideways scroll, and axe-core finds nothing`, async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.reload();
        await ready(".page-chart .page-body");
        await page.locator(".series-card[data-code=K] .series-chart canvas").waitFor();
        await expectViewFits(page, `the chart opened from an alert at 390 px (${lang})`);
        await page.screenshot({ path: `${OUT}chart-from-alert-390-${lang}.png`, fullPage: true });
        await page.locator(".item-picker summary").click();
        await expectViewFits(page, `the chart's items at 390 px (${lang})`);
        await expectAccessible(page, `the chart opened from an alert at 390 px (${lang})`);
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });
  }
});

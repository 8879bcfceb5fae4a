import { expect } from "chai";
import type { Locator, Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { examReport, labReport, LI_SI, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { OUT, useStaffBrowserSuite, signedInPage } from "./staffSuite.ts";
import { expectViewFits } from "./viewFits.ts";

/*
 * Issue #34, item 7: a report could only be read as raw JSON (History → version 1). Now a lab
 * report shows as a laboratory prints it — the patient (id card masked), the times, each item with
 * its value, unit, reference range and flag — in the history, in the claim dialog before claiming,
 * and from the patient chart; an examination report with its findings and conclusion. The record
 * as received stays a click away. In English and Chinese, at a desk and at a phone's 390 px.
 */

const TENANT = "h1";
const taken = new Date(Date.now() - 2 * 86_400_000);

/** 张三's panel of two days ago, as the central laboratory signs it. */
const panel = () =>
  labReport("PANEL-1", {
    labName: "中心检验科",
    panelName: "肾功能电解质",
    reportNo: "L-2026-0042",
    collectedAt: localDateTime(taken),
    reportedAt: localDateTime(new Date(taken.getTime() + 3 * 3_600_000)),
    reporter: "王检验",
    reviewer: "赵主任",
    items: [
      { itemCode: "K", itemName: "钾", value: 5.9, unit: "mmol/L", refLow: 3.5, refHigh: 5.3, abnormalFlag: "H" },
      { itemCode: "HGB", itemName: "血红蛋白", value: 98, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: "L" },
      { itemCode: "NA", itemName: "钠", value: 140, unit: "mmol/L", refLow: 137, refHigh: 147, abnormalFlag: "N" },
      { itemCode: "X-LOCAL-42", itemName: "某本地项目", value: "阴性", resultType: "QUALITATIVE" },
    ],
  });

const WORDS = {
  en: {
    history: "History of report PANEL-1",
    version: "View version 1",
    viewReport: "View report PANEL-1",
    heading: "Laboratory report · 肾功能电解质Final",
    meta: /^Version 1 of 1 · received \d{4}-\d\d-\d\d \d\d:\d\d · from Central lab LIS$/,
    facts: [
      "Name",
      "张三",
      "ID card",
      "110105********002X",
      "HIS id",
      "H-1",
      "Report no.",
      "L-2026-0042",
      "Report id",
      "PANEL-1",
      "Specimen",
      "serum",
      "Collected",
      localDateTime(taken).slice(0, 16),
    ],
    head: ["Item", "Result", "Flag", "Unit", "Reference range"],
    // Under the laboratory's name and code, the standard item by its label and English name (#34 item 5).
    k: ["钾KK · Potassium", "5.9", "↑ H high", "mmol/L", "3.5–5.3"],
    hgb: ["血红蛋白HGBHb · Hemoglobin", "98", "↓ L low", "g/L", "115–150"],
    na: ["钠NANa · Sodium", "140", "", "mmol/L", "137–147"],
    signoff: ["Reported by", "王检验", "Reviewed by", "赵主任"],
    record: "The record as received (JSON)",
    claim: (id: string) => `Claim report ${id}`,
    theReport: "The report",
    exam: "Examination report · 超声心动图Final",
    findings: ["Findings", "左室壁增厚", "Conclusion", "左室舒张功能减低"],
  },
  zh: {
    history: "报告 PANEL-1 的历史",
    version: "查看第 1 版",
    viewReport: "查看报告 PANEL-1",
    heading: "检验报告单 · 肾功能电解质正式报告",
    meta: /^第 1 版（共 1 版）· \d{4}-\d\d-\d\d \d\d:\d\d 收到 · 来自 Central lab LIS$/,
    facts: [
      "姓名",
      "张三",
      "身份证号",
      "110105********002X",
      "HIS 号",
      "H-1",
      "报告单号",
      "L-2026-0042",
      "报告编号",
      "PANEL-1",
      "标本",
      "血清",
      "采集时间",
      localDateTime(taken).slice(0, 16),
    ],
    head: ["项目", "结果", "提示", "单位", "参考范围"],
    // 钾 (K) is printed already; 血红蛋白 (Hb) adds the label.
    k: ["钾K", "5.9", "↑ H 偏高", "mmol/L", "3.5–5.3"],
    hgb: ["血红蛋白HGB血红蛋白 (Hb)", "98", "↓ L 偏低", "g/L", "115–150"],
    na: ["钠NA", "140", "", "mmol/L", "137–147"],
    signoff: ["报告者", "王检验", "审核者", "赵主任"],
    record: "收到时的原始记录（JSON）",
    claim: (id: string) => `认领报告 ${id}`,
    theReport: "报告内容",
    exam: "检查报告单 · 超声心动图正式报告",
    findings: ["检查所见", "左室壁增厚", "结论", "左室舒张功能减低"],
  },
} as const;

const cellsOf = (row: Locator) => row.locator("th, td").evaluateAll((cells) => cells.map((cell) => cell.textContent));
const factsOf = (sheet: Locator, list: string) =>
  sheet.locator(`${list} dt, ${list} dd`).evaluateAll((cells) => cells.map((cell) => cell.textContent));

describe("reports shown as a laboratory prints them (#34 item 7) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT);
  let page: Page;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });
  const dialog = () => page.locator("dialog.modal");
  const close = async () => {
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
  };

  /** The printed lab report of PANEL-1, whichever way it was opened. */
  async function expectPrintedPanel(sheet: Locator, words: (typeof WORDS)["en" | "zh"]): Promise<void> {
    expect(await sheet.locator(".report-issuer").textContent()).to.equal("中心检验科");
    expect(await sheet.locator(".report-sheet-head :is(h3, h4)").textContent()).to.equal(words.heading);
    expect(await sheet.locator(".report-meta").textContent()).to.match(words.meta);
    expect((await factsOf(sheet, ".report-facts")).slice(0, words.facts.length)).to.deep.equal(words.facts);
    expect(await sheet.textContent(), "the id card is masked").not.to.include(ZHANG_SAN.idCard);
    expect(await sheet.locator("table.report-items thead th").allTextContents()).to.deep.equal(words.head);
    expect(await cellsOf(sheet.locator("tr[data-item=K]"))).to.deep.equal(words.k);
    expect(await cellsOf(sheet.locator("tr[data-item=HGB]"))).to.deep.equal(words.hgb);
    expect(await cellsOf(sheet.locator("tr[data-item=NA]"))).to.deep.equal(words.na);
    expect(await cellsOf(sheet.locator("tr[data-item=X-LOCAL-42]"))).to.deep.equal([
      "某本地项目X-LOCAL-42",
      "阴性",
      "",
      "",
      "",
    ]);
    expect(await factsOf(sheet, ".report-signoff")).to.deep.equal(words.signoff);
  }

  before(async () => {
    const pushed = await staff.tenant.push("lab", [
      panel(),
      labReport("WAIT-1", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } }),
    ]);
    expect(pushed.body.data.results.map((result: { matched: boolean }) => result.matched)).to.deep.equal([true, false]);
    expect(
      (await staff.tenant.push("exam", [examReport("ECHO-1", { patient: { idCard: LI_SI.idCard, name: LI_SI.name } })]))
        .status,
    ).to.equal(200);
    await until(async () => (await staff.tenant.unmatched()).length === 2, 10_000);
    page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#patients" });
  });

  for (const lang of ["en", "zh"] as const) {
    const words = WORDS[lang];

    it(`${lang}: prints version 1 in a report's history, the record as received folded beneath it`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#chart/P001`);
      await ready(".page-chart .page-body");
      await page.getByRole("button", { name: words.history }).click();
      await ready("dialog .history-timeline");
      await dialog().getByRole("button", { name: words.version }).click();
      await ready("dialog .history-detail-body");
      const sheet = dialog().locator(".report-sheet");
      await expectPrintedPanel(sheet, words);
      const record = dialog().locator("details.report-record");
      expect(await record.locator("summary").textContent()).to.equal(words.record);
      expect(await record.getAttribute("open"), "folded").to.equal(null);
      await record.locator("summary").click();
      expect(JSON.parse((await record.locator(".report-json").textContent())!)).to.deep.include({
        externalId: "PANEL-1",
        reportNo: "L-2026-0042",
      });
      await page.screenshot({ path: `${OUT}report-history-${lang}.png`, fullPage: true });
      await expectAccessible(page, `the printed report in the history (${lang})`);
      await close();
    });

    it(`${lang}: opens the report as printed from the patient chart's reports`, async () => {
      await page.getByRole("button", { name: words.viewReport }).click();
      await ready("dialog .report-dialog-body");
      await expectPrintedPanel(dialog().locator(".report-sheet"), words);
      await page.screenshot({ path: `${OUT}report-from-chart-${lang}.png` });
      await close();
    });

    it(`${lang}: shows the report as printed before claiming it, a lab report and an examination report`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#unmatched`);
      await ready(".page-unmatched .page-body");
      await page.getByRole("button", { name: words.claim("WAIT-1") }).click();
      const preview = dialog().locator("details.report-preview");
      expect(await preview.locator("summary").textContent()).to.equal(words.theReport);
      await preview.locator("summary").click();
      await ready("dialog .report-preview-body");
      const lab = preview.locator(".report-sheet");
      expect((await factsOf(lab, ".report-facts")).slice(0, 4)).to.deep.equal([
        words.facts[0],
        "李四",
        words.facts[2],
        "440524********0014",
      ]);
      expect(await dialog().textContent(), "the id card is masked").not.to.include(LI_SI.idCard);
      expect(await cellsOf(lab.locator("tr[data-item=K]"))).to.deep.equal([
        words.k[0],
        "5.6",
        words.k[2],
        "mmol/L",
        "",
      ]);
      await page.screenshot({ path: `${OUT}report-before-claim-${lang}.png` });
      await close();

      await page.getByRole("button", { name: words.claim("ECHO-1") }).click();
      await dialog().locator("details.report-preview summary").click();
      await ready("dialog .report-preview-body");
      const exam = dialog().locator(".report-sheet-exam");
      expect(await exam.locator(".report-sheet-head h3").textContent()).to.equal(words.exam);
      expect(
        await exam
          .locator(".report-text")
          .evaluateAll((sections) =>
            sections.flatMap((s) => [s.querySelector("h4")!.textContent, s.querySelector("p")!.textContent]),
          ),
      ).to.deep.equal(words.findings);
      expect(await cellsOf(exam.locator("tr[data-item=LVEF]"))).to.deep.equal(["左室射血分数LVEF", "62", "%"]);
      await expectAccessible(page, `an examination report before claiming (${lang})`);
      await close();
    });

    it(`${lang}: fits a phone's 390 px, and axe-core finds nothing in the printed reports`, async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.getByRole("button", { name: words.claim("WAIT-1") }).click();
        await dialog().locator("details.report-preview summary").click();
        await ready("dialog .report-preview-body");
        await expectViewFits(page, `a lab report before claiming at 390 px (${lang})`);
        await expectAccessible(page, `a lab report before claiming at 390 px (${lang})`);
        await page.screenshot({ path: `${OUT}report-before-claim-390-${lang}.png` });
        await close();

        await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#chart/P001`);
        await ready(".page-chart .page-body");
        await page.getByRole("button", { name: words.viewReport }).click();
        await ready("dialog .report-dialog-body");
        await expectViewFits(page, `the printed report from the chart at 390 px (${lang})`);
        await expectAccessible(page, `the printed report from the chart at 390 px (${lang})`);
        await page.screenshot({ path: `${OUT}report-from-chart-390-${lang}.png` });
        await close();

        await page.getByRole("button", { name: words.history }).click();
        await ready("dialog .history-timeline");
        await dialog().getByRole("button", { name: words.version }).click();
        await ready("dialog .history-detail-body");
        await expectViewFits(page, `the printed report in the history at 390 px (${lang})`);
        await close();
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      expect(staff.cspViolations).to.deep.equal([]);
    });
  }
});

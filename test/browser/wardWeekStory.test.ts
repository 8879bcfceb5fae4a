import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN } from "../support/http.ts";
import { labReport } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { previewAfter } from "./editorPreview.ts";
import { englishRead } from "./englishRead.ts";
import { OUT, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54's "done when", as one story in Chromium: a nurse of ward A signs in on her phone
 * (390 px) and lands on her alerts; a potassium both critical and far from her patient's last is
 * one alert, acknowledged once; she reads everything in Chinese (the English-read check) and
 * prints the lab report once. An author then builds a month × ward chart by picking the query's
 * columns in the editor, in Chinese. Screenshots at 390 px in zh and en.
 */

const TENANT = "ward-week";
const PHONE = { width: 390, height: 844 };
/** Names the fixture gives (a laboratory, the tenant's author, the nurse) and the author's query's words. */
const NAMES = [
  "Central lab LIS",
  "Central lab",
  "Nurse Chen",
  "Nurse Li",
  TENANT,
  "month",
  "ward",
  "patients",
  "query1",
  "node1",
  "ktv",
];
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
const potassium = (externalId: string, value: number, collectedAt: string, flag?: string) =>
  labReport(externalId, {
    collectedAt,
    reportedAt: localDateTime(new Date()),
    // With the haemoglobin, a core item the chart draws, so the report is listed there.
    items: [
      { itemCode: "K", itemName: "钾", value, unit: "mmol/L", ...(flag ? { abnormalFlag: flag } : {}) },
      { itemCode: "HGB", itemName: "血红蛋白", value: 112, unit: "g/L" },
    ],
  });
const MONTH_BY_WARD = [
  "select month, ward, patients",
  "from (values ('2026-01-01'::date, 'A', 12), ('2026-01-01'::date, 'B', 9),",
  "             ('2026-02-01'::date, 'A', 13), ('2026-02-01'::date, 'B', 10)) as t(month, ward, patients)",
  "order by month, ward",
].join("\n");

describe("a week on a Chinese dialysis ward (issue #54, done when) in chromium", function () {
  this.timeout(180_000);
  const staff = useStaffBrowserSuite(TENANT);
  let nurseToken = "";

  const signIn = async (page: Page, lang: "zh" | "en", token: string) => {
    // The bare address: where she lands is her role's page.
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}`);
    await page.locator("#sign-in-token").fill(token);
    await page.locator("#sign-in-token").press("Enter");
    await page.locator(".who").waitFor();
  };
  const chinese = async (page: Page, what: string) =>
    expect(await englishRead(page, NAMES), `English read on ${what}`).to.deep.equal([]);

  before(async () => {
    const nurse = await staff.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Nurse Li", tenant: TENANT, roles: ["clinician"], wards: ["A"] },
    });
    expect(nurse.status).to.equal(201);
    nurseToken = nurse.body.token;
    const other = await staff.tenant.call("PUT", "/api/patients/P-B", {
      token: ADMIN,
      body: { name: "王五", idCard: makeIdCard("110105", "19480202", 7), ward: "B" },
    });
    expect(other.status).to.equal(200);
    // 张三 (ward A): potassium 4.0 two days ago, then 6.9 flagged HH: critical and beyond the delta limit.
    expect((await staff.tenant.push("lab", [potassium("WEEK-K-1", 4.0, hoursAgo(48))])).status).to.equal(200);
    expect((await staff.tenant.push("lab", [potassium("WEEK-K-2", 6.9, hoursAgo(1), "HH")])).status).to.equal(200);
    await until(
      async () => ((await staff.tenant.call("GET", "/api/alerts?state=open", { token: ADMIN })).body as []).length >= 1,
      15_000,
    );
  });

  it("the nurse lands on her alerts on her phone, in Chinese: one alert for the critical result, acknowledged once", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(PHONE);
      await signIn(page, "zh", nurseToken);
      await page.locator(".page-alerts .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      expect(page.url(), "her role's page").to.match(/#alerts$/);
      const rows = page.locator("tr[data-external-id=WEEK-K-2]");
      await rows.first().waitFor();
      expect(await rows.count(), "one result, one alert").to.equal(1);
      expect(await page.locator("[data-kind-tab]").allTextContents()).to.deep.equal(["危急值 1", "差值核查 0"]);
      expect(await page.locator(".alert-badge").getAttribute("data-open-alerts")).to.equal("1");
      await chinese(page, "her alerts");
      await expectNoSidewaysScroll(page, "her alerts at 390 px");
      await expectAccessible(page, "her alerts (zh, 390 px)");
      await page.screenshot({ path: `${OUT}ward-week-alerts-zh-390.png`, fullPage: true });

      await rows.locator("button.acknowledge").click();
      const dialog = page.locator("dialog.modal");
      await dialog.locator("#acknowledge-note").fill("已通知王医生，复查血钾");
      await chinese(page, "the acknowledge dialog");
      await dialog.locator("button[type=submit]").click();
      await dialog.waitFor({ state: "detached" });
      await rows.waitFor({ state: "detached" });
      await page.locator(".alert-badge[data-open-alerts='0']").waitFor({ state: "attached" });
      expect(
        ((await staff.tenant.call("GET", "/api/alerts?state=open", { token: ADMIN })).body as []).length,
        "nothing more to acknowledge for that result",
      ).to.equal(0);
    } finally {
      await page.close();
    }
  });

  it("she reads her patient's chart and report in Chinese, and prints the report once", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(PHONE);
      await signIn(page, "zh", nurseToken);
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#chart/P001`);
      await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      await chinese(page, "the chart");
      await page.getByRole("button", { name: "查看报告 WEEK-K-2" }).click();
      const dialog = page.locator("dialog.modal");
      await dialog.locator(".report-dialog-body[data-state=ready]").waitFor();
      await chinese(page, "the lab report");
      await expectNoSidewaysScroll(page, "the lab report at 390 px");
      await page.screenshot({ path: `${OUT}ward-week-report-zh-390.png`, fullPage: true });
      await page.evaluate(() => {
        const counted = window as unknown as { prints: number };
        counted.prints = 0;
        // Counted, not printed: a headless print would wait for nobody.
        window.print = () => void counted.prints++;
      });
      await dialog.getByRole("button", { name: "打印报告 WEEK-K-2" }).click();
      expect(await page.evaluate(() => (window as unknown as { prints: number }).prints), "one print").to.equal(1);
    } finally {
      await page.close();
    }
  });

  it("reads the same alerts in English on the phone (screenshot)", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(PHONE);
      await signIn(page, "en", nurseToken);
      await page.locator(".page-alerts .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      await page.locator("[data-state-tab=acknowledged]").click();
      await page.locator("table.alerts-acknowledged tr[data-external-id=WEEK-K-2]").waitFor();
      await expectNoSidewaysScroll(page, "her acknowledged alerts at 390 px (en)");
      await page.screenshot({ path: `${OUT}ward-week-alerts-en-390.png`, fullPage: true });
    } finally {
      await page.close();
    }
  });

  it("an author builds a month × ward chart by picking the query's columns, in Chinese", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize({ width: 1366, height: 900 });
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#new`);
      await page.locator("#sign-in-token").fill(staff.tenant.authorToken);
      await page.locator("#sign-in-token").press("Enter");
      await page.locator(".page-editor .editor").waitFor();
      await page.getByLabel("报表标识").fill("ward-months");
      await page.getByLabel("标题", { exact: true }).fill("各病区每月患者数");
      await page.getByRole("button", { name: "添加查询" }).click();
      await page.getByRole("textbox", { name: "查询 query1 的 SQL", exact: true }).click();
      await page.keyboard.press("Control+A");
      await page.keyboard.press("Delete");
      await page.keyboard.insertText(MONTH_BY_WARD);
      await page.getByRole("button", { name: "添加内容" }).click();
      await previewAfter(page, () => page.getByRole("button", { name: "保存并预览" }).click());
      const card = page.locator('.spec-card[data-path="nodes[0]"]');
      await card.getByLabel("类型", { exact: true }).selectOption("chart");
      await card.getByLabel("图表类型").selectOption("bar");
      await page.waitForFunction(() =>
        document.querySelector('.spec-card[data-path="nodes[0]"] select[data-path="nodes[0].x"]'),
      );
      // Picked from the result's columns, not typed.
      const x = card.getByLabel("横轴列");
      expect(await x.locator("option").allTextContents()).to.deep.equal(["（选择列）", "month", "ward", "patients"]);
      await x.selectOption("month");
      await card.getByRole("checkbox", { name: "patients" }).first().check();
      await card.getByLabel("分组（系列）列").selectOption("ward");
      const frame = await previewAfter(page, () => page.getByRole("button", { name: "保存并预览" }).click());
      const chart = frame.locator(".chart[data-series]");
      await chart.waitFor();
      expect(await chart.getAttribute("data-series"), "a series per ward").to.equal("A|B");
      expect(await chart.getAttribute("data-categories"), "each month once").to.equal("2");
      await chinese(page, "the editor with the chart");
      await expectAccessible(page, "the editor with a month × ward chart (zh)");
      await page.screenshot({ path: `${OUT}ward-week-editor-zh.png` });
      expect(staff.cspViolations).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
});

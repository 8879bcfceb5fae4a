import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { labReport } from "../support/ingestion.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { englishRead } from "./englishRead.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Contract F.3 in the browser, on a phone: a specimen mix-up (张三's potassium 3.6, then 5.4 two
 * days later, neither critical) pushed over the open API shows on the open alerts page under
 * "Delta checks", apart from critical results, without a reload; in English and in Chinese, with
 * the previous result and the change, no sideways scroll and no axe-core violation.
 */

const TENANT = "dx";
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
const potassium = (externalId: string, value: number, collectedAt: string) =>
  labReport(externalId, {
    collectedAt,
    reportedAt: localDateTime(new Date()),
    items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L" }],
  });

describe("delta checks in chromium at 390 px", function () {
  this.timeout(90_000);
  const staff = useStaffBrowserSuite(TENANT, {
    viewport: { width: 390, height: 844 },
    env: { ALERT_STREAM_HEARTBEAT_SECONDS: "5" },
  });
  const ready = (page: Page) => page.locator(".page-alerts .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
  const fine = async (page: Page, what: string) => {
    await expectNoSidewaysScroll(page, what);
    await expectAccessible(page, what);
  };
  /** When the first sample was taken, as the page shows it. */
  const before = hoursAgo(48);
  const shownBefore = before.slice(0, 16);

  it("shows the mix-up pushed over the open API under Delta checks without a reload, apart from critical results (en)", async () => {
    expect((await staff.tenant.push("lab", [potassium("DX-BEFORE", 3.6, before)])).status).to.equal(200);
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#alerts" });
    await ready(page);
    await page.locator(".live[data-live=true]").waitFor();
    // Each kind's tab says how many of its alerts wait (decision 0073).
    expect(await page.locator("[data-kind-tab]").allTextContents()).to.deep.equal([
      "Critical results 0",
      "Delta checks 0",
    ]);
    await page.locator("[data-kind-tab=DELTA]").click();
    // The critical tab's empty list stands until the delta one replaces it.
    await page.locator(".page-alerts .empty", { hasText: "No delta alert waits to be acknowledged." }).waitFor();
    expect(await page.locator("h1").textContent()).to.equal("Result alerts");
    expect(await page.locator(".kind-intro").textContent(), "the tab's own intro").to.match(
      /^A result that differs from the same patient's previous result/,
    );

    expect((await staff.tenant.push("lab", [potassium("DX-AFTER", 5.4, hoursAgo(1))])).status).to.equal(200);
    const row = page.locator("tr[data-external-id=DX-AFTER]");
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getAttribute("class")).to.equal("fresh");
    expect(await row.locator(".critical-value").textContent()).to.equal("5.4 mmol/L");
    expect(await row.locator(".delta-change").textContent()).to.equal("Change: +1.8 mmol/L");
    expect(await row.locator(".delta .sub").allTextContents()).to.deep.equal([
      `Previous result: 3.6 mmol/L (${shownBefore})`,
      "limit 1.5 mmol/L within 30 days",
    ]);
    expect(await page.locator(".status").textContent()).to.equal(
      "New delta alert: 张三 K · Potassium changed by +1.8 mmol/L",
    );
    await page.locator(".alert-badge[data-open-alerts='1']").waitFor();
    expect(await page.locator(".alert-badge").getAttribute("aria-label")).to.equal(
      "0 critical results and 1 delta alert to acknowledge",
    );
    await fine(page, "the delta alerts (en)");
    await page.screenshot({ path: `${OUT}phone-en-delta-alerts.png`, fullPage: true });

    await page.locator("[data-kind-tab=CRITICAL]").click();
    await page.locator(".page-alerts .empty", { hasText: "No critical result waits to be acknowledged." }).waitFor();
    expect(await page.locator("tr[data-external-id=DX-AFTER]").count(), "not among critical results").to.equal(0);
    expect(await page.locator(".kind-intro").textContent()).to.match(/^A result the laboratory flagged LL or HH/);
    await page.close();
  });

  it("says it in Chinese, acknowledges it with a note, and the report's history names it a delta alert (zh)", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "zh", fragment: "#alerts" });
    await ready(page);
    expect(await page.locator("h1").textContent()).to.equal("结果提醒");
    expect(await page.locator("[data-kind-tab]").allTextContents()).to.deep.equal(["危急值 0", "差值核查 1"]);
    await page.locator("[data-kind-tab=DELTA]").click();
    const row = page.locator("tr[data-external-id=DX-AFTER]");
    await row.waitFor();
    expect(await row.locator(".delta-change").textContent()).to.equal("变化：+1.8 mmol/L");
    expect(await row.locator(".delta .sub").allTextContents()).to.deep.equal([
      `前次结果：3.6 mmol/L（${shownBefore}）`,
      "界限 1.5 mmol/L，30 天内",
    ]);
    await fine(page, "the delta alerts (zh)");
    await page.screenshot({ path: `${OUT}phone-zh-delta-alerts.png`, fullPage: true });

    await row.locator("button.history").click();
    const raised = page.locator("dialog.modal tr[data-event=ALERT_RAISED]");
    await raised.waitFor();
    expect(await raised.locator("th").textContent()).to.equal("差值提醒");
    // The service's worker in the page's words, not its recorded name "delta-checks" (issue #54).
    expect(await raised.locator("td[data-by=delta-checks]").textContent()).to.equal("系统（差值核查）");
    expect(
      await englishRead(page, ["Nurse Chen", "Central lab LIS", TENANT]),
      "English read in the history (zh)",
    ).to.deep.equal([]);
    expect(await raised.locator("td").last().textContent()).to.contain(
      `较 ${before.slice(0, 10)} 的 3.6 mmol/L 变化 +1.8 mmol/L，超出 30 天内差值界限 1.5 mmol/L`,
    );
    await fine(page, "the report's history with its delta alert (zh)");
    await page.keyboard.press("Escape");
    await page.locator("dialog.modal").waitFor({ state: "detached" });

    await row.locator("button.acknowledge").click();
    const dialog = page.locator("dialog.modal");
    await dialog.locator("#acknowledge-note").fill("已重新抽血复查，原标本贴错标签");
    await fine(page, "the delta alert's acknowledge dialog (zh)");
    await dialog.locator("button[type=submit]").click();
    await dialog.waitFor({ state: "detached" });
    await row.waitFor({ state: "detached" });
    await page.locator("[data-state-tab=acknowledged]").click();
    const acknowledged = page.locator("table.alerts-acknowledged tr[data-external-id=DX-AFTER]");
    await acknowledged.waitFor();
    expect(await acknowledged.locator(".outcome").textContent()).to.contain("已重新抽血复查，原标本贴错标签");
    expect(staff.cspViolations).to.deep.equal([]);
    await page.close();
  });

  it("notes the change under the result in the chart's table, in both languages", async () => {
    for (const [lang, note, table] of [
      ["en", `changed by +1.8 mmol/L from 3.6 mmol/L on ${shownBefore}, beyond the delta limit`, "Table"],
      ["zh", `较 ${shownBefore} 的 3.6 mmol/L 变化 +1.8 mmol/L，超出差值界限`, "表格"],
    ] as const) {
      const page = await signedInPage(staff, TENANT, { lang, fragment: "#chart/P001?code=K&report=DX-AFTER" });
      await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      await page.getByRole("button", { name: table }).click();
      const after = page.locator("table.results tr[data-external-id=DX-AFTER]");
      await after.waitFor();
      expect(await after.locator(".delta-note").textContent()).to.equal(note);
      expect(await page.locator("table.results tr[data-external-id=DX-BEFORE] .delta-note").count()).to.equal(0);
      await fine(page, `the chart's table with a delta note (${lang})`);
      await page.close();
    }
  });
});

import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54, deliverable 1, as a ward nurse meets it in Chromium (contract F.3 as amended; decision
 * 0073): 张三's potassium 6.9 (HH), two days after 5.0, is critical and beyond its delta limit. The
 * nurse sees ONE alert carrying both reasons, acknowledges it once, and the badge goes to 0. The
 * repeat after treatment, 5.1 inside the laboratory's range 3.5–5.3, shows under Delta checks "For
 * information", with nothing to acknowledge, and the badge stays 0. The badge and the kind tabs'
 * counts agree throughout; each view in English and Chinese, at 390 and 1366 px, fits and is
 * axe-clean.
 */

const TENANT = "one";
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
const potassium = (externalId: string, value: number, hours: number, abnormalFlag: string) =>
  labReport(externalId, {
    collectedAt: hoursAgo(hours),
    reportedAt: hoursAgo(Math.max(0, hours - 0.5)),
    items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L", refLow: 3.5, refHigh: 5.3, abnormalFlag }],
  });

describe("one result, one alert: a nurse in chromium", function () {
  this.timeout(180_000);
  const staff = useStaffBrowserSuite(TENANT, { env: { ALERT_STREAM_HEARTBEAT_SECONDS: "5" } });
  let nurseToken: string;

  before(async () => {
    const made = await staff.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Nurse Wang", tenant: TENANT, roles: ["clinician"], wards: ["A"] },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    nurseToken = made.body.token as string;
  });

  const ready = (page: Page) => page.locator(".page-alerts .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
  const badge = (page: Page) => page.locator(".alert-badge[data-counted=true]");
  const tabCounts = async (page: Page) =>
    Object.fromEntries(
      await Promise.all(
        ["CRITICAL", "DELTA"].map(
          async (kind) => [kind, await page.locator(`[data-kind-tab=${kind}] .tab-count`).textContent()] as const,
        ),
      ),
    );
  /** The view fits and is axe-clean at a phone's and a desktop's width, with a screenshot of each. */
  const looksRight = async (page: Page, name: string) => {
    for (const width of [390, 1366]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await expectNoSidewaysScroll(page, `${name} at ${width} px`);
      await expectAccessible(page, `${name} at ${width} px`);
      await page.screenshot({ path: `${OUT}alert-per-result-${name}-${width}.png`, fullPage: true });
    }
  };

  it("shows a potassium both critical and beyond its delta limit as one alert with both reasons; acknowledged once, the badge goes to 0 (en)", async () => {
    expect((await staff.tenant.push("lab", [potassium("K-BEFORE", 5.0, 48, "N")])).status).to.equal(200);
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#alerts" }, nurseToken);
    await ready(page);
    await page.locator(".live[data-live=true]").waitFor();

    expect((await staff.tenant.push("lab", [potassium("K-CRITICAL", 6.9, 1, "HH")])).status).to.equal(200);
    const row = page.locator("tr[data-external-id=K-CRITICAL]");
    await row.waitFor({ timeout: 15_000 });
    await projectionsCaughtUp(staff.service.url!);
    await page.locator(".alert-badge[data-open-alerts='1']").waitFor();
    await page.locator("[data-kind-tab=CRITICAL] .tab-count[data-count='1']").waitFor();
    expect(await page.locator("table.alerts tbody tr").count(), "one alert for the one result").to.equal(1);
    expect(await badge(page).textContent(), "the badge counts what the list shows").to.equal("1");
    expect(await tabCounts(page)).to.deep.equal({ CRITICAL: "1", DELTA: "0" });
    expect(await row.getAttribute("data-reasons")).to.equal("critical delta");
    expect(await row.locator(".critical-reason").textContent()).to.equal("flagged HH by the laboratory");
    expect(await row.locator(".also-delta-label").textContent()).to.equal("Also beyond the delta limit");
    expect(await row.locator(".delta-change").textContent()).to.equal("Change: +1.9 mmol/L");
    expect(await page.locator(".status").textContent()).to.equal(
      "New critical result: 张三 K · Potassium 6.9 mmol/L (HH)",
    );
    await looksRight(page, "one-alert-en");

    // The same alert in Chinese: one row, both reasons, the badge and the tab agreeing.
    const zh = await signedInPage(staff, TENANT, { lang: "zh", fragment: "#alerts" }, nurseToken);
    await ready(zh);
    await zh.locator(".alert-badge[data-open-alerts='1']").waitFor();
    expect(await tabCounts(zh)).to.deep.equal({ CRITICAL: "1", DELTA: "0" });
    expect(await zh.locator("table.alerts tbody tr").count()).to.equal(1);
    const zhRow = zh.locator("tr[data-external-id=K-CRITICAL]");
    expect(await zhRow.locator(".critical-reason").textContent()).to.equal("实验室标记为 HH");
    expect(await zhRow.locator(".also-delta-label").textContent()).to.equal("同时超出差值界限");
    expect(await zhRow.locator(".delta-change").textContent()).to.equal("变化：+1.9 mmol/L");
    expect(await zh.locator("[data-kind-tab=CRITICAL]").getAttribute("aria-label")).to.equal("危急值，1 条待确认");
    await looksRight(zh, "one-alert-zh");
    await zh.close();

    // Under Delta checks, nothing waits: the change is the critical alert's.
    await page.locator("[data-kind-tab=DELTA]").click();
    await page.locator(".page-alerts .empty", { hasText: "No delta alert waits to be acknowledged." }).waitFor();

    await page.locator("[data-kind-tab=CRITICAL]").click();
    await row.locator("button.acknowledge").click();
    const dialog = page.locator("dialog.modal");
    expect(await dialog.locator(".critical-summary").textContent()).to.contain(
      "Also beyond the delta limit +1.9 mmol/L",
    );
    await dialog.locator("#acknowledge-note").fill("Dr. Li told; dialysate K lowered, K repeated after the session");
    await dialog.locator("button[type=submit]").click();
    await dialog.waitFor({ state: "detached" });
    await row.waitFor({ state: "detached" });
    await page.locator(".alert-badge[data-open-alerts='0']").waitFor({ state: "attached" });
    expect(await badge(page).isHidden(), "nothing left to acknowledge").to.equal(true);
    await page.locator("[data-kind-tab=CRITICAL] .tab-count[data-count='0']").waitFor();
    expect(await tabCounts(page)).to.deep.equal({ CRITICAL: "0", DELTA: "0" });
    expect(staff.cspViolations).to.deep.equal([]);
    await page.close();
  });

  it("shows the repeat after treatment, back inside the reference range, for information with nothing to acknowledge; the badge stays 0 (en, zh)", async () => {
    expect((await staff.tenant.push("lab", [potassium("K-REPEAT", 5.1, 0.5, "N")])).status).to.equal(200);
    await projectionsCaughtUp(staff.service.url!);
    for (const [lang, words] of [
      [
        "en",
        {
          delta: "Delta checks",
          info: "For information",
          back: "Back inside the reference range",
          change: "Change: -1.8 mmol/L",
          empty: "No delta alert waits to be acknowledged.",
        },
      ],
      [
        "zh",
        {
          delta: "差值核查",
          info: "仅供参考",
          back: "已回到参考范围内",
          change: "变化：-1.8 mmol/L",
          empty: "没有待确认的差值提醒。",
        },
      ],
    ] as const) {
      const page = await signedInPage(staff, TENANT, { lang, fragment: "#alerts" }, nurseToken);
      await ready(page);
      await badge(page).waitFor({ state: "attached" });
      expect(await badge(page).getAttribute("data-open-alerts"), "the badge stays 0").to.equal("0");
      expect(await badge(page).isHidden()).to.equal(true);
      expect(await tabCounts(page)).to.deep.equal({ CRITICAL: "0", DELTA: "0" });
      expect(await page.locator("[data-state-tab=info]").isHidden(), "no information among critical results").to.equal(
        true,
      );

      await page.locator("[data-kind-tab=DELTA]").click();
      await page.locator(".page-alerts .empty", { hasText: words.empty }).waitFor();
      expect(await page.locator("[data-kind-tab=DELTA]").getAttribute("aria-label")).to.contain(words.delta);
      const infoTab = page.locator("[data-state-tab=info]");
      expect(await infoTab.textContent()).to.equal(words.info);
      await infoTab.click();
      const row = page.locator("table.alerts-info tr[data-external-id=K-REPEAT]");
      await row.waitFor();
      expect(await row.getAttribute("data-severity")).to.equal("info");
      expect(await row.locator(".info-value").textContent()).to.equal("5.1 mmol/L (N)");
      expect(await row.locator(".back-in-range").textContent()).to.equal(words.back);
      expect(await row.locator(".delta-change").textContent()).to.equal(words.change);
      expect(await row.locator("button.acknowledge").count(), "nothing to acknowledge").to.equal(0);
      expect(await row.locator("button.history").count()).to.equal(1);
      await looksRight(page, `information-${lang}`);
      await page.close();
    }
    expect(staff.cspViolations).to.deep.equal([]);
  });
});

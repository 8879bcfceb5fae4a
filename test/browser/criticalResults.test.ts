import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { labReport, monthlyPanels } from "../support/ingestion.ts";
import { OUT, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Contract D.7 in the browser: an HH result pushed over the open API appears on an open alerts
 * page without a reload, the badge on every page counts it, a nurse acknowledges it with a note;
 * the patient chart draws each core item with its bands, and shows the same numbers as a table.
 */

const TENANT = "h1";
/** Eleven monthly panels of 张三 over the past year: haemoglobin climbing into its target, phosphate high. */
const history = () =>
  monthlyPanels("CHART", 11, (i) => [
    { itemCode: "HGB", value: 98 + i * 2, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: i < 8 ? "L" : "N" },
    { itemCode: "P", value: 1.9, unit: "mmol/L", refLow: 0.87, refHigh: 1.45, abnormalFlag: "H" },
    { itemName: "Kt/V", value: 1.3 },
  ]);

describe("critical results and the patient chart in chromium", function () {
  this.timeout(90_000);
  const staff = useStaffBrowserSuite(TENANT, { env: { ALERT_STREAM_HEARTBEAT_SECONDS: "5" } });
  let page: Page;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });

  before(async () => {
    expect((await staff.tenant.push("lab", history())).status).to.equal(200);
    page = await staff.newPage();
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en#alerts`);
    await page.locator("#sign-in-tenant").fill(TENANT);
    await page.locator("#sign-in-token").fill(staff.tenant.authorToken);
    await page.locator("#sign-in-token").press("Enter");
  });

  it("shows an HH result pushed over the open API on the open alerts page without a reload, and counts it on the badge", async () => {
    await ready(".page-alerts .page-body");
    await page.locator(".live[data-live=true]").waitFor();
    expect(await page.locator(".page-alerts .empty").textContent()).to.equal(
      "No critical result waits to be acknowledged.",
    );
    expect(await page.locator(".alert-badge").isHidden()).to.equal(true);

    const taken = new Date(Date.now() - 3_600_000);
    const pushed = await staff.tenant.push("lab", [
      labReport("CRIT-BROWSER", {
        collectedAt: localDateTime(taken),
        reportedAt: localDateTime(new Date()),
        items: [{ itemCode: "K", itemName: "钾", value: 7.1, unit: "mmol/L", abnormalFlag: "HH" }],
      }),
    ]);
    expect(pushed.status).to.equal(200);

    const row = page.locator("tr[data-external-id=CRIT-BROWSER]");
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getAttribute("class")).to.equal("fresh");
    expect(await row.locator(".critical-value").textContent()).to.equal("7.1 mmol/L (HH)");
    expect(await row.locator("th a").textContent()).to.equal("张三");
    expect(await row.locator(".reason").textContent()).to.equal("flagged HH by the laboratory");
    await page.locator(".alert-badge[data-open-alerts='1']").waitFor();
    expect(await page.locator(".alert-badge").getAttribute("aria-label")).to.equal("1 critical result to acknowledge");
    expect(await page.locator(".status").textContent()).to.equal(
      "New critical result: 张三 K · Potassium 7.1 mmol/L (HH)",
    );
    await page.screenshot({ path: `${OUT}staff-alerts.png`, fullPage: true });
  });

  it("acknowledges the alert with a note, required: it leaves the list, the badge goes, the acknowledged tab shows who and what", async () => {
    await page
      .locator("tr[data-external-id=CRIT-BROWSER]")
      .getByRole("button", { name: "Acknowledge K · Potassium of 张三" })
      .click();
    const dialog = page.locator("dialog.modal");
    await dialog.getByRole("button", { name: "Acknowledge" }).click();
    expect(await dialog.locator(".form-error").textContent()).to.equal("Say what was done.");
    await dialog.locator("#acknowledge-note").fill("Dr. Li told at once; potassium repeated");
    await dialog.getByRole("button", { name: "Acknowledge" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.locator("tr[data-external-id=CRIT-BROWSER]").waitFor({ state: "detached" });
    await page.locator(".alert-badge").waitFor({ state: "hidden" });
    await page.locator("[data-state-tab=acknowledged]").click();
    const acknowledged = page.locator("table.alerts-acknowledged tr[data-external-id=CRIT-BROWSER]");
    await acknowledged.waitFor();
    expect(await acknowledged.locator(".outcome").textContent()).to.match(
      / · Nurse Chen.*Dr\. Li told at once; potassium repeated$/,
    );
  });

  it("draws the patient's chart: each core item with its bands and latest value, the same numbers as a table, the reports with their history", async () => {
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en#patients`);
    await ready(".page-patients .page-body");
    await page.getByRole("link", { name: "Results of 张三" }).click();
    await ready(".page-chart .page-body");
    expect(await page.locator(".page-chart h1").textContent()).to.equal("Results of 张三 (P001)");
    const hgb = page.locator(".series-card[data-code=HGB]");
    expect(await hgb.getAttribute("data-points")).to.equal("11");
    expect(await hgb.locator(".latest strong").textContent()).to.match(/^118 g\/L N · \d{4}-\d\d-\d\d 07:30$/);
    expect(await hgb.locator(".bands").textContent()).to.equal(
      "Reference range 115–150Target 110–130Critical limits 50–200",
    );
    await hgb.locator(".series-chart canvas").waitFor();
    expect(await hgb.locator(".series-chart").getAttribute("aria-label")).to.match(
      /^Hb · Hemoglobin: 11 results, latest 118 g\/L N/,
    );
    expect(await page.locator(".series-card[data-code=URR] .latest").textContent()).to.equal(
      "No results in this period.",
    );
    await page.screenshot({ path: `${OUT}staff-chart.png`, fullPage: true });

    await page.getByRole("button", { name: "Table" }).click();
    const rows = page.locator("table.results tr[data-code=P]");
    expect(await rows.count()).to.equal(11);
    expect(await rows.first().locator(".number").textContent()).to.equal("1.90 mmol/L"); // phosphate to the dictionary's 2 decimals (issue #54)
    expect(await page.locator(".patient-report-list li").count()).to.equal(11);
    await page
      .locator(".patient-report-list li[data-external-id=CHART-11]")
      .getByRole("button", { name: "History of report CHART-11" })
      .click();
    await page.locator("dialog.modal tr[data-event=RECEIVED]").waitFor();
    await page.keyboard.press("Escape");
    expect(staff.cspViolations).to.deep.equal([]);
  });

  for (const [lang, live, lost] of [
    ["en", "Live", "Live updates lost; reconnecting…"],
    ["zh", "实时更新中", "实时更新已断开，正在重连…"],
  ] as const) {
    it(`says the updates are live when Critical results is reached from the navigation (${lang}), and lost only when they are`, async () => {
      // The session's alert stream opens with the first page; the badge asks for the count once it is open.
      await page.goto("about:blank"); // a page load, not a change of fragment: the session (kept in the tab) starts again
      const streamOpen = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/alerts/count");
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#reports`);
      await ready(".page-reports .page-body");
      await streamOpen;
      await page.locator(".tabs a[data-page-link=alerts]").click();
      await ready(".page-alerts .page-body");
      const indicator = page.locator(".page-alerts .live");
      expect([await indicator.getAttribute("data-live"), await indicator.textContent()]).to.deep.equal(["true", live]);
      // Away and back again: still live.
      await page.locator(".tabs a[data-page-link=patients]").click();
      await ready(".page-patients .page-body");
      await page.locator(".tabs a[data-page-link=alerts]").click();
      await ready(".page-alerts .page-body");
      expect([await indicator.getAttribute("data-live"), await indicator.textContent()]).to.deep.equal(["true", live]);

      // A stream the service cannot be reached for is said to be lost, and live again once it is back.
      await page.route(/\/api\/alerts\/stream(\?|$)/, (route) => route.abort());
      await page.reload();
      await page.locator(".page-alerts .live[data-live-state=lost]").waitFor();
      expect(await indicator.textContent()).to.equal(lost);
      await page.unroute(/\/api\/alerts\/stream(\?|$)/);
      await page.locator(".page-alerts .live[data-live=true]").waitFor({ timeout: 10_000 });
      expect(await indicator.textContent()).to.equal(live);
    });
  }
});

import { expect } from "chai";
import type { Page } from "playwright-core";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { loadDemo, type DemoLoaded } from "../../src/demo/loadDemo.ts";
import { startTestService, TEST_ADMIN_TOKEN } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { launchChromium, type Chromium } from "./chromium.ts";
import { ensureStaffBundle } from "./staffBundle.ts";
import { OUT } from "./staffSuite.ts";

/*
 * Issue #54, deliverable 4: the demo had no unmapped item to try the Item mappings page on, and its
 * unmatched reports belonged to no registered patient, so none could be claimed. Now the emergency
 * laboratory sends its own codes for urea (in mg/dL) and NT-proBNP, and an outside laboratory two
 * reports of registered patients, one without the id card, one with it mistyped. A newcomer maps the
 * urea (and reads the conversion applied) and claims a report for its patient.
 */
describe("the demo gives a newcomer something to map and to claim (#54, deliverable 4) in chromium", function () {
  this.timeout(180_000);
  let service: RunningService;
  let browser: Chromium;
  let loaded: DemoLoaded;
  let page: Page;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 20_000 });

  before(async function () {
    this.timeout(240_000);
    ensureStaffBundle();
    service = await startTestService({ projections: allProjections });
    browser = await launchChromium({ viewport: { width: 390, height: 844 } });
    loaded = (await loadDemo(service.url!, TEST_ADMIN_TOKEN))!;
    page = await browser.context.newPage();
    await page.goto(`${service.url}/staff?tenant=demo&lang=zh#mappings`);
    await page.locator("#sign-in-token").fill(loaded.authorToken);
    await page.locator("#sign-in-token").press("Enter");
    await page.locator(".who").waitFor();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("zh, 390 px: lists the emergency laboratory's urea in mg/dL as unmapped; mapped, it shows the conversion applied", async () => {
    await ready(".page-mappings .page-body");
    const urea = page.locator('table.unmapped-items tr[data-item-code="EM-BUN"]');
    expect(await urea.locator("th").textContent()).to.equal("EM-BUN · 急诊尿素氮");
    expect(await page.locator('table.unmapped-items tr[data-item-code="EM-NTP"]').count()).to.equal(1);
    await expectNoSidewaysScroll(page, "the demo's unmapped items (zh, 390 px)");
    await expectAccessible(page, "the demo's unmapped items (zh, 390 px)");
    await page.screenshot({ path: `${OUT}demo-unmapped-zh-390.png`, fullPage: true });

    await urea.locator("button.map").click();
    const dialog = page.locator("dialog.modal");
    await dialog.locator(".preview", { hasText: "将重新映射已保存的 3 个结果（3 份报告）。" }).waitFor();
    await dialog.locator("#map-standard").selectOption("UREA_PRE");
    await dialog.locator("button[type=submit]").click();
    await dialog.waitFor({ state: "detached" });
    await urea.waitFor({ state: "detached", timeout: 30_000 });
    const mapping = page.locator("table.item-mappings tr[data-remap=DONE]");
    await mapping.waitFor({ timeout: 30_000 });
    expect(await mapping.locator(".conversion").textContent()).to.equal("mg/dL × 0.357015 → mmol/L");
    await expectNoSidewaysScroll(page, "the demo's mapping (zh, 390 px)");
    await page.screenshot({ path: `${OUT}demo-mapped-zh-390.png`, fullPage: true });
  });

  it("zh, 390 px: a registered patient's report without an id card waits in the queue and is claimed for her", async () => {
    const queue = await fetch(`${service.url}/api/unmatched?limit=1000`, {
      headers: { authorization: `Bearer ${loaded.authorToken}`, "x-service-tenant": "demo" },
    });
    const waiting = ((await queue.json()) as Array<{ externalId: string; pendingReason: string }>).filter((entry) =>
      entry.externalId.startsWith("DEMO-Q-"),
    );
    expect(waiting).to.have.length(loaded.claimableReports);
    const report = waiting.find((entry) => entry.pendingReason === "idCard is missing")!;
    const patientRef = report.externalId.slice("DEMO-Q-".length);

    await page.goto(`${service.url}/staff?tenant=demo&lang=zh#unmatched`);
    await ready(".page-unmatched .page-body");
    await page.getByRole("button", { name: `认领报告 ${report.externalId}` }).click();
    const dialog = page.locator("dialog:has(.claim-form)");
    const option = dialog.locator(`.picker-option[data-patient-ref="${patientRef}"]`);
    await option.waitFor({ timeout: 15_000 });
    await option.locator("input[type=radio]").check();
    await dialog.locator(".claim-verdict.same").waitFor({ timeout: 15_000 });
    await expectAccessible(page, "claiming a demo report for its registered patient (zh, 390 px)");
    await page.screenshot({ path: `${OUT}demo-claim-zh-390.png`, fullPage: true });
    await dialog.getByRole("button", { name: "认领", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await page.locator(".status", { hasText: `报告 ${report.externalId} 已认领给` }).waitFor();
  });
});

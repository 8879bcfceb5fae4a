import { createServer } from "node:net";
import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { makeIdCard } from "../../src/demo/demoData.ts";
import { ADMIN } from "../support/http.ts";
import { ingestionTenant, labReport, type IngestionTenant } from "../support/ingestion.ts";
import { TestOpenIdProvider } from "../support/openIdProvider.ts";
import { startTestService } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { launchChromium, type Chromium } from "./chromium.ts";
import { ensureStaffBundle } from "./staffBundle.ts";
import { OUT } from "./staffSuite.ts";

/*
 * Issue #33's "done when", in Chromium against a real OpenID Provider (oidc-provider): a nurse
 * signs in through the hospital's provider, sees only her ward's patients, acknowledges an alert
 * in her own name and signs out at the provider too; an administrator then signs in and lists who
 * looked at the patient.
 */

const TENANT = "h1";
const NURSE = { sub: "nurse-li", name: "李护士", tenant: TENANT, roles: ["clinician"], wards: ["A"] };
const HEAD = { sub: "admin-zhang", name: "张主任", tenant: TENANT, roles: ["admin"] };

/** A port nobody holds now: the service must know its own address (PUBLIC_URL) before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a nurse's day signed in through the hospital's identity provider, in chromium (E.1–E.4)", function () {
  this.timeout(120_000);
  let provider: TestOpenIdProvider;
  let service: RunningService;
  let tenant: IngestionTenant;
  let browser: Chromium;
  let page: Page;
  let publicUrl: string;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });

  before(async function () {
    this.timeout(180_000);
    ensureStaffBundle();
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    provider = await new TestOpenIdProvider({
      clientId: "dialysis-hub",
      clientSecret: "test-client-secret-0123456789",
      publicUrl,
    }).start();
    service = await startTestService({
      projections: allProjections,
      env: {
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: "dialysis-hub",
        OIDC_CLIENT_SECRET: "test-client-secret-0123456789",
        OIDC_PROVIDER_NAME: "Hospital SSO",
        ALERT_STREAM_HEARTBEAT_SECONDS: "5",
      },
    });
    [tenant, browser] = await Promise.all([ingestionTenant(service, TENANT), launchChromium()]);
    // 张三 (P001) lies in ward A, the nurse's; 王五 in ward B, not hers.
    const other = await tenant.call("PUT", "/api/patients/P-WARD-B", {
      token: ADMIN,
      tenant: TENANT,
      body: { name: "王五", idCard: makeIdCard("110105", "19480202", 7), ward: "B" },
    });
    expect(other.status).to.equal(200);
    const taken = new Date(Date.now() - 3_600_000);
    const pushed = await tenant.push("lab", [
      labReport("CRIT-NURSE", {
        collectedAt: localDateTime(taken),
        reportedAt: localDateTime(new Date()),
        items: [{ itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L", abnormalFlag: "HH" }],
      }),
    ]);
    expect(pushed.status).to.equal(200);
    page = await browser.context.newPage();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await provider?.stop();
  });

  it("offers 'Sign in with Hospital SSO', accessible and fitting a phone, with the token sign-in folded below", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${publicUrl}/staff?tenant=${TENANT}`);
    const button = page.getByRole("link", { name: "通过 Hospital SSO 登录" });
    await button.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal("通过 Hospital SSO 登录");
    expect(await page.locator("details.sign-in-token").getAttribute("open")).to.equal(null);
    await expectAccessible(page, "the sign-in page with a provider");
    await expectNoSidewaysScroll(page, "the sign-in page at 390 px");
    await page.screenshot({ path: `${OUT}staff-sign-in-provider.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("signs the nurse in at the provider and brings her back to the page she left, her name and roles in the header", async () => {
    provider.person = NURSE;
    await page.goto(`${publicUrl}/staff?tenant=${TENANT}&lang=en#alerts`);
    await page.getByRole("link", { name: "Sign in with Hospital SSO" }).click();
    await page.waitForURL(/\/staff\?tenant=h1&lang=en#alerts$/);
    await ready(".page-alerts .page-body");
    expect(await page.locator(".who").textContent()).to.equal("李护士 · Clinician · wards A");
    const tabs = await page.locator(".tabs a").allTextContents();
    expect(tabs.map((tab) => tab.replace(/\d+$/, ""))).to.deep.equal([
      "Reports",
      "Result alerts",
      "Unmatched reports",
      "Patients",
      "Quality",
    ]);
    expect(await page.context().cookies()).to.satisfy((cookies: Array<{ name: string; httpOnly: boolean }>) =>
      cookies.some((c) => c.name === "dh_session" && c.httpOnly),
    );
    expect(
      await page.evaluate(() => sessionStorage.getItem("dialysis-hub.staff.session")),
      "no token kept in the tab",
    ).to.equal(null);
    await expectAccessible(page, "the alerts page of a signed-in person");
  });

  it("shows her only her ward's patients, and acknowledges the alert in her own name", async () => {
    const row = page.locator("tr[data-external-id=CRIT-NURSE]");
    await row.waitFor();
    await row.getByRole("button", { name: "Acknowledge K · Potassium of 张三" }).click();
    const dialog = page.locator("dialog.modal");
    await dialog.locator("#acknowledge-note").fill("Dr. Wang told; potassium repeated");
    await dialog.getByRole("button", { name: "Acknowledge" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.locator("[data-state-tab=acknowledged]").click();
    const acknowledged = page.locator("table.alerts-acknowledged tr[data-external-id=CRIT-NURSE]");
    await acknowledged.waitFor();
    expect(await acknowledged.locator(".outcome").textContent()).to.match(
      / · 李护士.*Dr\. Wang told; potassium repeated$/,
    );

    await page.getByRole("link", { name: "Patients" }).click();
    await ready(".page-patients .page-body");
    const names = await page.locator(".page-patients tbody th").allTextContents();
    expect(names.join(" ")).to.include("张三").and.not.to.include("王五");
    await page.getByRole("link", { name: "Results of 张三" }).click();
    await ready(".page-chart .page-body");
    expect(
      await page.getByRole("button", { name: "Who looked at this patient" }).count(),
      "the access log is the administrators'",
    ).to.equal(0);

    // A bookmark of a page beyond her roles opens her own page, her alerts, saying why (issue #54).
    await page.goto(`${publicUrl}/staff?tenant=${TENANT}&lang=en#credentials`);
    await ready(".page-alerts .page-body");
    expect(await page.locator(".status").textContent()).to.include("needs the role “Administrator”");
  });

  it("signs her out at the service and at the provider", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    // oidc-provider asks the person to confirm the end of its own session, then sends the browser back to /staff.
    await page.waitForURL((url) => url.toString().startsWith(provider.issuer));
    await page.locator("button[name=logout], button[type=submit]").first().click();
    await page.waitForURL(`${publicUrl}/staff`);
    await page.getByRole("link", { name: /Hospital SSO/ }).waitFor();
    const session = await page.evaluate(async () => (await fetch("/staff/session")).status);
    expect(session).to.equal(401);
  });

  it("lets an administrator list who looked at the patient", async () => {
    provider.person = HEAD;
    await page.goto(`${publicUrl}/staff?tenant=${TENANT}&lang=en#patients`);
    await page.getByRole("link", { name: "Sign in with Hospital SSO" }).click();
    await page.waitForURL(/#patients$/);
    await ready(".page-patients .page-body");
    expect(await page.locator(".who").textContent()).to.equal("张主任 · Administrator");
    expect(await page.locator(".tabs a[data-page-link=credentials]").count()).to.equal(1);
    await page.getByRole("link", { name: "Results of 张三" }).click();
    await ready(".page-chart .page-body");
    await page.getByRole("button", { name: "Who looked at this patient" }).click();
    const dialog = page.locator("dialog.modal");
    await dialog.locator(".access-log[data-state=ready]").waitFor();
    const nurseRows = dialog.locator("tr[data-who='李护士']");
    expect(await nurseRows.count()).to.be.greaterThan(0);
    const actions = await nurseRows
      .locator("td[data-action]")
      .evaluateAll((cells) => cells.map((cell) => [cell.getAttribute("data-action"), cell.textContent]));
    expect(actions).to.deep.include(["GET /api/patients/{patientRef}/results", "Chart and results"]);
    expect(actions).to.deep.include(["POST /api/alerts/{alertId}/acknowledge", "Acknowledged a critical result"]);
    await expectAccessible(page, "the access log dialog");
    await page.screenshot({ path: `${OUT}staff-access-log.png`, fullPage: true });
  });
});

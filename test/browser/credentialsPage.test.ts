import { expect } from "chai";
import type { Page } from "playwright-core";
import { ADMIN } from "../support/http.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, useStaffBrowserSuite } from "./staffSuite.ts";

const TENANT = "cred1";

describe("the staff pages' Credentials page in chromium", function () {
  this.timeout(90_000);
  const staff = useStaffBrowserSuite(TENANT);
  let page: Page;
  /** Tokens made for the test over HTTP by the operator (ADMIN_TOKEN). */
  const tokens = { admin: "", wardAdmin: "", clinician: "" };
  /** The token the page makes, and the one its rotation gives. */
  let made = "";
  let rotated = "";

  const me = (token: string) => staff.tenant.call("GET", "/api/me", { token });
  const ready = (selector: string) =>
    page.locator(`${selector} .page-body[data-state=ready]`).waitFor({ timeout: 15_000 });
  const authorRow = (name: string) =>
    page.locator(".credentials-author tbody tr", { has: page.locator("th", { hasText: name }) });
  const dialog = () => page.locator("dialog.modal");

  async function tokenOf(name: string, roles: string[], wards?: string[]): Promise<string> {
    const answer = await staff.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name, tenant: TENANT, roles, ...(wards ? { wards } : {}) },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    return answer.body.token;
  }

  /** Signs in with `token` on the page of `lang` (signing out who was signed in), at `fragment`. */
  async function signIn(token: string, lang: "en" | "zh", fragment = ""): Promise<void> {
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}${fragment}`);
    // A token kept in this tab signs in again by itself: sign it out first.
    await page.locator(".who, #sign-in-token").first().waitFor();
    if (await page.locator(".who").count()) await page.locator("button.sign-out").click();
    await page.locator("#sign-in-token").fill(token);
    await page.locator("#sign-in-token").press("Enter");
    await page.locator(".who").waitFor();
  }

  before(async () => {
    tokens.admin = await tokenOf("Administrator Wang", ["admin"]);
    tokens.wardAdmin = await tokenOf("Ward 3A lead", ["admin"], ["3A"]);
    tokens.clinician = await tokenOf("Nurse Zhou", ["clinician"]);
    page = await staff.newPage();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: staff.service.url! });
  });

  it("offers an administrator the Credentials tab: the tenant's author tokens and laboratory keys", async () => {
    await signIn(tokens.admin, "en");
    const tab = page.locator(".tabs a[data-page-link=credentials]");
    expect(await tab.textContent()).to.equal("Credentials");
    await tab.click();
    await ready(".credentials-author");
    await ready(".credentials-client");
    expect(await page.locator(".page-credentials h1").textContent()).to.equal("Credentials");
    expect(await page.locator(".credentials-author h2").textContent()).to.equal("Personal access tokens");
    expect(await page.locator(".credentials-client h2").textContent()).to.equal("Laboratory keys");

    const chen = authorRow("Nurse Chen");
    expect(await chen.getAttribute("data-state")).to.equal("active");
    expect(await chen.locator(".grants").textContent()).to.equal("Report authorevery ward");
    expect(await chen.locator(".expires").textContent()).to.equal("does not expire");
    expect(await chen.locator(".created time").textContent()).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(await authorRow("Ward 3A lead").locator(".grants").textContent()).to.equal("Administratorwards 3A");
    // A token nobody used yet; the secrets are never listed.
    expect(await authorRow("Nurse Zhou").locator(".last-used").textContent()).to.equal("never");
    expect(await page.content()).not.to.include(tokens.clinician);
    const lab = page.locator(".credentials-client tbody tr", {
      has: page.locator("th", { hasText: "Central lab LIS" }),
    });
    expect(await lab.locator(".state").textContent()).to.equal("Active");
    expect(await lab.getByRole("button", { name: "Rotate the key of Central lab LIS" }).count()).to.equal(1);
    expect(await page.locator(".credentials-author .count").textContent()).to.equal("4 tokens, 4 active");
  });

  it("makes a clinician token for ward 3A and shows its secret once, with a Copy button; the token works", async () => {
    await page.getByRole("button", { name: "New personal access token…" }).click();
    await dialog().locator("form.create-author").waitFor();
    // The dialog starts from whom the token is for (issue #54): a nurse or doctor, the most usual.
    expect(await page.evaluate(() => document.activeElement?.id), "who it is for has focus").to.equal(
      "credential-role-clinician",
    );
    expect(await page.locator("#credential-role-clinician").isChecked(), "a clinician by default").to.equal(true);
    await page.getByLabel("A report author").check();
    await page.locator("#credential-name").fill("Dr Li");
    await page.getByLabel("A nurse or doctor (clinician)").check();
    await page.locator("#credential-wards").fill("3A");
    await page.locator("#credential-days").fill("30");
    await dialog().getByRole("button", { name: "Create" }).click();

    const secret = page.locator("#credential-secret");
    await secret.waitFor();
    made = await secret.inputValue();
    expect(made).to.match(/^dha_/);
    expect(await secret.getAttribute("readonly")).to.equal("");
    expect(await page.evaluate(() => document.activeElement?.id), "the secret has focus").to.equal("credential-secret");
    expect(await dialog().locator(".secret-warning").textContent()).to.include("not shown again");
    await dialog().getByRole("button", { name: "Copy the new token" }).click();
    await page.locator(".copy-status:not(:empty)").waitFor();
    expect(await page.locator(".copy-status").textContent()).to.equal("Copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(made);
    await page.screenshot({ path: `${OUT}credentials-new-token.png` });

    await dialog().getByRole("button", { name: "I have copied it; close" }).click();
    expect(await dialog().count()).to.equal(0);
    // Shown once: closed, it is nowhere on the page.
    expect(await page.content()).not.to.include(made);
    await page.locator(".status", { hasText: "A personal access token was created for Dr Li." }).waitFor();
    const row = authorRow("Dr Li");
    expect(await row.locator(".grants").textContent()).to.equal("Clinicianwards 3A");
    expect(await row.locator(".last-used").textContent()).to.equal("never");
    expect(await row.locator(".expires time").textContent()).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(await row.locator(".state").textContent()).to.equal("Active");

    const who = await me(made);
    expect(who.status).to.equal(200);
    expect(who.body).to.include({ who: "Dr Li", tenant: TENANT });
    expect(who.body.roles).to.deep.equal(["clinician"]);
    expect(who.body.wards).to.deep.equal(["3A"]);
  });

  it("says the service's sentence when it refuses a new token, and keeps the form", async () => {
    await page.getByRole("button", { name: "New personal access token…" }).click();
    await page.locator("#credential-name").fill("Bad ward");
    await page.locator("#credential-wards").fill("W".repeat(65));
    await dialog().getByRole("button", { name: "Create" }).click();
    await dialog().locator(".form-error:not([hidden])").waitFor();
    expect(await dialog().locator(".form-error").textContent()).to.match(/ward/);
    expect(await page.locator("#credential-secret").count()).to.equal(0);
    await dialog().getByRole("button", { name: "Cancel" }).click();
    expect(await dialog().count()).to.equal(0);
  });

  it("rotates the token: the new secret is shown once, and the former one stops after the overlap chosen", async () => {
    const rotate = authorRow("Dr Li").getByRole("button", { name: "Rotate the token of Dr Li" });
    await rotate.click();
    const hours = page.locator("#credential-overlap");
    expect(await hours.inputValue(), "24 hours by default").to.equal("24");
    await hours.fill("0");
    await dialog().getByRole("button", { name: "Rotate", exact: true }).click();
    const secret = page.locator("#credential-secret");
    await secret.waitFor();
    rotated = await secret.inputValue();
    expect(rotated).to.match(/^dha_/).and.not.equal(made);
    await page
      .locator(".status", { hasText: "The token of Dr Li was rotated: the former one stopped at once." })
      .waitFor();
    await dialog().getByRole("button", { name: "I have copied it; close" }).click();
    expect(await page.content()).not.to.include(rotated);
    // The rebuilt row's button has the focus back.
    await page.waitForFunction(
      () => document.activeElement?.getAttribute("aria-label") === "Rotate the token of Dr Li",
      undefined,
      { timeout: 2000 },
    );

    expect((await me(rotated)).status).to.equal(200);
    expect((await me(made)).status, "overlap 0: the former token stops at once").to.equal(401);
  });

  it("revokes the token after asking: the list shows it revoked and the token answers 401", async () => {
    await authorRow("Dr Li").getByRole("button", { name: "Revoke the token of Dr Li" }).click();
    expect(await dialog().locator("h2").textContent()).to.equal("Revoke the token of Dr Li");
    expect(await dialog().locator("p").first().textContent()).to.include("cannot be undone");
    expect(await page.evaluate(() => document.activeElement?.textContent), "Cancel has the focus").to.equal("Cancel");
    await dialog().getByRole("button", { name: "Revoke", exact: true }).click();
    await page.locator(".status", { hasText: "The token of Dr Li was revoked." }).waitFor();
    expect(await dialog().count()).to.equal(0);

    const row = authorRow("Dr Li");
    expect(await row.getAttribute("data-state")).to.equal("revoked");
    expect(await row.locator(".state").textContent()).to.match(/^Revokedrevoked \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(await row.locator("button").count(), "a revoked token has no actions").to.equal(0);
    expect((await me(rotated)).status).to.equal(401);
  });

  it("says on a rotated token's row that the former one still works for the overlap, and until when (issue #54)", async () => {
    await authorRow("Nurse Zhou").getByRole("button", { name: "Rotate the token of Nurse Zhou" }).click();
    await dialog().getByRole("button", { name: "Rotate", exact: true }).click();
    await page.locator("#credential-secret").waitFor();
    await dialog().getByRole("button", { name: "I have copied it; close" }).click();
    const former = authorRow("Nurse Zhou").locator(".state .former-works");
    await former.waitFor();
    const said = /^Rotated: the former token still works until (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d)$/.exec(
      (await former.textContent()) ?? "",
    );
    expect(said, "the row names the overlap's end").not.to.equal(null);
    const [year, month, day, hour, minute] = said!.slice(1).map(Number) as [number, number, number, number, number];
    const end = new Date(year, month - 1, day, hour, minute).getTime();
    expect(Math.abs(end - (Date.now() + 24 * 3_600_000)), "24 hours, the default overlap").to.be.below(120_000);
    expect((await me(tokens.clinician)).status, "the former token works within the overlap").to.equal(200);
    expect(await authorRow("Administrator Wang").locator(".former-works").count(), "a token never rotated").to.equal(0);
  });

  it("fits 390 px without sideways scroll in Chinese: the lists, a new key's form and its secret", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(tokens.admin, "zh", "#credentials");
    await ready(".credentials-author");
    await ready(".credentials-client");
    expect(await page.locator(".page-credentials h1").textContent()).to.equal("凭据");
    expect(await authorRow("Dr Li").locator(".state .credential-state").textContent()).to.equal("已吊销");
    expect(await authorRow("Nurse Zhou").locator(".state .former-works").textContent()).to.match(
      /^已轮换：原令牌在 \d{4}-\d\d-\d\d \d\d:\d\d 前仍可使用$/,
    );
    await expectNoSidewaysScroll(page, "the lists at 390 px");
    await page.screenshot({ path: `${OUT}credentials-390-zh.png`, fullPage: true });

    await page.getByRole("button", { name: "新建检验科密钥…" }).click();
    await page.locator("#credential-name").fill("第二检验科 LIS");
    await page.locator("#credential-days").fill("365");
    await expectNoSidewaysScroll(page, "the new key's form at 390 px");
    await dialog().getByRole("button", { name: "创建" }).click();
    await page.locator("#credential-secret").waitFor();
    expect(await page.locator("#credential-secret").inputValue()).to.match(/^dhk_/);
    await expectNoSidewaysScroll(page, "the new key's secret at 390 px");
    await page.screenshot({ path: `${OUT}credentials-390-zh-secret.png` });
    await dialog().getByRole("button", { name: "我已复制，关闭" }).click();
    await page.locator(".status", { hasText: "已为 第二检验科 LIS 创建检验科密钥。" }).waitFor();
    await expectNoSidewaysScroll(page, "the lists with the new key at 390 px");
  });

  it("has no WCAG 2.1 A or AA violation axe-core finds, in Chinese at 390 px: the lists and every dialog", async () => {
    await expectAccessible(page, "the lists");
    await page.getByRole("button", { name: "新建个人访问令牌…" }).click();
    await expectAccessible(page, "the new token's form");
    await page.screenshot({ path: `${OUT}credentials-390-zh-new-token.png` });
    await dialog().getByRole("button", { name: "创建" }).click(); // empty: the name is asked for
    expect(await page.locator("#credential-name").getAttribute("aria-invalid")).to.equal("true");
    await expectAccessible(page, "the form saying what is missing");
    await dialog().getByRole("button", { name: "取消" }).click();

    const key = page.locator(".credentials-client tbody tr", {
      has: page.locator("th", { hasText: "第二检验科 LIS" }),
    });
    await key.getByRole("button", { name: "吊销 第二检验科 LIS 的密钥" }).click();
    await expectAccessible(page, "the revoke confirmation");
    await dialog().getByRole("button", { name: "取消" }).click();
    await key.getByRole("button", { name: "轮换 第二检验科 LIS 的密钥" }).click();
    await expectAccessible(page, "the rotate dialog");
    await dialog().getByRole("button", { name: "轮换", exact: true }).click();
    await page.locator("#credential-secret").waitFor();
    await expectAccessible(page, "the new key, shown once");
    await dialog().getByRole("button", { name: "我已复制，关闭" }).click();
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("leaves the laboratory keys and other wards' tokens alone for an administrator of ward 3A", async () => {
    await signIn(tokens.wardAdmin, "en", "#credentials");
    await ready(".credentials-author");
    await ready(".credentials-client");
    expect(await page.locator(".credentials-client .new-credential").count()).to.equal(0);
    expect(await page.locator(".credentials-client .ward-limited").textContent()).to.include("wards 3A");
    expect(await page.locator(".credentials-client tbody button").count(), "no laboratory key actions").to.equal(0);
    expect(await authorRow("Nurse Chen").locator("button").count(), "a token of every ward is beyond ward 3A").to.equal(
      0,
    );
    expect(await authorRow("Ward 3A lead").locator("button").count()).to.equal(2);

    await page.getByRole("button", { name: "New personal access token…" }).click();
    expect(await page.locator("#credential-wards").inputValue(), "the administrator's wards, offered").to.equal("3A");
    await page.locator("#credential-name").fill("Ward 3B nurse");
    await page.locator("#credential-wards").fill("3B");
    await dialog().getByRole("button", { name: "Create" }).click();
    expect(await dialog().locator(".form-error").textContent()).to.equal("Ward 3B is not one of your wards 3A.");
    expect(await page.locator("#credential-wards").getAttribute("aria-invalid")).to.equal("true");
    await dialog().getByRole("button", { name: "Cancel" }).click();
  });

  it("does not offer the Credentials tab to a clinician, nor the page at its address", async () => {
    await signIn(tokens.clinician, "en", "#credentials");
    expect(await page.locator(".tabs a[data-page-link=credentials]").count()).to.equal(0);
    // A clinician's own page is her alerts (issue #54).
    await page.locator(".page-alerts").waitFor();
    expect(await page.locator(".status").textContent()).to.equal(
      "That page needs the role “Administrator”; your own page, Result alerts, is open instead.",
    );
    expect(staff.cspViolations).to.deep.equal([]);
  });
});

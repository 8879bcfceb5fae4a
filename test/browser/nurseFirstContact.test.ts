import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54, deliverable 3: a ward nurse's first contact. She was told to paste an "author token
 * created with npm run cli -- authors create", her credential was made as an "author token" with
 * "report author" ticked, she landed on the reports with their audit grades, no page led to help,
 * and a lab report had no print button and printed three times. Now the sign-in page speaks of a
 * personal access token made on the Credentials page; the administrator's dialog starts from whom
 * the token is for (a nurse: a clinician of her wards); she lands on her alerts; every staff page
 * links to the help; a report prints, from its Print button, once and alone.
 */

const TENANT = "ward";
const PHONE = { width: 390, height: 844 };
const DESK = { width: 1366, height: 900 };

const SIGN_IN = {
  en: { title: "Sign in", token: "Personal access token", intro: /Credentials page/, help: "Help" },
  zh: { title: "登录工作台", token: "个人访问令牌", intro: /“凭据”页/, help: "帮助" },
} as const;

describe("a ward nurse's first contact with the staff pages (#54, deliverable 3) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT);
  let adminToken = "";
  /** The token the administrator makes for the nurse on the Credentials page. */
  let nurseToken = "";

  const open = async (page: Page, lang: "en" | "zh", fragment = "") =>
    page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}${fragment}`);
  const signIn = async (page: Page, token: string) => {
    await page.locator("#sign-in-token").fill(token);
    await page.locator("#sign-in-token").press("Enter");
    await page.locator(".who").waitFor();
  };
  /** What the person reads on the page (the visible text, dialogs included). */
  const words = (page: Page) => page.evaluate(() => document.body.innerText);
  /** The pages of the PDF Chromium prints the page to (A4), as a person's Print would. */
  const printedPages = async (page: Page) =>
    ((await page.pdf({ format: "A4" })).toString("latin1").match(/\/Type\s*\/Page\b/g) ?? []).length;
  /** Whether Print asked the browser to print: the page's own beforeprint event, counted as it fires. */
  const countPrints = (page: Page) =>
    page.evaluate(() => {
      const counted = window as unknown as { prints: number };
      counted.prints = 0;
      addEventListener("beforeprint", () => counted.prints++);
    });

  before(async () => {
    const admin = await staff.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Head nurse Wang", tenant: TENANT, roles: ["admin"] },
    });
    expect(admin.status).to.equal(201);
    adminToken = admin.body.token;
    // A critical potassium of 张三 (P001, ward A) an hour ago, in a panel with his haemoglobin (a core
    // item the chart draws, so the report is listed there): the nurse of ward A has an alert waiting.
    const taken = new Date(Date.now() - 3_600_000);
    const pushed = await staff.tenant.push("lab", [
      labReport("CRIT-A", {
        collectedAt: localDateTime(taken),
        reportedAt: localDateTime(new Date(taken.getTime() + 1_800_000)),
        items: [
          { itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L", abnormalFlag: "HH" },
          { itemCode: "HGB", itemName: "血红蛋白", value: 105, unit: "g/L", abnormalFlag: "L" },
        ],
      }),
    ]);
    expect(pushed.status).to.equal(200);
    await until(
      async () =>
        ((await staff.tenant.call("GET", "/api/alerts/count", { token: staff.tenant.authorToken })).body.open ?? 0) >
          0 || null,
      15_000,
    );
  });

  for (const [lang, size] of [
    ["zh", PHONE],
    ["en", DESK],
  ] as const) {
    it(`${lang}: the sign-in page speaks of a personal access token from the Credentials page, never of a command line`, async () => {
      const page = await staff.newPage();
      try {
        await page.setViewportSize(size);
        await open(page, lang);
        await page.locator("#sign-in-token").waitFor();
        const said = SIGN_IN[lang];
        expect(await page.locator("h1").textContent()).to.equal(said.title);
        expect(await page.locator("label[for=sign-in-token]").textContent()).to.equal(said.token);
        expect(await page.locator(".sign-in .intro").textContent()).to.match(said.intro);
        const text = await words(page);
        for (const never of ["npm", "cli", "authors create", "author token", "作者令牌"])
          expect(text, `the sign-in page says "${never}"`).not.to.include(never);
        const help = page.locator("a.help-link");
        expect(await help.textContent()).to.equal(said.help);
        expect(await help.getAttribute("href")).to.equal(lang === "en" ? "/help?lang=en" : "/help");
        await expectNoSidewaysScroll(page, `the sign-in page (${lang}, ${size.width} px)`);
        await expectAccessible(page, `the sign-in page (${lang}, ${size.width} px)`);
        await page.screenshot({ path: `${OUT}first-contact-sign-in-${lang}-${size.width}.png`, fullPage: true });
      } finally {
        await page.close();
      }
    });
  }

  it("zh, 390 px: the administrator lands on the credentials and makes a ward nurse's token starting from whom it is for", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(PHONE);
      await open(page, "zh");
      await signIn(page, adminToken);
      // An administrator's own page is the credentials.
      await page.locator(".page-credentials .credentials-author .page-body[data-state=ready]").waitFor();
      expect(new URL(page.url()).hash).to.equal("#credentials");
      expect(await page.locator(".credentials-author h2").textContent()).to.equal("个人访问令牌");

      await page.getByRole("button", { name: "新建个人访问令牌…" }).click();
      const dialog = page.locator("dialog.modal");
      expect(await dialog.locator("legend").first().textContent()).to.equal("给谁使用");
      // The first thing asked is whom it is for; a nurse or doctor is the usual answer and chosen already.
      expect(await page.evaluate(() => document.activeElement?.id)).to.equal("credential-role-clinician");
      expect(await dialog.getByLabel("护士或医生（临床）").isChecked()).to.equal(true);
      expect(await dialog.locator("input[type=checkbox]").count(), "no role checkboxes").to.equal(0);
      await dialog.getByLabel("名称").fill("李护士");
      await dialog.getByLabel("病区（可选）").fill("A");
      await expectNoSidewaysScroll(page, "the new token's dialog at 390 px");
      await expectAccessible(page, "the new token's dialog (zh, 390 px)");
      await page.screenshot({ path: `${OUT}first-contact-new-nurse-token-zh-390.png`, fullPage: true });
      await dialog.getByRole("button", { name: "创建" }).click();
      await page.locator("#credential-secret").waitFor();
      nurseToken = await page.locator("#credential-secret").inputValue();
      expect(nurseToken).to.match(/^dha_/);
      await dialog.getByRole("button", { name: "我已复制，关闭" }).click();
      await page.locator(".status", { hasText: "已为 李护士 创建个人访问令牌。" }).waitFor();

      const me = await staff.tenant.call("GET", "/api/me", { token: nurseToken });
      expect(me.body).to.deep.include({ who: "李护士", roles: ["clinician"], wards: ["A"] });
    } finally {
      await page.close();
    }
  });

  it("zh, 390 px: the nurse signs in at the bare address and lands on her alerts, not the reports", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(PHONE);
      await open(page, "zh");
      await signIn(page, nurseToken);
      await page.locator(".page-alerts").waitFor();
      expect(new URL(page.url()).hash, "the address names her page").to.equal("#alerts");
      expect(await page.locator(".tabs a[aria-current=page]").getAttribute("data-page-link")).to.equal("alerts");
      expect(await page.locator(".page-reports").count()).to.equal(0);
      expect(await page.locator(".who").textContent())
        .to.include("李护士")
        .and.include("病区 A");
      await page.locator(".page-alerts .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      expect(await page.locator(".page-alerts").textContent()).to.include("张三");
      await expectNoSidewaysScroll(page, "the nurse's alerts at 390 px");
      await expectAccessible(page, "the nurse's alerts (zh, 390 px)");
      await page.screenshot({ path: `${OUT}first-contact-nurse-lands-zh-390.png`, fullPage: true });
    } finally {
      await page.close();
    }
  });

  it("en: every staff page links to the help, which opens and leads back", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(DESK);
      await open(page, "en");
      await signIn(page, adminToken);
      const tabs = await page.locator(".tabs a").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
      expect(tabs).to.include.members(["#reports", "#alerts", "#unmatched", "#patients", "#mappings", "#credentials"]);
      for (const fragment of [...tabs, "#chart/P001", "#new"]) {
        await open(page, "en", fragment);
        await page.locator("main[data-page] h1").waitFor();
        const help = page.locator("header a.help-link");
        expect(await help.textContent(), `the help link on ${fragment}`).to.equal("Help");
        expect(await help.getAttribute("href"), `the help link on ${fragment}`).to.equal("/help?lang=en");
      }
      await page.locator("header a.help-link").click();
      await page.waitForURL(/\/help\?lang=en$/);
      expect(await page.locator("h1").textContent()).to.equal("Help");
      await page.getByRole("link", { name: "Back to the staff pages" }).click();
      // The token of this tab signs in again by itself.
      await page.locator(".who").waitFor();
      expect(staff.cspViolations).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });

  it("zh, 390 px: the nurse prints a lab report from the chart with its Print button: one copy, the report alone", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(PHONE);
      await open(page, "zh", "#chart/P001");
      await signIn(page, nurseToken);
      await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      await page.getByRole("button", { name: "查看报告 CRIT-A" }).click();
      const dialog = page.locator("dialog.modal");
      await dialog.locator(".report-dialog-body[data-state=ready]").waitFor();
      const button = dialog.getByRole("button", { name: "打印报告 CRIT-A" });
      expect(await button.textContent()).to.equal("打印");
      await expectAccessible(page, "the report with its Print button (zh, 390 px)");
      await expectNoSidewaysScroll(page, "the report with its Print button at 390 px");
      await page.screenshot({ path: `${OUT}first-contact-print-button-zh-390.png` });

      // As printed: the report alone, on one page (the dialog was repeated on every page of the chart behind it).
      await page.emulateMedia({ media: "print" });
      expect(await page.locator(".page-chart").isVisible(), "the chart behind").to.equal(false);
      expect(await dialog.locator(".modal-head").isVisible(), "the dialog's title and ×").to.equal(false);
      expect(await button.isVisible(), "the Print button").to.equal(false);
      expect(await dialog.locator(".report-sheet").isVisible()).to.equal(true);
      expect(await printedPages(page), "pages printed").to.equal(1);
      await page.emulateMedia({ media: "screen" });

      await countPrints(page);
      await button.click();
      expect(await page.evaluate(() => (window as unknown as { prints: number }).prints), "print asked").to.equal(1);
    } finally {
      await page.close();
    }
  });

  it("en: a version in the report's history prints alone too, without the timeline", async () => {
    const page = await staff.newPage();
    try {
      await page.setViewportSize(DESK);
      await open(page, "en", "#chart/P001");
      await signIn(page, nurseToken);
      await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      await page.getByRole("button", { name: "History of report CRIT-A" }).click();
      const dialog = page.locator("dialog.modal");
      await dialog.locator(".history-timeline[data-state=ready]").waitFor();
      await dialog.getByRole("button", { name: "View version 1" }).click();
      await dialog.locator(".history-detail-body[data-state=ready]").waitFor();
      const button = dialog.getByRole("button", { name: "Print report CRIT-A" });
      expect(await button.textContent()).to.equal("Print");
      await page.emulateMedia({ media: "print" });
      expect(await dialog.locator(".history-timeline").isVisible(), "the timeline").to.equal(false);
      expect(await dialog.locator("details.report-record").isVisible(), "the record as received").to.equal(false);
      expect(await dialog.locator(".report-sheet").count()).to.equal(1);
      expect(await dialog.locator(".report-sheet").isVisible()).to.equal(true);
      expect(await printedPages(page), "pages printed").to.equal(1);
      await page.emulateMedia({ media: "screen" });
      await expectAccessible(page, "a version in the history with its Print button (en)");
      await countPrints(page);
      await button.click();
      expect(await page.evaluate(() => (window as unknown as { prints: number }).prints), "print asked").to.equal(1);
      expect(staff.cspViolations).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
});

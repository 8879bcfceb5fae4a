import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, monthsAgo, ZHANG_SAN } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #55, deliverable 7 (contract G.2 on the staff pages): a unit director picks a month and a
 * ward and reads each indicator's rate against last month and the same month a year before; opens
 * the patients not at target and a patient's chart at the item; an administrator closes the month,
 * and a late result and a corrected report then show as its restatement, each with its reason in
 * words. Both languages, on a phone and a laptop: axe-core clean, no sideways scroll.
 */

const TENANT = "quality-page";
const monthOf = (date: Date) => localDateTime(date).slice(0, 7);
/** Last month: the page's own month unless another is chosen. */
const LAST_MONTH = monthOf(monthsAgo(1));
const MONTH_BEFORE = monthOf(monthsAgo(2));
const YEAR_BEFORE = monthOf(monthsAgo(13));

/** A report of `patient` collected on `day` of the month `months` ago at 07:00, reported at 09:00. */
function collected(externalId: string, patient: object, months: number, day: number, items: object[]) {
  const taken = monthsAgo(months, day);
  return labReport(externalId, {
    patient,
    collectedAt: localDateTime(new Date(taken.setHours(7, 0, 0, 0))),
    reportedAt: localDateTime(new Date(taken.setHours(9, 0, 0, 0))),
    items,
  });
}
const hb = (value: number) => ({ itemCode: "HGB", itemName: "血红蛋白", value, unit: "g/L" });
const alb = (value: number) => ({ itemCode: "ALB", itemName: "白蛋白", value, unit: "g/L" });

/**
 * 张三 (P001, ward A) and 李四 (P002, ward B). Last month: 张三 Hb 120 (at target), Alb 38; 李四
 * Hb 95 and Alb 30 (neither at target). The month before: 张三 Hb 100, 李四 Hb 115. A year before
 * last month: 张三 Hb 118.
 */
const reports = () => [
  collected("QP-ZS-1", ZHANG_SAN, 1, 6, [hb(120), alb(38)]),
  collected("QP-LS-1", LI_SI, 1, 8, [hb(95), alb(30)]),
  collected("QP-ZS-0", ZHANG_SAN, 2, 6, [hb(100)]),
  collected("QP-LS-0", LI_SI, 2, 8, [hb(115)]),
  collected("QP-ZS-Y", ZHANG_SAN, 13, 6, [hb(118)]),
];

interface Figures {
  code: string;
  numerator: number;
  denominator: number;
  rate: number | null;
  patients: { met: string[]; notMet: string[]; untested: string[] };
}

describe("the quality page in chromium (issue #55, contract G.2)", function () {
  this.timeout(180_000);
  const staff = useStaffBrowserSuite(TENANT);
  let adminToken = "";
  const api = async (method: "GET" | "POST", path: string, body?: object) => {
    const answer = await staff.tenant.call(method, path, { token: adminToken, ...(body ? { body } : {}) });
    return answer;
  };
  const month = async (which: string, ward?: string) => {
    const answer = await api("GET", `/api/quality/months/${which}${ward ? `?ward=${ward}` : ""}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as { state: string; indicators: Figures[] };
  };

  before(async function () {
    this.timeout(120_000);
    const made = await staff.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "护士长王丽华", tenant: TENANT, roles: ["admin"] },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    adminToken = made.body.token;
    const saved = await staff.tenant.call("PUT", "/api/patients/P002", {
      token: adminToken,
      body: { ...LI_SI, ward: "B" },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    expect((await staff.tenant.push("lab", reports())).status).to.equal(200);
    await projectionsCaughtUp(staff.service.url!);
  });

  describe("a unit director's month, in Chinese on a laptop", () => {
    let page: Page;
    const ready = () => page.locator(".page-quality .quality-body[data-state=ready]").waitFor({ timeout: 20_000 });
    before(async () => {
      page = await signedInPage(staff, TENANT, { lang: "zh", fragment: "#quality" }, adminToken);
      await page.setViewportSize({ width: 1366, height: 900 });
    });
    after(() => page.close());

    it("opens on last month of every ward, each indicator's rates equal to the API's for it, last month and a year before", async () => {
      await ready();
      expect(await page.locator("#quality-month").inputValue()).to.equal(LAST_MONTH);
      expect(await page.locator(".page-quality h1").textContent()).to.equal("月度质量指标");
      const [now, before, yearAgo] = await Promise.all([month(LAST_MONTH), month(MONTH_BEFORE), month(YEAR_BEFORE)]);
      // Written without inner named functions: the test runner's transpiler would name them with a helper the page lacks.
      const shown = await page.locator("table.quality-figures tbody tr").evaluateAll((rows) =>
        rows.map((row) => ({
          code: row.getAttribute("data-code"),
          counts: Array.from(row.querySelectorAll("td.rate")).map((cell) => [
            cell.className.replace("rate ", ""),
            Number(cell.getAttribute("data-numerator")),
            Number(cell.getAttribute("data-denominator")),
          ]),
        })),
      );
      const of = (answer: { indicators: Figures[] }, code: string) => {
        const figures = answer.indicators.find((entry) => entry.code === code)!;
        return [figures.numerator, figures.denominator];
      };
      expect(shown).to.deep.equal(
        now.indicators.map(({ code }) => ({
          code,
          counts: [
            ["this-month", ...of(now, code)],
            ["last-month", ...of(before, code)],
            ["year-before", ...of(yearAgo, code)],
          ],
        })),
      );
      // Haemoglobin: 1 of 2 last month, 1 of 2 the month before, 1 of 1 a year before.
      const hgb = page.locator("table.quality-figures tr[data-code=HGB_TARGET]");
      expect(await hgb.locator("th").textContent()).to.equal("血红蛋白达标率");
      expect(await hgb.locator("td.this-month .rate-value").textContent()).to.equal("50.0%（1/2）");
      expect(await hgb.locator("td.this-month .change").allTextContents()).to.deep.equal([
        "较上月 ±0.0 个百分点",
        "较去年同月 −50.0 个百分点",
      ]);
      expect(await hgb.locator("td.year-before").textContent()).to.equal("100.0%（1/1）");
      expect(await hgb.locator("td.band").textContent()).to.match(/^110–130 g\/L依据/);
      expect(await hgb.locator("td.band details.source p").textContent()).to.match(
        /^KDIGO Clinical Practice Guideline/,
      );
      expect(await page.locator(".quality-state .state-line").textContent()).to.match(/^未关账/);
      await page.screenshot({ path: `${OUT}quality-zh-laptop.png`, fullPage: true });
    });

    it("lists who is not at target with the last value, and opens the patient's chart at the item and its report", async () => {
      const list = page.locator("details.off-target[data-code=HGB_TARGET]");
      expect(await list.locator("summary").textContent()).to.equal("血红蛋白达标率：1 位未达标");
      await list.locator("summary").click();
      const row = list.locator("tr[data-patient-ref=P002]");
      await row.waitFor();
      expect(await row.locator("th").textContent()).to.equal("李四 · P002");
      expect(await row.locator("td.last-value").textContent()).to.equal("95 g/L");
      expect(await row.locator("td.collected").textContent()).to.match(new RegExp(`^${LAST_MONTH}-08 07:00$`));
      await page.screenshot({ path: `${OUT}quality-zh-not-at-target.png`, fullPage: true });
      await row.locator("a.patient-link").click();
      await page.waitForURL(/#chart\/P002\?code=HGB&report=QP-LS-1$/);
      const card = page.locator(".series-card[data-code=HGB]");
      await card.waitFor({ timeout: 20_000 });
      expect(await card.getAttribute("class")).to.equal("series-card focused");
      expect(await card.locator(".marked-result").getAttribute("data-external-id")).to.equal("QP-LS-1");
      await page.goBack();
      await ready();
    });

    it("closes last month for an administrator, after asking; the figures are then as closed", async () => {
      await page.locator("button.close-month").click();
      const dialog = page.locator("dialog.modal");
      await dialog.locator(".close-month-form").waitFor();
      expect(await dialog.locator("h2").textContent()).to.equal(`关账：${monthWords(LAST_MONTH)}（全部病区）`);
      await expectAccessible(page, "the close dialog (zh)");
      await dialog.getByRole("button", { name: "关账", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      await page.locator(".status", { hasText: `${monthWords(LAST_MONTH)}（全部病区）已关账。` }).waitFor();
      await page.locator(".quality-month[data-state=closed]").waitFor({ timeout: 20_000 });
      await ready();
      expect(await page.locator(".quality-state .state-line").textContent()).to.match(
        /^已关账：.+ 由 护士长王丽华 关账/,
      );
      expect(await page.locator("button.close-month").count()).to.equal(0);
      expect(await page.locator(".quality-restatement .empty").textContent()).to.equal("关账之后没有任何变化。");
      expect((await month(LAST_MONTH)).state).to.equal("closed");
    });

    it("shows a late result and a corrected report after the close as the restatement, each with its reason in words", async () => {
      // 李四's Hb of the 20th arrives after the close (at target now); 张三's report of the 6th is corrected to Hb 140.
      expect(
        (
          await staff.tenant.push("lab", [
            collected("QP-LS-LATE", LI_SI, 1, 20, [hb(118)]),
            collected("QP-ZS-1", ZHANG_SAN, 1, 6, [hb(140), alb(38)]),
          ])
        ).status,
      ).to.equal(200);
      await projectionsCaughtUp(staff.service.url!);
      await page.reload();
      await page.locator(".quality-restatement .restated[data-code=HGB_TARGET]").waitFor({ timeout: 20_000 });
      const hgb = page.locator(".quality-restatement .restated[data-code=HGB_TARGET]");
      expect(await hgb.locator(".closed-and-now").textContent()).to.equal("关账时 50.0%（1/2），现在 50.0%（1/2）");
      const liSi = hgb.locator("li[data-patient-ref=P002]");
      expect(await liSi.locator(".place-change").textContent()).to.equal("未达标 → 达标");
      expect(await liSi.locator(".reasons li").allTextContents()).to.deep.equal([
        `迟到的结果：报告 QP-LS-LATE 于 ${await recordedAt("QP-LS-LATE")} 收到（关账之后）`,
      ]);
      const zhangSan = hgb.locator("li[data-patient-ref=P001]");
      expect(await zhangSan.locator(".place-change").textContent()).to.equal("达标 → 未达标");
      expect(await zhangSan.locator(".reasons li").allTextContents()).to.deep.equal([
        `更正的报告：报告 QP-ZS-1 于 ${await recordedAt("QP-ZS-1")} 被检验科更正`,
      ]);
      expect(await liSi.locator("a.patient-link").getAttribute("href")).to.equal(
        "#chart/P002?code=HGB&report=QP-LS-LATE",
      );
      // The closed figures never change.
      const hgbNow = (await month(LAST_MONTH)).indicators.find((entry) => entry.code === "HGB_TARGET")!;
      expect(hgbNow.patients).to.deep.include({ met: ["P001"], notMet: ["P002"] });
      await page.screenshot({ path: `${OUT}quality-zh-restatement.png`, fullPage: true });
    });

    it("says in Chinese why a month closed meanwhile cannot be closed again (409)", async () => {
      await page.locator("#quality-ward").selectOption("B");
      await page.getByRole("button", { name: "显示" }).click();
      await page.locator(".quality-month[data-state=open]").waitFor();
      expect(await page.evaluate(() => location.hash)).to.equal(`#quality?month=${LAST_MONTH}&ward=B`);
      expect((await api("POST", `/api/quality/months/${LAST_MONTH}/close`, { ward: "B" })).status).to.equal(201);
      await page.locator("button.close-month").click();
      const dialog = page.locator("dialog.modal");
      await dialog.getByRole("button", { name: "关账", exact: true }).click();
      await dialog.locator(".form-error", { hasText: "这个月（此病区）已经关账，不能重复关账。" }).waitFor();
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
    });

    /** When the store recorded a report's last version, as the restatement says it (local, to the minute). */
    async function recordedAt(externalId: string): Promise<string> {
      const history = await api("GET", `/api/history/lab/${externalId}`);
      const last = (history.body.entries as Array<{ event: string; at: string }>)
        .filter((entry) => entry.event === "RECEIVED")
        .at(-1)!;
      return last.at.replace("T", " ").slice(0, 16);
    }
  });

  describe("for each role, language and screen", () => {
    it("offers the page to a clinician of a ward, on that ward alone, and not to a viewer", async () => {
      const token = async (roles: string[], wards?: string[]) =>
        (
          await staff.tenant.call("POST", "/api/admin/authors", {
            token: ADMIN,
            body: { name: `Dr ${roles[0]}`, tenant: TENANT, roles, wards },
          })
        ).body.token as string;
      const clinician = await signedInPage(
        staff,
        TENANT,
        { lang: "en", fragment: "#quality" },
        await token(["clinician"], ["A"]),
      );
      await clinician.locator(".page-quality .quality-body[data-state=ready]").waitFor({ timeout: 20_000 });
      expect(await clinician.locator("#quality-ward option").allTextContents()).to.deep.equal(["A"]);
      expect(await clinician.locator("button.close-month").count()).to.equal(0);
      expect(await clinician.locator(".tabs a[data-page-link=quality]").textContent()).to.equal("Quality");
      await clinician.close();
      const viewer = await signedInPage(staff, TENANT, { lang: "en", fragment: "#reports" }, await token(["viewer"]));
      expect(await viewer.locator(".tabs a[data-page-link=quality]").count()).to.equal(0);
      await viewer.close();
    });

    for (const lang of ["zh", "en"] as const) {
      for (const viewport of [
        { name: "phone", width: 390, height: 844 },
        { name: "laptop", width: 1366, height: 768 },
      ]) {
        it(`${lang}, ${viewport.width} px: the month, its lists and its restatement accessible and within the screen`, async () => {
          const page = await signedInPage(staff, TENANT, { lang, fragment: "#quality" }, adminToken);
          try {
            await page.setViewportSize({ width: viewport.width, height: viewport.height });
            await page.locator(".page-quality .quality-body[data-state=ready]").waitFor({ timeout: 20_000 });
            await page.locator(".quality-restatement .restated").first().waitFor({ timeout: 20_000 });
            for (const code of ["HGB_TARGET", "ALB_TARGET"]) {
              await page.locator(`details.off-target[data-code=${code}] summary`).click();
              await page.locator(`details.off-target[data-code=${code}] .page-body[data-state=ready]`).waitFor();
            }
            await page.locator("table.quality-figures tr[data-code=KTV_TARGET] details.source summary").click();
            const where = `the quality page (${lang}, ${viewport.width} px)`;
            await expectNoSidewaysScroll(page, where);
            await expectAccessible(page, where);
            if (lang === "en") {
              expect(await page.locator("h1").textContent()).to.equal("Monthly quality figures");
              // The closed month's list is as frozen: 李四 is on it, with the late value that put her at target since.
              expect(
                await page
                  .locator("details.off-target[data-code=HGB_TARGET] tr[data-patient-ref=P002] td.last-value")
                  .textContent(),
              ).to.equal("118 g/L · at target now");
              expect(await page.locator("#quality-month option:checked").textContent()).to.match(/^[A-Z][a-z]+ \d{4}$/);
              expect(
                await page.locator(".quality-restatement li[data-patient-ref=P002] .reasons li").first().textContent(),
              ).to.match(/^Late result: report QP-LS-LATE arrived on \d{4}-\d\d-\d\d \d\d:\d\d, after the close$/);
            }
            await page.screenshot({ path: `${OUT}quality-${lang}-${viewport.name}.png`, fullPage: true });
            if (lang === "en" && viewport.name === "phone") {
              // The 409 in English: ward A closed behind the page's back.
              await page.locator("#quality-ward").selectOption("A");
              await page.getByRole("button", { name: "Show" }).click();
              await page.locator(".quality-month[data-state=open]").waitFor();
              expect((await api("POST", `/api/quality/months/${LAST_MONTH}/close`, { ward: "A" })).status).to.equal(
                201,
              );
              await page.locator("button.close-month").click();
              const dialog = page.locator("dialog.modal");
              await dialog.getByRole("button", { name: "Close the month", exact: true }).click();
              await dialog
                .locator(".form-error", { hasText: /^This month \(of this ward\) was closed already/ })
                .waitFor();
              await expectNoSidewaysScroll(page, "the close refused (en, 390 px)");
              await expectAccessible(page, "the close refused (en, 390 px)");
              await page.screenshot({ path: `${OUT}quality-en-phone-refused.png` });
            }
          } finally {
            await page.close();
          }
        });
      }
    }

    it("records no Content Security Policy violation", async () => {
      expect(staff.cspViolations).to.deep.equal([]);
    });
  });
});

/** `2026-11` as the Chinese page writes it: 2026年11月. */
function monthWords(month: string): string {
  return `${Number(month.slice(0, 4))}年${Number(month.slice(5, 7))}月`;
}

import { expect } from "chai";
import type { Locator, Page } from "playwright-core";
import { labReport, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { OUT, useStaffBrowserSuite, signedInPage } from "./staffSuite.ts";
import { expectViewFits } from "./viewFits.ts";

/*
 * Issue #34, item 2: a report could be claimed for the wrong person without a word (Claim… on
 * 马丽华's report, search HD0002, pick 袁金龙, Claim: accepted at once), and a stale "choose a
 * patient first" stayed on screen after choosing. Now the report's patient stands beside the
 * chosen one — name, id card masked, birth date and sex from the id card, HIS id — each difference
 * marked in words, and claiming someone else's report waits for "I have checked". In English and
 * Chinese, at a desk and at a phone's 390 px.
 */

const TENANT = "h1";
const YUAN = { name: "袁金龙", idCard: "110108195803170156", hisPatientId: "H-2" }; // born 1958-03-17, a man
const MA = { name: "马丽华", idCard: "320102196208040221", hisPatientId: "H-9" }; // born 1962-08-04, a woman; no patient

const WORDS = {
  en: {
    claim: (id: string) => `Claim report ${id}`,
    claimButton: "Claim",
    search: "Search patients",
    choose: "Choose a patient first.",
    heading: "Check the patient",
    head: ["Fact", "Report says", "Chosen patient"],
    other: [
      ["Name", "马丽华", "袁金龙≠ Differs"],
      ["Id card", "320102********0221", "110108********0156≠ Differs"],
      ["Birth date", "1962-08-04", "Not shown (hidden digits of the id card)≠ Differs"],
      ["Sex", "Female", "Male≠ Differs"],
      ["HIS id", "H-9", "H-2≠ Differs"],
    ],
    otherVerdict:
      "Differs from the report: Name, Id card, Birth date, Sex, HIS id. Make sure this report is the chosen patient's.",
    confirm: "I have checked: this report belongs to 袁金龙 (HD0002).",
    confirmFirst:
      "The report does not match 袁金龙: tick “I have checked” to claim it anyway, or choose another patient.",
    claimedYuan: (id: string) => `Report ${id} was claimed for 袁金龙 (HD0002).`,
    same: [
      ["Name", "张三", "张三✓ Same"],
      ["Id card", "Not on the report", "110105********002X"],
      ["Birth date", "Not on the report", "Not shown (hidden digits of the id card)"],
      ["Sex", "Not on the report", "Female"],
      ["HIS id", "H-1", "—"],
    ],
    sameVerdict: "Nothing the report says differs from this patient.",
    noCard: "The report has no id card: its birth date and sex cannot be checked.",
    claimedZhang: (id: string) => `Report ${id} was claimed for 张三 (P001).`,
    renamed: [
      ["Name", "张叁", "张三≠ Differs"],
      ["Id card", "110105********002X", "110105********002X✓ Same"],
      ["Birth date", "1949-12-31", "1949-12-31✓ Same"],
      ["Sex", "Female", "Female✓ Same"],
    ],
    renamedVerdict: "Differs from the report: Name. Make sure this report is the chosen patient's.",
  },
  zh: {
    claim: (id: string) => `认领报告 ${id}`,
    claimButton: "认领",
    search: "搜索患者",
    choose: "请先选择一位患者。",
    heading: "核对患者",
    head: ["项目", "报告所写", "所选患者"],
    other: [
      ["姓名", "马丽华", "袁金龙≠ 不一致"],
      ["身份证号", "320102********0221", "110108********0156≠ 不一致"],
      ["出生日期", "1962-08-04", "不显示（属身份证号隐藏位）≠ 不一致"],
      ["性别", "女", "男≠ 不一致"],
      ["HIS 号", "H-9", "H-2≠ 不一致"],
    ],
    otherVerdict: "与报告不一致：姓名、身份证号、出生日期、性别、HIS 号。请确认这份报告确实属于所选患者。",
    confirm: "我已核对：这份报告属于 袁金龙（HD0002）。",
    confirmFirst: "报告与 袁金龙 的信息不一致：请勾选“我已核对”后再认领，或选择其他患者。",
    claimedYuan: (id: string) => `报告 ${id} 已认领给 袁金龙 (HD0002)。`,
    same: [
      ["姓名", "张三", "张三✓ 一致"],
      ["身份证号", "报告未提供", "110105********002X"],
      ["出生日期", "报告未提供", "不显示（属身份证号隐藏位）"],
      ["性别", "报告未提供", "女"],
      ["HIS 号", "H-1", "—"],
    ],
    sameVerdict: "报告所写与此患者没有不一致之处。",
    noCard: "报告没有身份证号：无法核对出生日期和性别。",
    claimedZhang: (id: string) => `报告 ${id} 已认领给 张三 (P001)。`,
    renamed: [
      ["姓名", "张叁", "张三≠ 不一致"],
      ["身份证号", "110105********002X", "110105********002X✓ 一致"],
      ["出生日期", "1949-12-31", "1949-12-31✓ 一致"],
      ["性别", "女", "女✓ 一致"],
    ],
    renamedVerdict: "与报告不一致：姓名。请确认这份报告确实属于所选患者。",
  },
} as const;

const rowsOf = (table: Locator) =>
  table
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("th, td")].map((cell) => cell.textContent)));

describe("claiming a report checks its patient against the chosen one (#34 item 2) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT);
  let page: Page;
  const dialog = () => page.locator("dialog:has(.claim-form)");
  const check = () => dialog().locator(".claim-check");
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });
  const inQueue = async (externalId: string) =>
    (await staff.tenant.unmatched()).some((entry) => entry.externalId === externalId);

  /** Opens the claim dialog of `externalId`, searches `search` (when given) and picks `patientRef`: the check is then shown. */
  async function choose(
    words: (typeof WORDS)["en" | "zh"],
    externalId: string,
    patientRef: string,
    search?: string,
  ): Promise<void> {
    await page.getByRole("button", { name: words.claim(externalId) }).click();
    await dialog().waitFor();
    await ready("dialog .picker-results");
    if (search) {
      await dialog().getByLabel(words.search).fill(search);
      await dialog().getByLabel(words.search).press("Enter");
      await page.waitForFunction(
        (ref) => document.querySelector(`dialog .picker-option[data-patient-ref="${ref}"]`) !== null,
        patientRef,
      );
    }
    await dialog().locator(`.picker-option[data-patient-ref="${patientRef}"] input[type=radio]`).check();
    await ready("dialog .claim-check-body");
  }

  before(async () => {
    const token = staff.tenant.authorToken;
    expect(
      (await staff.tenant.call("PUT", "/api/patients/HD0002", { token, body: { ...YUAN, ward: "A" } })).status,
    ).to.equal(200);
    const reports = ["en", "zh"].flatMap((lang) => [
      labReport(`MA-${lang}`, { patient: MA }),
      labReport(`ZS-${lang}`, { patient: { name: ZHANG_SAN.name, hisPatientId: "H-1" } }),
      labReport(`TY-${lang}`, { patient: { name: "张叁", idCard: ZHANG_SAN.idCard } }),
    ]);
    const pushed = await staff.tenant.push("lab", reports);
    expect(pushed.body.data.results.every((result: { matched: boolean }) => !result.matched)).to.equal(true);
    await until(async () => (await staff.tenant.unmatched()).length === reports.length, 10_000);
    page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#unmatched" }, token);
  });

  for (const lang of ["en", "zh"] as const) {
    const words = WORDS[lang];

    it(`${lang}: claiming 马丽华's report for 袁金龙 shows every difference and waits for "I have checked"; the stale error clears`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#unmatched`);
      await ready(".page-unmatched .page-body");
      const externalId = `MA-${lang}`;
      await page.getByRole("button", { name: words.claim(externalId) }).click();
      await ready("dialog .picker-results");
      // Claiming without a choice says so; choosing answers it, and the sentence goes.
      await dialog().getByRole("button", { name: words.claimButton, exact: true }).click();
      const problem = dialog().locator(".form-error");
      expect(await problem.textContent()).to.equal(words.choose);
      await dialog().getByLabel(words.search).fill("HD0002");
      await dialog().getByLabel(words.search).press("Enter");
      await page.waitForFunction(
        () => document.querySelector('dialog .picker-option[data-patient-ref="HD0002"]') !== null,
      );
      await dialog().locator('.picker-option[data-patient-ref="HD0002"] input[type=radio]').check();
      expect(await problem.isHidden(), "no stale 'choose a patient first' once a patient is chosen").to.equal(true);
      await ready("dialog .claim-check-body");

      expect(await check().locator("h3").textContent()).to.equal(words.heading);
      const table = check().locator("table.claim-compare");
      expect(await table.locator("thead th").allTextContents()).to.deep.equal(words.head);
      expect(await rowsOf(table)).to.deep.equal(words.other);
      expect(
        await table
          .locator("tbody tr")
          .evaluateAll((rows) =>
            rows.map((row) => `${(row as HTMLElement).dataset.fact}:${(row as HTMLElement).dataset.check}`),
          ),
      ).to.deep.equal(["name:differs", "idCard:differs", "birthDate:differs", "sex:differs", "hisPatientId:differs"]);
      expect(await check().locator(".claim-verdict").textContent()).to.equal(words.otherVerdict);
      const confirmation = dialog().getByLabel(words.confirm);
      expect(await confirmation.isVisible()).to.equal(true);
      expect(await confirmation.isChecked()).to.equal(false);
      const text = (await dialog().textContent())!;
      for (const hidden of [YUAN.idCard, MA.idCard, "1958-03-17"])
        expect(text, "neither whole id card, nor the hidden digits of the patient's").not.to.include(hidden);
      await dialog().locator(".claim-confirm").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${OUT}claim-check-other-${lang}.png` });
      await expectAccessible(page, `the claim dialog with another person's report (${lang})`);

      // Claim: refused until the person says they checked; the report stays in the queue.
      await dialog().getByRole("button", { name: words.claimButton, exact: true }).click();
      await page.waitForFunction(
        (sentence) => document.querySelector("dialog .form-error")?.textContent === sentence,
        words.confirmFirst,
      );
      expect(await problem.isVisible()).to.equal(true);
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).to.equal(
        "confirmed",
      );
      expect(await inQueue(externalId)).to.equal(true);
      await confirmation.check();
      expect(await problem.isHidden(), "ticking answers the sentence").to.equal(true);
      await dialog().getByRole("button", { name: words.claimButton, exact: true }).click();
      await page.locator(".status", { hasText: words.claimedYuan(externalId) }).waitFor();
      await ready(".page-unmatched .page-body");
      expect(await inQueue(externalId)).to.equal(false);
      const attached = await staff.service.db.query("select patient_ref from read.lab_reports where external_id = $1", [
        externalId,
      ]);
      expect(attached.rows).to.deep.equal([{ patient_ref: "HD0002" }]);
    });

    it(`${lang}: claiming a report for the same person asks nothing more, and says what the report could not tell`, async () => {
      const externalId = `ZS-${lang}`;
      // The search starts from the name the report sent: 张三 is offered.
      await choose(words, externalId, "P001");
      const table = check().locator("table.claim-compare");
      expect(await rowsOf(table)).to.deep.equal(words.same);
      expect(await check().locator(".claim-verdict").textContent()).to.equal(words.sameVerdict);
      expect(await check().locator(".claim-note").textContent()).to.equal(words.noCard);
      expect(await check().locator(".claim-confirm").isHidden()).to.equal(true);
      await dialog().locator(".claim-verdict").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${OUT}claim-check-same-${lang}.png` });
      await dialog().getByRole("button", { name: words.claimButton, exact: true }).click();
      await page.locator(".status", { hasText: words.claimedZhang(externalId) }).waitFor();
      await ready(".page-unmatched .page-body");
      expect(await inQueue(externalId)).to.equal(false);
    });

    it(`${lang}: fits a phone's 390 px: the patient's own id card under another name, birth date and sex agreeing`, async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await choose(words, `TY-${lang}`, "P001", "P001");
        const table = check().locator("table.claim-compare");
        expect(await rowsOf(table)).to.deep.equal(words.renamed);
        expect(await check().locator(".claim-verdict").textContent()).to.equal(words.renamedVerdict);
        expect(
          await dialog()
            .getByLabel(
              words.confirm.replace("袁金龙 (HD0002)", "张三 (P001)").replace("袁金龙（HD0002）", "张三（P001）"),
            )
            .isVisible(),
        ).to.equal(true);
        await check().scrollIntoViewIfNeeded();
        await expectViewFits(page, `the claim check at 390 px (${lang})`);
        const dialogWidth = await dialog().evaluate((element) => ({
          scroll: element.scrollWidth,
          client: element.clientWidth,
        }));
        expect(dialogWidth.scroll, "the dialog itself does not scroll sideways").to.be.at.most(dialogWidth.client);
        const search = await dialog()
          .locator(".search-row button")
          .evaluate((element) => {
            const range = document.createRange();
            range.selectNodeContents(element);
            return {
              text: element.textContent,
              lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size,
            };
          });
        expect(search.lines, `the ${search.text} button beside the search field in ${search.lines} lines`).to.equal(1);
        await expectAccessible(page, `the claim check at 390 px (${lang})`);
        await page.screenshot({ path: `${OUT}claim-check-390-${lang}.png` });
        await page.keyboard.press("Escape");
        await dialog().waitFor({ state: "detached" });
        expect(await inQueue(`TY-${lang}`), "closing claims nothing").to.equal(true);
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      expect(staff.cspViolations).to.deep.equal([]);
    });
  }
});

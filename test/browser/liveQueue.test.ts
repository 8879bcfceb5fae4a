import { expect } from "chai";
import type { Locator, Page } from "playwright-core";
import { labReport, LI_SI } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";
import { expectViewFits } from "./viewFits.ts";

/*
 * Issue #54 deliverable 5 on the staff pages: the unmatched queue shows the newest report first,
 * follows the queue by itself while it is open (a report that arrives shows, marked new; one
 * claimed elsewhere goes), and is searched by name, a whole id card and the externalId; on a
 * phone's 390 px, in English and Chinese, and the claim dialog keeps the patient's name whole.
 */

const TENANT = "h1";
const WANG_WU = { name: "王五", idCard: "110101199003070011" };

const WORDS = {
  en: {
    search: "Search the queue",
    kind: "Kind of report",
    found: (count: number) => `${count} matching`,
    waiting: (count: number) => `${count} waiting, newest first`,
    claim: (id: string) => `Claim report ${id}`,
    newMark: "New",
    none: "No waiting report matches “nobody”.",
  },
  zh: {
    search: "搜索待认领报告",
    kind: "报告类型",
    found: (count: number) => `找到 ${count} 份相符的报告`,
    waiting: (count: number) => `共 ${count} 份待认领，最新的在前`,
    claim: (id: string) => `认领报告 ${id}`,
    newMark: "新到",
    none: "没有与“nobody”相符的待认领报告。",
  },
} as const;

describe("the unmatched queue live, newest first and searched (issue #54) in chromium", function () {
  this.timeout(180_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 390, height: 844 } });

  const rowIds = (page: Page) =>
    page.locator(".page-unmatched tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-external-id")));
  const waitForRows = (page: Page, ids: string[]) =>
    page.waitForFunction(
      (expected) =>
        JSON.stringify(
          [...document.querySelectorAll(".page-unmatched tbody tr")].map((tr) => tr.getAttribute("data-external-id")),
        ) === JSON.stringify(expected),
      ids,
      { timeout: 20_000 },
    );

  for (const lang of ["en", "zh"] as const) {
    it(`${lang}: newest first, a report that arrives shows by itself marked new, one claimed elsewhere goes`, async () => {
      const words = WORDS[lang];
      const prefix = `LQ-${lang}`;
      for (const n of [1, 2]) await staff.tenant.push("lab", [labReport(`${prefix}-${n}`, { patient: LI_SI })]);
      await until(async () => (await staff.tenant.unmatched()).length === 2, 15_000);

      const page = await signedInPage(staff, TENANT, { lang, fragment: "#unmatched" });
      await page.locator(".page-unmatched .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      expect(await rowIds(page), "newest first").to.deep.equal([`${prefix}-2`, `${prefix}-1`]);
      expect(await page.locator(".page-unmatched .count").textContent()).to.equal(words.waiting(2));

      // Sent by the laboratory while the nurse looks at the page: no Refresh.
      await staff.tenant.push("lab", [labReport(`${prefix}-3`, { patient: WANG_WU })]);
      await waitForRows(page, [`${prefix}-3`, `${prefix}-2`, `${prefix}-1`]);
      const arrived = page.locator(`.page-unmatched tr[data-external-id="${prefix}-3"]`);
      expect(await arrived.locator(".new-badge").textContent()).to.equal(words.newMark);
      expect(await page.locator(".page-unmatched .count").textContent()).to.equal(words.waiting(3));
      await expectAccessible(page, `the queue with a report just arrived (${lang})`);
      await expectViewFits(page, `the queue with a report just arrived (${lang})`);
      await page.screenshot({ path: `${OUT}live-queue-arrived-${lang}.png`, fullPage: true });

      // Claimed by someone else (another page, the API): it leaves this page too.
      const claimed = await staff.tenant.call("POST", `/api/unmatched/lab/${prefix}-2/claim`, {
        token: staff.tenant.authorToken,
        body: { patientRef: "P001" },
      });
      expect(claimed.status).to.equal(200);
      await waitForRows(page, [`${prefix}-3`, `${prefix}-1`]);

      // Searched by name, by a whole id card, by externalId, and by a text nothing matches.
      const search = page.getByLabel(words.search);
      for (const [text, expected] of [
        [WANG_WU.name, [`${prefix}-3`]],
        [LI_SI.idCard, [`${prefix}-1`]],
        [`${prefix}-1`.toLowerCase(), [`${prefix}-1`]],
      ] as const) {
        await search.fill(text);
        await waitForRows(page, [...expected]);
        expect(await page.locator(".page-unmatched .count").textContent(), text).to.equal(words.found(expected.length));
      }
      await search.fill("nobody");
      await page.locator(".page-unmatched .empty").filter({ hasText: words.none }).waitFor();
      await search.fill("");
      await page.getByLabel(words.kind).selectOption("lab");
      await waitForRows(page, [`${prefix}-3`, `${prefix}-1`]);
      await search.fill(WANG_WU.idCard);
      await waitForRows(page, [`${prefix}-3`]);
      await expectAccessible(page, `the queue searched by id card (${lang})`);
      await expectViewFits(page, `the queue searched by id card (${lang})`);
      await page.screenshot({ path: `${OUT}live-queue-searched-${lang}.png`, fullPage: true });

      // The claim dialog on a phone: the name as sent reads on one line, not a character a line.
      await page.getByRole("button", { name: words.claim(`${prefix}-3`) }).click();
      const name = page.locator("dialog[open] .sent-patient dd").nth(1);
      await name.waitFor();
      expect(await name.textContent()).to.equal(WANG_WU.name);
      const box = (await name.boundingBox())!;
      const lineHeight = await name.evaluate((dd) => parseFloat(getComputedStyle(dd).lineHeight) || 24);
      expect(box.height, "the name on one line").to.be.below(lineHeight * 1.5);
      // The patient to choose, and the comparison with the report, keep each name on one line too.
      const picker = page.locator("dialog[open] .picker input[type=search]");
      await picker.fill("P001");
      const option = page.locator('dialog[open] .picker-option[data-patient-ref="P001"]');
      await option.locator(".picker-name").waitFor();
      await page.screenshot({ path: `${OUT}live-queue-claim-dialog-${lang}.png`, fullPage: true });
      const oneLine = async (what: string, element: Locator) => {
        const height = (await element.boundingBox())!.height;
        expect(height, `${what} ${await element.textContent()} on one line`).to.be.below(lineHeight * 1.5);
      };
      await oneLine("the patient to choose", option.locator(".picker-name"));
      await option.click();
      const compared = page.locator("dialog[open] .claim-compare");
      await compared.waitFor();
      for (const value of await compared.locator('tr[data-fact="name"] td .value').all())
        await oneLine("the name compared", value);
      await expectAccessible(page, `the claim dialog (${lang})`);
      await expectViewFits(page, `the claim dialog (${lang})`);
      await page.keyboard.press("Escape");

      // The reports of this language's run leave the queue for the next.
      for (const id of [`${prefix}-1`, `${prefix}-3`])
        await staff.tenant.call("POST", `/api/unmatched/lab/${id}/dismiss`, {
          token: staff.tenant.authorToken,
          body: { reason: "test done" },
        });
      await until(async () => (await staff.tenant.unmatched()).length === 0, 15_000);
      await page.close();
    });
  }
});

import { expect } from "chai";
import { labReport, LI_SI } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #52 finding 3 on the staff pages: the unmatched queue is read a page at a time (contract
 * E.6). The page shows the newest 100 (issue #54: newest first), says how many wait, and reads the
 * next page when the person asks, below the reports already shown; on a phone's 390 px, in English and Chinese.
 */

const TENANT = "h1";
const WAITING = 130;

const WORDS = {
  en: {
    more: "Show more",
    shownSoFar: `${WAITING} waiting; the newest 100 are shown`,
    all: `${WAITING} waiting, newest first`,
  },
  zh: {
    more: "显示更多",
    shownSoFar: `共 ${WAITING} 份待认领，已显示最新的 100 份`,
    all: `共 ${WAITING} 份待认领，最新的在前`,
  },
} as const;

describe("the unmatched queue a page at a time (contract E.6) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 390, height: 844 } });

  before(async () => {
    const ids = Array.from({ length: WAITING }, (_, i) => `PAGED-${String(i).padStart(3, "0")}`);
    for (let i = 0; i < ids.length; i += 100)
      await staff.tenant.push(
        "lab",
        ids.slice(i, i + 100).map((id) => labReport(id, { patient: LI_SI })),
      );
    await until(async () => (await staff.tenant.unmatched()).length === WAITING, 15_000);
  });

  for (const lang of ["en", "zh"] as const) {
    it(`${lang}: shows the newest 100, says more are waiting, and shows the rest below them when asked`, async () => {
      const page = await signedInPage(staff, TENANT, { lang, fragment: "#unmatched" });
      const rows = page.locator(".page-unmatched tbody tr");
      await page.locator(".page-unmatched .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
      expect(await rows.count()).to.equal(100);
      expect(await rows.first().getAttribute("data-external-id")).to.equal(`PAGED-${WAITING - 1}`);
      expect(await page.locator(".page-unmatched .count").textContent()).to.equal(WORDS[lang].shownSoFar);
      const more = page.getByRole("button", { name: WORDS[lang].more });
      await expectAccessible(page, `the first page of the queue (${lang})`);
      await expectNoSidewaysScroll(page, `the first page of the queue (${lang})`);

      await more.click();
      await page.waitForFunction(
        (count) => document.querySelectorAll(".page-unmatched tbody tr").length === count,
        WAITING,
      );
      const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-external-id")));
      expect(shown, "each report once, newest first").to.deep.equal(
        Array.from({ length: WAITING }, (_, i) => `PAGED-${String(WAITING - 1 - i).padStart(3, "0")}`),
      );
      expect(await page.locator(".page-unmatched .count").textContent()).to.equal(WORDS[lang].all);
      expect(await more.count(), "no more to show").to.equal(0);
      await page.screenshot({ path: `${OUT}paged-queue-${lang}.png`, fullPage: false });
      await page.close();
    });
  }
});

import { expect } from "chai";
import type { Page } from "playwright-core";
import { ADMIN } from "../support/http.ts";
import { labReport, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";
import { expectViewFits } from "./viewFits.ts";

/*
 * Issue #51 finding 6: a claim made on the queue as the page showed it silently overrode a
 * dismissal someone else made a second before. The page now sends each decision with the report
 * as it showed it; when the report changed meanwhile the person is told so in their language, with
 * who did what and when, the queue behind shows the report as it is, and the decision cannot be
 * sent again from the stale dialog. At a phone's 390 px, in English and Chinese.
 */

const TENANT = "h1";
const SENT = { name: ZHANG_SAN.name, hisPatientId: "H-1" };

const WORDS = {
  en: {
    claim: (id: string) => `Claim report ${id}`,
    dismiss: (id: string) => `Dismiss report ${id}`,
    claimButton: "Claim",
    dismissButton: "Dismiss",
    cancel: "Cancel",
    reason: "Reason",
    search: "Search patients",
    claimRefused:
      /^Someone else dealt with this report, or it was sent again, since you opened it; nothing was done\. Last change: Nurse Wang dismissed the report at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(reason: sent to the wrong centre\)\. The queue behind this dialog now shows the report as it is; close this dialog and open the report again if it still needs you\.$/,
    dismissRefused:
      /^Someone else dealt with this report, or it was sent again, since you opened it; nothing was done\. Last change: Nurse Wang claimed the report at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\. The queue behind/,
  },
  zh: {
    claim: (id: string) => `认领报告 ${id}`,
    dismiss: (id: string) => `搁置报告 ${id}`,
    claimButton: "认领",
    dismissButton: "搁置",
    cancel: "取消",
    reason: "理由",
    search: "搜索患者",
    claimRefused:
      /^这份报告在您打开之后已被他人处理或重新发送，本次操作未执行。 最近一次变更：Nurse Wang 于 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d 搁置了这份报告（原因：sent to the wrong centre）。 待认领列表已刷新，显示报告的最新状态；如仍需处理，请关闭此窗口后重新打开这份报告。$/,
    dismissRefused:
      /^这份报告在您打开之后已被他人处理或重新发送，本次操作未执行。 最近一次变更：Nurse Wang 于 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d 认领了这份报告。 待认领列表已刷新/,
  },
} as const;

describe("a claim or dismissal on a report someone else decided meanwhile is refused and said (issue #51) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 390, height: 844 } });
  let page: Page;
  let wang: string;
  const dialog = () => page.locator("dialog[open]");
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });
  const row = (externalId: string) => page.locator(`.page-unmatched tr[data-external-id="${externalId}"]`);
  const decisions = async (externalId: string) =>
    (
      (await staff.tenant.call("GET", `/api/history/lab/${externalId}`, { token: ADMIN })).body.entries as Array<{
        event: string;
        by: string;
      }>
    ).map((entry) => `${entry.event} ${entry.by}`);

  before(async () => {
    const made = await staff.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Nurse Wang", tenant: TENANT },
    });
    wang = made.body.token;
    const reports = ["en", "zh"].flatMap((lang) => [
      labReport(`LATE-CLAIM-${lang}`, { patient: SENT }),
      labReport(`LATE-DISMISS-${lang}`, { patient: SENT }),
    ]);
    await staff.tenant.push("lab", reports);
    await until(async () => (await staff.tenant.unmatched()).length === reports.length, 10_000);
    page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#unmatched" });
  });

  for (const lang of ["en", "zh"] as const) {
    const words = WORDS[lang];

    it(`${lang}: a claim after someone else's dismissal is refused, says who dismissed it, when and why, and the queue no longer offers it`, async () => {
      const externalId = `LATE-CLAIM-${lang}`;
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#unmatched`);
      await ready(".page-unmatched .page-body");
      await page.getByRole("button", { name: words.claim(externalId) }).click();
      await ready("dialog .picker-results");
      await dialog().getByLabel(words.search).fill("P001");
      await dialog().getByLabel(words.search).press("Enter");
      await page.waitForFunction(
        () => document.querySelector('dialog .picker-option[data-patient-ref="P001"]') !== null,
      );
      await dialog().locator('.picker-option[data-patient-ref="P001"] input[type=radio]').check();
      await ready("dialog .claim-check-body");
      // While the person reads the check, a colleague dismisses the report.
      const dismissed = await staff.tenant.call("POST", `/api/unmatched/lab/${externalId}/dismiss`, {
        token: wang,
        body: { reason: "sent to the wrong centre" },
      });
      expect(dismissed.status).to.equal(200);
      await dialog().getByRole("button", { name: words.claimButton, exact: true }).click();

      const problem = dialog().locator(".form-error");
      await problem.waitFor();
      expect(await problem.textContent()).to.match(words.claimRefused);
      expect(
        await dialog().getByRole("button", { name: words.claimButton, exact: true }).isHidden(),
        "the stale decision cannot be sent again",
      ).to.equal(true);
      expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal(words.cancel);
      await row(externalId).waitFor({ state: "detached" });
      expect(await decisions(externalId), "the dismissal stands").to.deep.equal([
        "RECEIVED Central lab LIS",
        "DISMISSED Nurse Wang",
      ]);
      await problem.scrollIntoViewIfNeeded();
      await expectViewFits(page, `the refused claim at 390 px (${lang})`);
      await expectAccessible(page, `the refused claim at 390 px (${lang})`);
      await page.screenshot({ path: `${OUT}queue-claim-refused-390-${lang}.png` });
      await page.keyboard.press("Escape");
      await dialog().waitFor({ state: "detached" });
    });

    it(`${lang}: a dismissal after someone else's claim is refused and says who claimed it`, async () => {
      const externalId = `LATE-DISMISS-${lang}`;
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#unmatched`);
      await ready(".page-unmatched .page-body");
      await page.getByRole("button", { name: words.dismiss(externalId) }).click();
      await dialog().getByLabel(words.reason).fill("not ours");
      expect(
        (
          await staff.tenant.call("POST", `/api/unmatched/lab/${externalId}/claim`, {
            token: wang,
            body: { patientRef: "P001" },
          })
        ).status,
      ).to.equal(200);
      await dialog().getByRole("button", { name: words.dismissButton, exact: true }).click();
      const problem = dialog().locator(".form-error");
      await problem.waitFor();
      expect(await problem.textContent()).to.match(words.dismissRefused);
      expect(await dialog().getByRole("button", { name: words.dismissButton, exact: true }).isHidden()).to.equal(true);
      await row(externalId).waitFor({ state: "detached" });
      expect(await decisions(externalId)).to.deep.equal(["RECEIVED Central lab LIS", "CLAIMED Nurse Wang"]);
      await expectViewFits(page, `the refused dismissal at 390 px (${lang})`);
      await expectAccessible(page, `the refused dismissal at 390 px (${lang})`);
      await page.screenshot({ path: `${OUT}queue-dismiss-refused-390-${lang}.png` });
      await page.keyboard.press("Escape");
      await dialog().waitFor({ state: "detached" });
      expect(staff.cspViolations).to.deep.equal([]);
    });
  }
});

import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { labReport, monthsAgo } from "../support/ingestion.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { expectAccessible } from "./accessibility.ts";
import { expectViewFits } from "./viewFits.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Contract F.2 in the patient chart: a nurse sees URR (from a pre- and a post-dialysis urea sent
 * in two reports of one morning) and corrected calcium drawn beside the laboratories' values,
 * marked as derived, the formula beside the chart and in the table with the reports it read. In
 * English and Chinese, on a phone's 390 px.
 */

const TENANT = "h1";
const WORDS = {
  en: {
    derived: "Derived",
    urr: "Derived by the service: URR (version 1) 100 * (1 - UREA_POST / UREA_PRE)",
    from: "from reports DRV-POST, DRV-PRE",
    payne: "Derived by the service: Payne (version 1) CA + 0.02 * (40 - ALB)",
  },
  zh: {
    derived: "计算值",
    urr: "本系统计算：URR（第 1 版）100 * (1 - UREA_POST / UREA_PRE)",
    from: "来自报告 DRV-POST、DRV-PRE",
    payne: "本系统计算：Payne（第 1 版）CA + 0.02 * (40 - ALB)",
  },
} as const;

describe("derived values in the patient chart (contract F.2) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 390, height: 844 } });
  let page: Page;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });
  const morning = monthsAgo(1, 12);
  const at = (hours: number) => localDateTime(new Date(morning.getTime() + hours * 3_600_000));

  before(async () => {
    const reports = [
      labReport("DRV-PRE", {
        collectedAt: at(0),
        reportedAt: at(3),
        items: [
          { itemCode: "Urea", value: 25, unit: "mmol/L" },
          { itemCode: "Ca", value: 2.2, unit: "mmol/L" },
          { itemCode: "Alb", value: 30, unit: "g/L" },
        ],
      }),
      labReport("DRV-POST", {
        collectedAt: at(4),
        reportedAt: at(6),
        items: [{ itemCode: "Urea post", value: 8, unit: "mmol/L" }],
      }),
    ];
    expect((await staff.tenant.push("lab", reports)).status).to.equal(200);
    await projectionsCaughtUp(staff.service.url!);
    page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#chart/P001" });
  });

  for (const lang of ["en", "zh"] as const) {
    const words = WORDS[lang];

    it(`${lang}: draws URR and corrected calcium as derived values, each with its formula and the reports it read`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#chart/P001`);
      await ready(".page-chart .page-body");
      const urr = page.locator(".series-card[data-code=URR]");
      expect(await urr.getAttribute("data-points")).to.equal("1");
      expect(await urr.locator(".latest strong").textContent()).to.equal(`68.0 % · ${at(4).slice(0, 16)}`); // URR to its 1 decimal
      expect(await urr.locator(".latest .derived-badge").textContent()).to.equal(words.derived);
      expect(await urr.locator(".band-derived").textContent()).to.equal(words.urr);
      await urr.locator(".series-chart canvas").waitFor();
      const calcium = page.locator(".series-card[data-code=CA_CORR]");
      expect(await calcium.locator(".latest strong").textContent()).to.equal(`2.40 mmol/L · ${at(0).slice(0, 16)}`);
      expect(await calcium.locator(".band-derived").textContent()).to.equal(words.payne);
      // Sent values stay as they were: calcium itself is no derived value.
      expect(await page.locator(".series-card[data-code=CA] .derived-badge").count()).to.equal(0);
      await expectViewFits(page, `the chart with derived values (${lang})`);
      await expectAccessible(page, `the chart with derived values (${lang})`);
      await page.screenshot({ path: `${OUT}chart-derived-${lang}.png`, fullPage: true });

      await page.locator(".view-toggle").click();
      const row = page.locator("table.results tr[data-code=URR]");
      expect(await row.locator("td.derived .derived-badge").textContent()).to.equal(words.derived);
      expect(await row.locator("td.derived .formula").textContent()).to.equal(`${words.urr} · ${words.from}`);
      expect(
        await row.getAttribute("data-external-id"),
        "the report a click opens: the first the formula read",
      ).to.equal("DRV-POST");
      await expectViewFits(page, `the result table with derived values (${lang})`);
      await expectAccessible(page, `the result table with derived values (${lang})`);
      await page.locator(".view-toggle").click();
      expect(staff.cspViolations).to.deep.equal([]);
    });
  }
});

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "chai";
import { ADMIN } from "../support/http.ts";
import { labReport } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

const run = promisify(execFile);

/*
 * Contract G.1 on the staff pages: an administrator downloads a patient's copy from the patient's
 * chart, in Chinese and in English, on a phone's 390 px, the page accessible with the button on
 * it; a clinician is not offered it.
 */

const TENANT = "h1";
const WORDS = {
  en: { button: "Patient's copy", saved: /The patient's copy P001 copy \d{4}-\d{2}-\d{2}\.zip was downloaded\./ },
  zh: { button: "患者副本", saved: /已下载患者副本 P001 copy \d{4}-\d{2}-\d{2}\.zip。/ },
} as const;

describe("the patient's copy on the chart (contract G.1) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 390, height: 844 } });
  let adminToken = "";

  before(async () => {
    expect((await staff.tenant.push("lab", [labReport("COPY-B1")])).status).to.equal(200);
    await until(
      async () =>
        (
          await staff.service.db.query("select 1 from read.lab_results where tenant = $1 and external_id = 'COPY-B1'", [
            TENANT,
          ])
        ).rowCount! > 0,
      20_000,
    );
    const made = await staff.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "护士长王丽华", tenant: TENANT, roles: ["admin"] },
    });
    expect(made.status).to.equal(201);
    adminToken = made.body.token;
  });

  for (const lang of ["zh", "en"] as const) {
    it(`${lang}: an administrator downloads the zip from the chart at 390 px, and the page stays accessible`, async () => {
      const page = await signedInPage(staff, TENANT, { lang, fragment: "#chart/P001" }, adminToken);
      try {
        await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 20_000 });
        const button = page.locator("button.patient-copy-button");
        expect((await button.textContent())?.trim()).to.equal(WORDS[lang].button);
        await expectNoSidewaysScroll(page, `the chart with the copy button (${lang})`);
        await expectAccessible(page, `the chart with the copy button (${lang})`);
        const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
        expect(download.suggestedFilename()).to.match(/^P001 copy \d{4}-\d{2}-\d{2}\.zip$/);
        const listed = await run("unzip", ["-Z1", (await download.path())!]);
        expect(listed.stdout.split("\n").filter(Boolean)).to.deep.equal([
          "patient.json",
          "results.ndjson",
          "history.json",
          "alerts.json",
          "access-log.json",
        ]);
        await page.getByText(WORDS[lang].saved).waitFor();
        expect(await button.isEnabled(), "ready for another copy").to.equal(true);
        await page.screenshot({ path: `${OUT}phone-${lang}-chart-patient-copy.png`, fullPage: true });
      } finally {
        await page.close();
      }
    });
  }

  it("offers no copy to a clinician (the service refuses it too)", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#chart/P001" });
    try {
      await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 20_000 });
      expect(await page.locator("button.patient-copy-button").count()).to.equal(0);
    } finally {
      await page.close();
    }
  });
});

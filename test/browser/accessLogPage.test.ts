import { readFileSync } from "node:fs";
import { expect } from "chai";
import ExcelJS from "exceljs";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import type { AccessRecordAnswer } from "../../queries/access/accessLog.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, monthlyPanels } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { expectViewFits } from "./viewFits.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54, the access log: 35 records in 20 minutes with no filter and no export, and the
 * administrator listed as having looked at a patient because a critical result was pushed while
 * her page was open (the alert stream every staff page holds for its badge recorded each alert it
 * carried as her look). Now the administrators' Access log page filters by who, patient, action and
 * period and exports what it filtered (Excel, CSV); the badge's stream names no patient and records
 * nothing, while her real looks (the alerts list she opens) are recorded as before. In Chinese and
 * English, at 390 and 1366 px.
 */

const TENANT = "looks";
const RESULTS = "GET /api/patients/{patientRef}/results";
type Page_ = { records: AccessRecordAnswer[]; next: string | null };

describe("the access log page: filters, export, and no look recorded for an alert pushed to an open page (issue #54) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 1366, height: 768 } });
  let adminToken = "";
  let page: Page;
  /** The tenant's records as the API lists them, newest first. */
  const records = async (query = ""): Promise<AccessRecordAnswer[]> =>
    (
      (await staff.tenant.call("GET", `/api/admin/access-log?order=newest&limit=1000&${query}`, { token: ADMIN }))
        .body as Page_
    ).records;
  const ready = () => page.locator(".page-access-log .page-body[data-state=ready]").waitFor({ timeout: 20_000 });
  const rows = () => page.locator("table.tenant-access-records tbody tr");

  before(async function () {
    this.timeout(120_000);
    const { tenant } = staff;
    const made = await tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Admin Wang", tenant: TENANT, roles: ["admin"] },
    });
    expect(made.status).to.equal(201);
    adminToken = made.body.token;
    expect(
      (await tenant.call("PUT", "/api/patients/P002", { token: tenant.authorToken, body: { ...LI_SI, ward: "B" } }))
        .status,
    ).to.equal(200);
    const panels = monthlyPanels("LOOKS", 3, (i) => [{ itemCode: "HGB", value: 110 + i, unit: "g/L" }]);
    expect((await tenant.push("lab", panels)).status).to.equal(200);
    // Nurse Chen opens 张三's chart twice and 李四's once.
    for (const ref of ["P001", "P001", "P002"])
      expect((await tenant.call("GET", `/api/patients/${ref}/results`, { token: tenant.authorToken })).status).to.equal(
        200,
      );
    await until(
      async () =>
        (await records(`who=${encodeURIComponent("Nurse Chen")}&action=${encodeURIComponent(RESULTS)}`)).length === 3,
      10_000,
    );
    page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#access-log" }, adminToken);
  });

  it("records no look for a critical result pushed to the administrator's open page, and her look at the alerts list as before", async () => {
    await ready();
    const badge = page.locator(".alert-badge[data-counted=true]");
    await badge.waitFor({ state: "attached" });
    const pushedAt = new Date();
    const critical = labReport("LOOKS-K", {
      collectedAt: localDateTime(new Date(Date.now() - 3_600_000)),
      reportedAt: localDateTime(pushedAt),
      items: [{ itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L", abnormalFlag: "HH" }],
    });
    expect((await staff.tenant.push("lab", [critical])).status).to.equal(200);
    // Her page heard of it: the badge counts the new alert.
    await page.locator(".alert-badge[data-open-alerts='1']").waitFor({ timeout: 15_000 });

    // A look of hers after it, through the API: once it is in the log, anything recorded before it is too.
    const marker = await staff.tenant.call("GET", "/api/patients/P002", { token: adminToken });
    const markerId = marker.headers.get("x-request-id")!;
    await until(async () => (await records()).some((record) => record.requestId === markerId), 10_000);
    const hers = await records(`who=${encodeURIComponent("Admin Wang")}`);
    expect(
      hers.filter((record) => record.action === "GET /api/alerts/stream"),
      "no look at P001 for the alert pushed to her page",
    ).to.deep.equal([]);
    expect(hers.filter((record) => record.patientRefs.includes("P001"))).to.deep.equal([]);

    // She opens the alerts: that is a look, recorded with the patient it showed.
    await page.locator(".tabs a[data-page-link=alerts]").click();
    await page.locator(".page-alerts tr[data-external-id=LOOKS-K]").waitFor({ timeout: 15_000 });
    const looked = await until(
      async () =>
        (await records(`who=${encodeURIComponent("Admin Wang")}&patientRef=P001`)).find(
          (record) => record.action === "GET /api/alerts",
        ),
      10_000,
    );
    expect(looked.outcome).to.equal("shown");
  });

  it("filters by who, patient, action and period, keeping the filters in the address", async () => {
    await page.evaluate(() => (location.hash = "#access-log"));
    await ready();
    expect(await rows().count()).to.be.greaterThan(3);
    await page.locator("#access-who").fill("Nurse Chen");
    await page.locator("#access-patient").fill("P002");
    await page.locator("#access-action").selectOption(RESULTS);
    await page.locator(".access-filters button[type=submit]").click();
    await ready();
    expect(await rows().count()).to.equal(1);
    const row = rows().first();
    expect(await row.getAttribute("data-who")).to.equal("Nurse Chen");
    expect(await row.getAttribute("data-action")).to.equal(RESULTS);
    expect(await row.locator("td.patients a").textContent()).to.equal("P002");
    expect(await row.locator("td.patients a").getAttribute("href")).to.equal("#chart/P002");
    expect(await page.locator(".page-access-log .count").textContent()).to.equal("1 record");
    const hash = new URL(page.url()).hash;
    expect(hash.split("?")[0]).to.equal("#access-log");
    expect(Object.fromEntries(new URLSearchParams(hash.split("?")[1]))).to.deep.equal({
      who: "Nurse Chen",
      patientRef: "P002",
      action: RESULTS,
      from: `${await page.locator("#access-from").inputValue()}:00`,
    });

    // Both of 张三's charts, and none after a minute to come.
    await page.locator("#access-patient").fill("P001");
    await page.locator(".access-filters button[type=submit]").click();
    await ready();
    expect(await rows().count()).to.equal(2);
    const soon = new Date(Date.now() + 120_000);
    const minute = localDateTime(soon).replace(" ", "T").slice(0, 16);
    await page.locator("#access-from").fill(minute);
    expect(await page.locator("#access-period").inputValue(), "a time typed in is a period of one's own").to.equal(
      "custom",
    );
    await page.locator(".access-filters button[type=submit]").click();
    await ready();
    expect(await page.locator(".page-access-log .empty").textContent()).to.equal("No record matches these filters.");

    // A start after the end is said in the form, and nothing is asked of the service.
    await page.locator("#access-to").fill(localDateTime(new Date()).replace(" ", "T").slice(0, 16));
    await page.locator(".access-filters button[type=submit]").click();
    expect(await page.locator(".access-filters .form-error").textContent()).to.equal(
      "The start must come before the end.",
    );
    await page.locator(".clear-filters").click();
    await ready();
    expect(await page.locator("#access-who").inputValue()).to.equal("");
    expect(await rows().count()).to.be.greaterThan(3);
  });

  it("exports what it filtered as Excel, in the page's language, and as CSV", async () => {
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh#access-log?who=Nurse%20Chen`);
    await ready();
    expect(await page.locator("#access-who").inputValue()).to.equal("Nurse Chen");
    const shown = await rows().evaluateAll((all) => all.length);
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("button.export-xlsx").click()]);
    expect(download.suggestedFilename()).to.match(/^访问日志 looks \d{4}-\d\d-\d\d\.xlsx$/);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(readFileSync((await download.path())!) as never);
    const sheet = book.getWorksheet("访问日志")!;
    const values = (sheet.getSheetValues() as unknown[][]).slice(2);
    expect(values.length).to.equal(shown);
    expect(values.every((row) => row[2] === "Nurse Chen")).to.equal(true);
    await page.locator(".status", { hasText: "已导出" }).waitFor();

    const [csv] = await Promise.all([page.waitForEvent("download"), page.locator("button.export-csv").click()]);
    const text = readFileSync((await csv.path())!, "utf8");
    expect(text.startsWith("\ufeff时间,访问者,")).to.equal(true);
    expect(text.trimEnd().split("\r\n")).to.have.length(shown + 1);
  });

  it("opens from a patient's 'Who looked' dialog on the chart, filtered by that patient", async () => {
    await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=en#chart/P002`);
    await page.locator(".page-chart .page-body[data-state=ready]").waitFor({ timeout: 15_000 });
    await page.locator(".access-log-button").click();
    await page.locator("dialog .access-log-link a").click();
    await ready();
    expect(await page.locator("dialog.modal").count()).to.equal(0);
    expect(await page.locator("#access-patient").inputValue()).to.equal("P002");
    expect(await page.locator("#access-period").inputValue()).to.equal("month");
    const patients = await rows().evaluateAll((all) =>
      all.map((row) => [...row.querySelectorAll("td.patients a")].map((a) => a.textContent)),
    );
    expect(patients.length).to.be.greaterThan(0);
    expect(patients.every((refs) => refs.includes("P002"))).to.equal(true);
  });

  for (const lang of ["zh", "en"] as const) {
    for (const width of [390, 1366]) {
      it(`${lang} at ${width} px: fits without sideways scroll, and axe-core finds nothing`, async () => {
        await page.setViewportSize({ width, height: width < 500 ? 844 : 768 });
        try {
          await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#access-log`);
          await ready();
          await expectViewFits(page, `the access log (${lang}, ${width} px)`);
          await expectAccessible(page, `the access log (${lang}, ${width} px)`);
          await page.screenshot({ path: `${OUT}access-log-${lang}-${width}.png`, fullPage: true });
        } finally {
          await page.setViewportSize({ width: 1366, height: 768 });
        }
      });
    }
  }
});

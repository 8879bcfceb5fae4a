import { expect } from "chai";
import type { Locator, Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, ZHANG_SAN, monthlyPanels } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { publishWardCensus } from "../support/reports.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { OUT, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #34's target: every staff page, in Chinese and in English, on a phone (390×844) and on a
 * laptop (1366×768), has no WCAG 2.1 A/AA violation axe-core finds and never scrolls sideways;
 * and item 8: the header fits a phone with each tab name on one line, and the alerts table shows
 * its reason and its buttons whole.
 */

const TENANT = "tour";
const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "laptop", width: 1366, height: 768 },
] as const;
const LANGS = ["zh", "en"] as const;

/** Six monthly panels of 张三, then two potassium results flagged HH by the laboratory within the hour. */
const labHistory = () => [
  ...monthlyPanels("TOUR", 6, (i) => [
    { itemCode: "HGB", value: 100 + i * 3, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: i < 4 ? "L" : "N" },
    { itemCode: "P", value: 1.9, unit: "mmol/L", refLow: 0.87, refHigh: 1.45, abnormalFlag: "H" },
  ]),
  ...["TOUR-K-1", "TOUR-K-2"].map((externalId, i) =>
    labReport(externalId, {
      collectedAt: localDateTime(new Date(Date.now() - (90 - i * 30) * 60_000)),
      reportedAt: localDateTime(new Date(Date.now() - (60 - i * 30) * 60_000)),
      items: [{ itemCode: "K", itemName: "钾", value: 6.9 + i / 10, unit: "mmol/L", abnormalFlag: "HH" }],
    }),
  ),
];

/** Where a button of a table ends against what its table's box shows, and on how many lines its text runs. */
function seenButton(button: Locator) {
  return button.evaluate((element) => {
    const box = element.getBoundingClientRect();
    // Whole: inside the window and not clipped by the table's scrolling box.
    const clip = element.closest(".table-wrap")!.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(element);
    return {
      text: element.textContent,
      left: box.left,
      right: box.right,
      clipLeft: Math.max(0, clip.left),
      clipRight: Math.min(window.innerWidth, clip.right),
      lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size,
    };
  });
}

describe("every staff page in chromium, in both languages, on a phone and a laptop", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT);
  let adminToken = "";
  let bulkJobId = "";

  before(async function () {
    this.timeout(120_000);
    const { tenant } = staff;
    const token = tenant.authorToken;
    const made = await tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "护士长王丽华", tenant: TENANT, roles: ["admin"] },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    adminToken = made.body.token;

    await publishWardCensus(tenant);

    expect((await tenant.call("PUT", "/api/patients/P002", { token, body: { ...LI_SI, ward: "B" } })).status).to.equal(
      200,
    );
    expect((await tenant.push("lab", labHistory())).status).to.equal(200);
    // Two reports no patient matches: one names 张三 without an id card, one a stranger.
    await tenant.push("lab", [
      labReport("TOUR-U-1", { patient: { name: ZHANG_SAN.name, hisPatientId: "H-77" } }),
      labReport("TOUR-U-2", { patient: { idCard: "440524188001010022", name: "王五" } }),
    ]);

    // Contract F.3: 李四's potassium moved from 3.6 to 5.4 in two days, a delta alert.
    const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
    const potassiumOfLiSi = (externalId: string, value: number, hours: number) =>
      labReport(externalId, {
        patient: LI_SI,
        collectedAt: hoursAgo(hours),
        reportedAt: hoursAgo(hours - 1),
        items: [{ itemCode: "K", itemName: "钾", value, unit: "mmol/L" }],
      });
    expect((await tenant.push("lab", [potassiumOfLiSi("TOUR-DELTA-1", 3.6, 48)])).status).to.equal(200);
    expect((await tenant.push("lab", [potassiumOfLiSi("TOUR-DELTA-2", 5.4, 2)])).status).to.equal(200);
    await until(
      async () => ((await tenant.call("GET", "/api/alerts?kind=DELTA", { token })).body as unknown[]).length === 1,
      15_000,
    );

    // One critical result acknowledged, one standing.
    const open = await until(async () => {
      const alerts = (await tenant.call("GET", "/api/alerts?state=open&kind=CRITICAL", { token })).body as Array<{
        alertId: string;
        externalId: string;
      }>;
      return alerts.length === 2 && alerts;
    }, 15_000);
    const first = open.find((alert) => alert.externalId === "TOUR-K-1")!;
    expect(
      (
        await tenant.call("POST", `/api/alerts/${first.alertId}/acknowledge`, {
          token,
          body: { note: "医生已知悉，复查血钾" },
        })
      ).status,
    ).to.equal(200);

    // A sender's local urea code, mapped: the item mappings page lists the mapping beside the unmapped items.
    expect(
      (
        await tenant.push("lab", [
          labReport("TOUR-LOCAL-1", {
            items: [{ itemCode: "L-UREA", itemName: "本院尿素", value: 56, unit: "mg/dL" }],
          }),
        ])
      ).status,
    ).to.equal(200);
    expect(
      (
        await tenant.call("POST", "/api/dictionary/mappings", {
          token,
          body: { itemCode: "L-UREA", stdCode: "UREA_PRE", reason: "本院尿素代码" },
        })
      ).status,
    ).to.equal(201);

    const bulk = await fetch(`${staff.service.url}/open/v1/lab/reports/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/x-ndjson" },
      body: [
        JSON.stringify(labReport("TOUR-BULK-1")),
        '{"externalId": "TOUR-BULK-CUT", ',
        JSON.stringify({ externalId: "TOUR-BULK-BARE" }),
      ].join("\n"),
    });
    expect(bulk.status).to.equal(202);
    bulkJobId = ((await bulk.json()) as { data: { jobId: string } }).data.jobId;
    await until(
      async () =>
        (await tenant.call("GET", `/open/v1/bulk/${bulkJobId}`, { token: tenant.client.key })).body?.data?.status ===
        "DONE",
      30_000,
      200,
    );
  });

  for (const lang of LANGS) {
    for (const viewport of VIEWPORTS) {
      describe(`in ${lang === "zh" ? "Chinese" : "English"} at ${viewport.width}×${viewport.height}`, () => {
        let page: Page;
        const where = (what: string) => `${what} (${lang}, ${viewport.width} px)`;
        const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 20_000 });
        /** No sideways scroll and no axe-core violation, both said at once when both fail. */
        const expectFine = async (what: string) => {
          const problems: string[] = [];
          for (const check of [expectNoSidewaysScroll, expectAccessible]) {
            // axe-core's findings are the assertion's `actual`: each said in full, not as chai's "[ Array(1) ]".
            await check(page, where(what)).catch((error: Error & { actual?: unknown }) =>
              problems.push(
                ...(Array.isArray(error.actual)
                  ? error.actual.map((finding) => `${where(what)}: ${finding}`)
                  : [error.message]),
              ),
            );
          }
          expect(problems, where(what)).to.deep.equal([]);
        };
        /** test-output/phone-zh-alerts.png and the like: what a nurse sees, for the closing note. */
        const shot = (name: string) =>
          page.screenshot({ path: `${OUT}${viewport.name}-${lang}-${name}.png`, fullPage: true });
        const go = async (fragment: string) => {
          await page.evaluate((hash) => (location.hash = hash), fragment);
        };
        const tab = (name: string) => page.locator(`.tabs a[data-page-link="${name}"]`);
        const dialog = () => page.locator("dialog.modal");
        const closeDialog = async () => {
          await page.keyboard.press("Escape");
          await dialog().waitFor({ state: "detached" });
        };

        before(async () => {
          page = await staff.newPage();
          await page.setViewportSize({ width: viewport.width, height: viewport.height });
        });
        after(async () => {
          await page.close();
        });

        it("the sign-in page, and it saying a token is wrong", async () => {
          // The reports first (an administrator's own page is the credentials, issue #54).
          await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#reports`);
          await page.locator("#sign-in-token").waitFor();
          await expectFine("the sign-in page");
          await shot("sign-in");
          await page.locator("#sign-in-token").fill("dha_not-a-real-token");
          await page.locator("#sign-in-token").press("Enter");
          await page.locator(".sign-in .form-error").waitFor();
          await expectFine("the sign-in page saying the token is wrong");
        });

        it("the reports, and a version's findings", async () => {
          await page.locator("#sign-in-token").fill(adminToken);
          await page.locator("#sign-in-token").press("Enter");
          await ready(".page-reports .page-body");
          await expectFine("the reports");
          await shot("reports");
          await page.locator(".report-card tr[data-version=v1] .findings-toggle").click();
          await ready(".findings");
          await expectFine("the reports with a version's findings");
        });

        it("the header: the navigation within the screen, each tab's name on one line", async () => {
          const header = await page
            .locator("header.top")
            .evaluate((top) => ({ scrollWidth: top.scrollWidth, clientWidth: top.clientWidth }));
          expect(header.scrollWidth, where("the header's width")).to.be.at.most(header.clientWidth);
          const lines = await page.locator(".tabs a").evaluateAll((links) =>
            links.map((link) => {
              const range = document.createRange();
              range.selectNodeContents(link.firstChild!);
              // Line boxes of the name: one rect per line it is broken into.
              const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
              return `${link.firstChild!.textContent}: ${tops.size}`;
            }),
          );
          expect(
            lines.every((line) => line.endsWith(": 1")),
            where(`tab names on one line each: ${lines.join(", ")}`),
          ).to.equal(true);
          // Every tab can be reached: the last one is inside the screen once scrolled to.
          const last = page.locator(".tabs a").last();
          // Scrolled to its end, as a person swipes: "if needed" counts a tab a fraction of a pixel out as seen.
          await last.evaluate((tab) => tab.scrollIntoView({ block: "nearest", inline: "end" }));
          const box = (await last.boundingBox())!;
          expect(box.x, where("the last tab's left")).to.be.at.least(0);
          expect(box.x + box.width, where("the last tab's right")).to.be.at.most(viewport.width);
          if (viewport.name === "phone")
            await page.locator("header.top").screenshot({ path: `${OUT}phone-${lang}-header.png` });
        });

        it("critical results: the standing alert with its reason and its buttons whole, the acknowledge dialog, the acknowledged tab", async () => {
          await tab("alerts").click();
          await ready(".page-alerts .page-body");
          const row = page.locator("tr[data-external-id=TOUR-K-2]");
          await row.waitFor();
          await expectFine("the standing alerts");
          await shot("alerts");
          const reason = await row.locator(".reason").evaluate((cell) => {
            const range = document.createRange();
            range.selectNodeContents(cell);
            return {
              width: cell.getBoundingClientRect().width,
              lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size,
              text: cell.textContent,
            };
          });
          expect(
            reason.lines,
            where(`the reason "${reason.text}" in ${reason.lines} lines, ${Math.round(reason.width)} px wide`),
          ).to.be.at.most(2);
          for (const button of await row.locator("button").all()) {
            const seen = await seenButton(button);
            expect(seen.left, where(`${seen.text}'s left`)).to.be.at.least(seen.clipLeft - 0.5);
            expect(seen.right, where(`${seen.text}'s right`)).to.be.at.most(seen.clipRight + 0.5);
          }
          await row.locator("button.acknowledge").click();
          await dialog().locator("#acknowledge-note").waitFor();
          await expectFine("the acknowledge dialog");
          await closeDialog();
          await page.locator("[data-state-tab=acknowledged]").click();
          await page.locator("table.alerts-acknowledged tr[data-external-id=TOUR-K-1]").waitFor();
          await ready(".page-alerts .page-body");
          await expectFine("the acknowledged alerts");
          await shot("alerts-acknowledged");
        });

        it("delta checks: apart from critical results, each with its previous result and change, and its acknowledge dialog", async () => {
          await page.locator("[data-kind-tab=DELTA]").click();
          await page.locator("[data-state-tab=open]").click();
          const row = page.locator("tr[data-external-id=TOUR-DELTA-2]");
          await row.waitFor();
          await ready(".page-alerts .page-body");
          expect(
            await page.locator("tr[data-external-id=TOUR-K-2]").count(),
            where("no critical alert among the delta alerts"),
          ).to.equal(0);
          await expectFine("the delta alerts");
          await shot("alerts-delta");
          for (const button of await row.locator("button").all()) {
            const seen = await seenButton(button);
            expect(seen.right, where(`${seen.text}'s right`)).to.be.at.most(seen.clipRight + 0.5);
          }
          await row.locator("button.acknowledge").click();
          await dialog().locator("#acknowledge-note").waitFor();
          await expectFine("the delta alert's acknowledge dialog");
          await closeDialog();
          await page.locator("[data-kind-tab=CRITICAL]").click();
          await page.locator("tr[data-external-id=TOUR-K-2]").waitFor();
        });

        it("the unmatched reports", async () => {
          await tab("unmatched").click();
          await ready(".page-unmatched .page-body");
          await page.locator("tr[data-external-id=TOUR-U-2]").waitFor();
          await expectFine("the unmatched reports");
          await shot("unmatched");
          // On a phone too, the queue's buttons are whole and on one line each.
          for (const button of await page.locator("tr[data-external-id=TOUR-U-2] button").all()) {
            const seen = await seenButton(button);
            expect(seen.right, where(`${seen.text}'s right`)).to.be.at.most(seen.clipRight + 0.5);
            expect(seen.lines, where(`${seen.text} in ${seen.lines} lines`)).to.equal(1);
          }
          // A report's history: on a phone each entry is a card whose buttons are whole, not a squeezed column.
          await page.locator("tr[data-external-id=TOUR-U-2] button.history").click();
          const entry = dialog().locator("table.history tr[data-event=RECEIVED]").first();
          await entry.waitFor();
          await expectFine("a report's history");
          const button = await seenButton(entry.locator("button").first());
          expect(button.right, where(`${button.text}'s right`)).to.be.at.most(button.clipRight + 0.5);
          expect(button.lines, where(`${button.text} in ${button.lines} lines`)).to.equal(1);
          await closeDialog();
        });

        it("the patients, and the patient form", async () => {
          await tab("patients").click();
          await ready(".page-patients .page-body");
          await page.locator(".patients tr[data-patient-ref=P002]").waitFor();
          await expectFine("the patients");
          await shot("patients");
          const search = await page.locator(".page-patients .search-row button").evaluate((element) => {
            const range = document.createRange();
            range.selectNodeContents(element);
            return {
              text: element.textContent,
              lines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size,
            };
          });
          expect(search.lines, where(`the ${search.text} button in ${search.lines} lines`)).to.equal(1);
          await page.locator("button.register").click();
          await dialog().locator(".patient-form").waitFor();
          await expectFine("the patient form");
          await dialog().locator("button[type=submit]").click();
          await dialog().locator(".form-error:not([hidden])").first().waitFor();
          await expectFine("the patient form saying what is missing");
          await closeDialog();
        });

        it("a patient's chart, as charts and as a table", async () => {
          await go("#chart/P001");
          await ready(".page-chart .page-body");
          await page.locator(".series-card[data-code=HGB] .series-chart canvas").waitFor();
          await expectFine("the chart");
          await shot("chart");
          await page.locator("button.view-toggle").click();
          await page.locator("table.results").waitFor();
          await expectFine("the chart as a table");
          await shot("chart-table");
        });

        it("the month's quality figures, a list of patients not at target, and the close dialog", async () => {
          await tab("quality").click();
          await ready(".page-quality .quality-body");
          // 张三's phosphate of 1.9 mmol/L last month is above the band.
          const offTarget = page.locator("details.off-target[data-code=P_TARGET]");
          await offTarget.locator("summary").click();
          await offTarget.locator("tr[data-patient-ref=P001]").waitFor({ timeout: 20_000 });
          await expectFine("the quality figures");
          await shot("quality");
          await page.locator("button.close-month").click();
          await dialog().locator(".close-month-form").waitFor();
          await expectFine("the close dialog");
          await closeDialog();
        });

        it("the bulk jobs, and a job's rejected lines", async () => {
          await tab("bulk-jobs").click();
          await ready(".page-bulk-jobs .page-body");
          const row = page.locator(`tr[data-job-id="${bulkJobId}"]`);
          await row.waitFor();
          await expectFine("the bulk jobs");
          await shot("bulk-jobs");
          await row.locator("button").last().click();
          await ready("dialog .rejected-body");
          await expectFine("a job's rejected lines");
          await closeDialog();
        });

        it("the item mappings, and the map dialog", async () => {
          await tab("mappings").click();
          await ready(".page-mappings .page-body");
          const row = page.locator("table.unmapped-items tr[data-item-code=X-LOCAL-42]");
          await row.waitFor();
          await page.locator("table.item-mappings tr[data-remap=DONE]").waitFor();
          await expectFine("the item mappings");
          await shot("mappings");
          await row.locator("button.map").click();
          await dialog().locator(".preview", { hasText: /\d/ }).waitFor();
          await expectFine("the map dialog");
          await closeDialog();
        });

        it("the credentials", async () => {
          await tab("credentials").click();
          await ready(".credentials-author .page-body");
          await ready(".credentials-client .page-body");
          await expectFine("the credentials");
          await shot("credentials");
          // Opened by its address, the last page's tab is scrolled into the navigation's view.
          await page.reload();
          await ready(".credentials-author .page-body");
          const current = (await page.locator(".tabs a[aria-current=page]").boundingBox())!;
          expect(
            [current.x >= 0, current.x + current.width <= viewport.width],
            where("the current tab in view"),
          ).to.deep.equal([true, true]);
        });

        it("the report editor, for a report and for a new one", async () => {
          await go("#edit/ward-census");
          await page.locator(".page-editor .editor").waitFor({ timeout: 20_000 });
          await page.locator(".page-editor .sql-field .cm-editor").first().waitFor();
          await expectFine("the report editor");
          await shot("editor");
          await go("#new");
          await page.locator(".page-editor .editor").waitFor();
          await page.locator(".page-editor h1", { hasText: lang === "zh" ? "新建报表" : "New report" }).waitFor();
          await expectFine("the editor of a new report");
          await shot("editor-new");
          expect(staff.cspViolations).to.deep.equal([]);
        });
      });
    }
  }
});

import { expect } from "chai";
import type { Frame, Page } from "playwright-core";
import { randomUUID } from "node:crypto";
import { bulkJobStreams, NO_COUNTS, type BulkJobEvent } from "../../commands/bulk/events.ts";
import { EventStore } from "../../db/eventStore.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { adequacyReport } from "../../src/demo/demoReports.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, monthlyPanels, monthsAgo, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible, expectNoSidewaysScroll } from "./accessibility.ts";
import { englishRead } from "./englishRead.ts";
import { previewAfter } from "./editorPreview.ts";
import { OUT, useStaffBrowserSuite } from "./staffSuite.ts";

/*
 * Issue #54, "Chinese everywhere a person reads": every staff page, the embed page (a demo
 * dashboard with a drill-through) and the staff help articles, walked in Chinese on a phone
 * (390 px) and a laptop (1366 px), with the failures the walk provokes (a wrong token, a query
 * that fails, a bulk job's rejected lines, a report that is not there): no English sentence is read
 * (englishRead.ts: visible text and accessible names; product names, units, codes and numbers
 * allowed), axe-core finds nothing, nothing scrolls sideways.
 */

const TENANT = "zh-walk";
const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "laptop", width: 1366, height: 768 },
] as const;
/**
 * Names, not words: what the fixture's own data calls things (a laboratory, a test author, the
 * census report's queries, nodes and filter), the demo tenant's id the sign-in offers as an
 * example, and the people and products the help articles cite.
 */
const FIXTURE_NAMES = [
  ...[
    "Central lab LIS",
    "Central lab",
    "Nurse Chen",
    "census",
    "broken",
    "typo",
    "ktvv",
    "list",
    "ratio",
    "ktv",
    "ward",
    "demo",
  ],
  ...["Lowrie", "Lew", "Payne", "Metabase", "Superset", "SQL Lab"],
];
const t = (zh: string, en: string) => ({ zh, en });

/** A census with words per language, a select * (an audit finding) and a query that fails when run. */
const censusSpec = {
  version: 1,
  title: t("病区患者一览", "Ward census"),
  params: [{ name: "ward", label: t("病区", "Ward"), type: "text", default: null }],
  queries: {
    census: { sql: "select * from patients [[where ward = {{ward}}]]" },
    broken: { sql: "select 1 / (count(*) - count(*)) as ratio from patients" },
  },
  nodes: [
    {
      id: "list",
      type: "table",
      title: t("患者", "Patients"),
      query: "census",
      columns: [
        { column: "patient_ref", label: t("患者编号", "Patient") },
        { column: "name", label: t("姓名", "Name") },
        { column: "ward", label: t("病区", "Ward") },
        { column: "active", label: t("在透", "Active") },
      ],
    },
    { id: "ratio", type: "stat", title: t("比值", "Ratio"), query: "broken", column: "ratio" },
  ],
};

describe("Chinese everywhere a person reads: every staff page and the embed page in zh", function () {
  this.timeout(180_000);
  const staff = useStaffBrowserSuite(TENANT);
  let adminToken = "";
  let bulkJobId = "";
  const failedJobIds: string[] = [];

  before(async function () {
    this.timeout(180_000);
    const { tenant } = staff;
    const made = await tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "护士长王丽华", tenant: TENANT, roles: ["admin"] },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    adminToken = made.body.token;
    const token = adminToken;

    for (const report of [
      { id: "ward-census", spec: censusSpec },
      { id: "dialysis-adequacy", spec: adequacyReport(["2025-01-01", localDateTime(new Date()).slice(0, 10)]).spec },
    ]) {
      const saved = await tenant.call("PUT", `/api/reports/${report.id}/draft`, { token, body: { spec: report.spec } });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
      expect(
        (await tenant.call("POST", `/api/reports/${report.id}/publish`, { token, body: { mode: "dynamic" } })).status,
      ).to.equal(201);
    }
    // A draft of the census whose new query names a column that does not exist: the save finds it.
    const typo = {
      ...censusSpec,
      queries: { ...censusSpec.queries, typo: { sql: "select avg(ktvv) as ktv from lab_results" } },
      nodes: [
        ...censusSpec.nodes,
        { id: "ktv", type: "stat", title: t("平均", "Average"), query: "typo", column: "ktv" },
      ],
    };
    const drafted = await tenant.call("PUT", "/api/reports/ward-census/draft", { token, body: { spec: typo } });
    expect(drafted.body.queryProblems, JSON.stringify(drafted.body)).to.have.length(1);

    expect((await tenant.call("PUT", "/api/patients/P002", { token, body: { ...LI_SI, ward: "B" } })).status).to.equal(
      200,
    );
    // Monthly dialysis panels of 张三: spKt/V and URR for the dashboard, Hb and P for the chart.
    expect(
      (
        await tenant.push(
          "lab",
          monthlyPanels("WALK", 6, (i) => [
            { itemCode: "KTV", itemName: "尿素清除指数", value: 1.31 + i * 0.03, unit: "" },
            { itemCode: "URR", itemName: "尿素下降率", value: 66 + i, unit: "%" },
            { itemCode: "HGB", itemName: "血红蛋白", value: 100 + i * 3, unit: "g/L", refLow: 115, refHigh: 150 },
            {
              itemCode: "P",
              itemName: "磷",
              value: 1.9,
              unit: "mmol/L",
              refLow: 0.87,
              refHigh: 1.45,
              abnormalFlag: "H",
            },
          ]),
        )
      ).status,
    ).to.equal(200);
    // A critical potassium, two reports no patient matches, a local item not mapped.
    await tenant.push("lab", [
      labReport("WALK-K-1", {
        collectedAt: localDateTime(new Date(Date.now() - 90 * 60_000)),
        reportedAt: localDateTime(new Date(Date.now() - 60 * 60_000)),
        items: [{ itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L", abnormalFlag: "HH" }],
      }),
      labReport("WALK-U-1", { patient: { name: ZHANG_SAN.name, hisPatientId: "H-77" }, labName: "中心检验科" }),
      labReport("WALK-U-2", { patient: { idCard: "440524188001010022", name: "王五" }, labName: "中心检验科" }),
    ]);
    await until(
      async () => ((await tenant.call("GET", "/api/alerts?state=open", { token })).body as unknown[]).length >= 1,
      15_000,
    );

    const bulk = await fetch(`${staff.service.url}/open/v1/lab/reports/bulk`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.client.key}`, "content-type": "application/x-ndjson" },
      body: [
        JSON.stringify(labReport("WALK-BULK-1", { reportedAt: localDateTime(monthsAgo(1)) })),
        '{"externalId": "WALK-BULK-CUT", ',
        JSON.stringify({ externalId: "WALK-BULK-BARE", status: "DONE" }),
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
    // Two jobs that failed (issue #54): one whose event carries its code, one failed before codes
    // (its sentence alone). The page words both; neither reads the service's English.
    const store = new EventStore(staff.service.db);
    const counts = { ...NO_COUNTS, processed: 2, accepted: 2, created: 2 };
    for (const failed of [
      { reason: "The job stopped at piece 2 of 3: the service could not import it.", code: "piece-failed", piece: 2 },
      { reason: "The client that submitted the job no longer exists." },
    ] as const) {
      const jobId = randomUUID();
      failedJobIds.push(jobId);
      await store.append({
        tenant: TENANT,
        streamId: bulkJobStreams.id(jobId),
        expectedVersion: 0,
        events: [
          {
            type: "BulkJobSubmitted",
            data: {
              jobId,
              kind: "lab",
              clientId: tenant.client.clientId,
              clientName: "Central lab LIS",
              lines: 3,
              pieces: 3,
              bytes: 300,
              gzip: false,
            },
          },
          // The piece before the one that failed was stored: its lines count.
          ...("piece" in failed
            ? [{ type: "BulkPieceImported" as const, data: { piece: 0, counts, rejections: [] } }]
            : []),
          { type: "BulkJobFailed", data: { ...failed, counts: "piece" in failed ? counts : NO_COUNTS } },
        ] satisfies BulkJobEvent[],
        metadata: { actor: "Central lab LIS" },
      });
    }
    // Looks the access log records: a person's, the operator's ADMIN_TOKEN's, a viewer's without a credential.
    await tenant.call("GET", "/api/patients/P001/results", { token });
    await tenant.call("GET", "/api/patients/P001/results", { token: ADMIN });
    expect((await tenant.call("POST", "/api/reports/ward-census/data", { body: {} })).status).to.equal(200);
  });

  for (const viewport of VIEWPORTS) {
    describe(`at ${viewport.width}×${viewport.height}`, () => {
      let page: Page;
      const where = (what: string) => `${what} (zh, ${viewport.width} px)`;
      const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 20_000 });
      const dialog = () => page.locator("dialog.modal");
      const closeDialog = async () => {
        await page.keyboard.press("Escape");
        await dialog().waitFor({ state: "detached" });
      };
      const tab = (name: string) => page.locator(`.tabs a[data-page-link="${name}"]`);
      const shot = (name: string) => page.screenshot({ path: `${OUT}zh-${viewport.name}-${name}.png`, fullPage: true });

      /** What is read in English, axe-core's findings and sideways scroll, all said at once. */
      const expectChinese = async (what: string, target: Page | Frame = page) => {
        const problems: string[] = (await englishRead(target, FIXTURE_NAMES)).map(
          (found) => `English read at ${found.where}: "${found.text}"`,
        );
        for (const check of [expectNoSidewaysScroll, expectAccessible]) {
          await check(page, where(what)).catch((error: Error & { actual?: unknown }) =>
            problems.push(...(Array.isArray(error.actual) ? error.actual.map(String) : [error.message])),
          );
        }
        expect(problems, where(what)).to.deep.equal([]);
      };

      before(async () => {
        page = await staff.newPage();
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
      });
      after(async () => {
        await page.close();
      });

      it("the sign-in page, and a token it refuses", async () => {
        await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=zh`);
        await page.locator("#sign-in-token").waitFor();
        await expectChinese("the sign-in page");
        await page.locator("#sign-in-token").fill("dha_not-a-real-token");
        await page.locator("#sign-in-token").press("Enter");
        await page.locator(".sign-in .form-error").waitFor();
        await expectChinese("the sign-in page refusing a token");
        await page.locator("#sign-in-token").fill(adminToken);
        await page.locator("#sign-in-token").press("Enter");
        await page.locator(".who").waitFor();
      });

      it("the reports, titled in Chinese, and a version's audit findings", async () => {
        await tab("reports").click();
        await ready(".page-reports .page-body");
        await page.locator(".report-card h2", { hasText: "病区患者一览" }).waitFor();
        await page.locator(".report-card h2", { hasText: "透析充分性" }).waitFor();
        await expectChinese("the reports");
        await shot("reports");
        await page.locator('.report-card[data-report-id="ward-census"] tr[data-version=v1] .findings-toggle').click();
        await ready(".findings");
        await page.locator(".findings li[data-rule=select-star]").waitFor();
        await expectChinese("a version's audit findings");
      });

      it("the critical results", async () => {
        await tab("alerts").click();
        await ready(".page-alerts .page-body");
        await page.locator("tr[data-external-id=WALK-K-1]").waitFor();
        await expectChinese("the critical results");
      });

      it("the unmatched reports, and a report's history", async () => {
        await tab("unmatched").click();
        await ready(".page-unmatched .page-body");
        await page.locator("tr[data-external-id=WALK-U-2]").waitFor();
        await expectChinese("the unmatched reports");
        await page.locator("tr[data-external-id=WALK-U-2] button.history").click();
        await dialog().locator("table.history tr[data-event=RECEIVED]").first().waitFor();
        await expectChinese("a report's history");
        await closeDialog();
      });

      it("the patients, and the patient form", async () => {
        await tab("patients").click();
        await ready(".page-patients .page-body");
        await page.locator(".patients tr[data-patient-ref=P001]").waitFor();
        await expectChinese("the patients");
        await page.locator("button.register").click();
        await dialog().locator(".patient-form").waitFor();
        await dialog().locator("button[type=submit]").click();
        await dialog().locator(".form-error:not([hidden])").first().waitFor();
        await expectChinese("the patient form saying what is missing");
        await closeDialog();
      });

      it("a patient's chart, as charts and as a table", async () => {
        await page.evaluate(() => (location.hash = "#chart/P001"));
        await ready(".page-chart .page-body");
        await page.locator(".series-card[data-code=HGB] .series-chart canvas").waitFor();
        await expectChinese("the chart");
        await page.locator("button.view-toggle").click();
        await page.locator("table.results").waitFor();
        await expectChinese("the chart as a table");
        await page.locator("button.access-log-button").click();
        await dialog().locator("table.access-records tbody tr").first().waitFor();
        await expectChinese("who was shown the patient");
        await shot("access-log");
        await closeDialog();
      });

      it("the month's quality figures, a list of patients not at target, and the close dialog", async () => {
        await tab("quality").click();
        await ready(".page-quality .quality-body");
        const offTarget = page.locator("details.off-target[data-code=P_TARGET]");
        await offTarget.locator("summary").click();
        await offTarget.locator("tr[data-patient-ref=P001]").waitFor({ timeout: 20_000 });
        await page.locator("table.quality-figures tr[data-code=HGB_TARGET] details.source summary").click();
        await expectChinese("the quality figures");
        await shot("quality");
        await page.locator("button.close-month").click();
        await dialog().locator(".close-month-form").waitFor();
        await expectChinese("the close dialog");
        await closeDialog();
      });

      it("the bulk jobs, and a job's rejected lines with their reasons", async () => {
        await tab("bulk-jobs").click();
        await ready(".page-bulk-jobs .page-body");
        const row = page.locator(`tr[data-job-id="${bulkJobId}"]`);
        await row.waitFor();
        // A failed job's reason in the page's words, by its code (issue #54), whether its event has one or not.
        for (const jobId of failedJobIds)
          await page.locator(`tr[data-job-id="${jobId}"][data-status=FAILED]`).waitFor();
        expect(await page.locator("tr[data-status=FAILED] .reason").allTextContents()).to.have.members([
          "提交此任务的检验科已不存在，任务未导入。请用现有的检验科密钥重新提交。",
          "服务无法导入其中一段，任务已停止；已处理的 2 行已保存。请把任务编号告知服务的运维人员。",
        ]);
        await expectChinese("the bulk jobs");
        await row.locator("button").last().click();
        await ready("dialog .rejected-body");
        await dialog().locator("td[data-code=not-json]").waitFor();
        await expectChinese("a job's rejected lines");
        await shot("rejected-lines");
        await closeDialog();
      });

      it("the item mappings, and the map dialog", async () => {
        await tab("mappings").click();
        await ready(".page-mappings .page-body");
        const row = page.locator("table.unmapped-items tr[data-item-code=X-LOCAL-42]");
        await row.waitFor();
        await expectChinese("the item mappings");
        await row.locator("button.map").click();
        await dialog().locator(".preview", { hasText: /\d/ }).waitFor();
        await expectChinese("the map dialog");
        await closeDialog();
      });

      it("the credentials", async () => {
        await tab("credentials").click();
        await ready(".credentials-author .page-body");
        await ready(".credentials-client .page-body");
        await expectChinese("the credentials");
      });

      it("the tenant's access log, its operator and a viewer without sign-in named in Chinese", async () => {
        await page.evaluate(() => (location.hash = "#access-log"));
        await ready(".page-access-log .page-body");
        await page.locator(".page-access-log tr[data-who=anonymous]").first().waitFor();
        await page.locator(".page-access-log tr[data-who=admin]").first().waitFor();
        await expectChinese("the access log");
        await shot("access-log-page");
      });

      it("the report editor with a report open: its findings and its failing query, and its preview", async () => {
        await page.evaluate(() => (location.hash = "#edit/ward-census"));
        await page.locator(".page-editor .editor").waitFor({ timeout: 20_000 });
        await page.locator(".page-editor .sql-field .cm-editor").first().waitFor();
        await page.locator(".editor-audit li[data-rule=select-star]").waitFor();
        await page.locator(".editor-audit li[data-rule=query-fails]").waitFor();
        await expectChinese("the report editor");
        // Saved, the failing query is marked at its SQL and the draft is previewed beside the editor.
        const preview = await previewAfter(page, async () => {
          await page.getByRole("button", { name: "保存并预览" }).click();
          // On a phone the preview is below the editor: a frame out of sight draws no frames to wait on.
          await page.locator(".preview-pane").scrollIntoViewIfNeeded();
        });
        await page.locator(".query-problems .field-error").waitFor();
        await preview.locator(".node[data-node-id=ktv] .node-error[data-code=query-unknown-column]").waitFor();
        await expectChinese("the report editor after a save, its failing query marked");
        await expectChinese("the preview of the draft", preview);
        await shot("editor");
      });

      it("the embed page of a demo dashboard: titles, filters, texts, headings, months and a drill-through", async () => {
        const embed = await staff.newPage();
        try {
          await embed.setViewportSize({ width: viewport.width, height: viewport.height });
          await embed.goto(`${staff.service.url}/embed/reports/dialysis-adequacy?tenant=${TENANT}&lang=zh`);
          await embed.waitForFunction(() => document.body.dataset.rendered === "true", null, { timeout: 30_000 });
          expect(await embed.title()).to.equal("透析充分性");
          const months = await embed
            .locator(".node[data-node-id=monthlyTable] tbody tr td:first-child")
            .allTextContents();
          expect(months.length, where("months in the table")).to.be.greaterThan(1);
          for (const month of months) expect(month, where("a month")).to.match(/^\d{4}年\d{1,2}月$/);
          const ktv = await embed
            .locator(".node[data-node-id=monthlyTable] tbody tr td:nth-child(3)")
            .allTextContents();
          for (const value of ktv) expect(value, where("one column, one number of decimals")).to.match(/^\d\.\d\d$/);
          await checkIn(embed, "the demo dashboard");
          await embed.screenshot({ path: `${OUT}zh-${viewport.name}-embed.png`, fullPage: true });
          await embed.locator(".node[data-node-id=monthlyTable] tbody tr").first().click();
          await embed.locator(".layer-backdrop[data-state=ready]").waitFor({ timeout: 20_000 });
          await checkIn(embed, "a drill-through of the demo dashboard");

          await embed.goto(`${staff.service.url}/embed/reports/ward-census?tenant=${TENANT}&lang=zh`);
          await embed.waitForFunction(() => document.body.dataset.rendered === "true", null, { timeout: 30_000 });
          await embed.locator(".node[data-node-id=ratio] .node-error[data-code=query-division-by-zero]").waitFor();
          await checkIn(embed, "a report whose query fails");

          await embed.goto(`${staff.service.url}/embed/reports/no-such-report?tenant=${TENANT}&lang=zh`);
          await checkIn(embed, "the page of a report that is not there");
        } finally {
          await embed.close();
        }
      });

      it("the help: the list of articles and the articles for staff, in Chinese", async () => {
        await page.goto(`${staff.service.url}/help`);
        await expectChinese("the help");
        for (const slug of [
          "patient-chart-and-alerts",
          "derived-values-and-delta-checks",
          "unmapped-items",
          "report-spec-guide",
          "quality-figures",
        ]) {
          await page.goto(`${staff.service.url}/help/${slug}`);
          await expectChinese(`the help article ${slug}`);
          expect(await page.locator("main").textContent(), where(slug)).not.to.match(/author token/i);
        }
        await shot("help");
      });

      /** The checks of `expectChinese` on a page of its own (the embed page). */
      async function checkIn(other: Page, what: string): Promise<void> {
        const problems = (await englishRead(other, FIXTURE_NAMES)).map(
          (found) => `English read at ${found.where}: "${found.text}"`,
        );
        for (const check of [expectNoSidewaysScroll, expectAccessible]) {
          await check(other, where(what)).catch((error: Error & { actual?: unknown }) =>
            problems.push(...(Array.isArray(error.actual) ? error.actual.map(String) : [error.message])),
          );
        }
        expect(problems, where(what)).to.deep.equal([]);
      }
    });
  }
});

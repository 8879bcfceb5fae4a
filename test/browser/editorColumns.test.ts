import { expect } from "chai";
import type { Page } from "playwright-core";
import { ADEQUACY_REPORT_ID, demoReports } from "../../src/demo/demoReports.ts";
import { expectAccessible } from "./accessibility.ts";
import { previewAfter } from "./editorPreview.ts";
import { OUT, signedInPage, useStaffBrowserSuite } from "./staffSuite.ts";
import { expectViewFits } from "./viewFits.ts";

/*
 * Issue #54 deliverable 6: an author builds a month × ward chart by picking the query's columns
 * (x, y and a series column: a bar per ward, with a legend), browses the data source's tables,
 * columns and items, is told "did you mean" for a wrong column, reads control names in the page's
 * language only, switches language after the first save and keeps the report; and the editor with
 * a report open fits a 390 px phone, in Chinese and English.
 */

const TENANT = "h1";
const MONTH_BY_WARD = [
  "select month, ward, patients",
  "from (values ('2026-01-01'::date, 'A', 12), ('2026-01-01'::date, 'B', 9),",
  "             ('2026-02-01'::date, 'A', 13), ('2026-02-01'::date, 'B', 10),",
  "             ('2026-03-01'::date, 'A', 11), ('2026-03-01'::date, 'B', 8)) as t(month, ward, patients)",
  "order by month, ward",
].join("\n");

describe("the report editor's columns, series, schema and languages (issue #54) in chromium", function () {
  this.timeout(180_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 1366, height: 900 } });

  /** Replaces the text of the CodeMirror editor labelled `label`. */
  const typeInto = async (page: Page, label: string, text: string) => {
    await page.getByRole("textbox", { name: label, exact: true }).click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(text);
  };
  const chartCard = (page: Page) => page.locator('.spec-card[data-path="nodes[0]"]');

  it("builds a month × ward chart by picking columns, a bar per ward with a legend, in the preview", async () => {
    const page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#new" });
    await page.locator(".page-editor .editor").waitFor();
    await page.getByLabel("Report id").fill("ward-months");
    await page.getByLabel("Title", { exact: true }).fill("Patients by month and ward");
    await page.getByRole("button", { name: "Add query" }).click();
    await typeInto(page, "SQL of query query1", MONTH_BY_WARD);
    await page.getByRole("button", { name: "Add content" }).click();
    // Before a save the query's columns are not known: a new table shows them all; the save previews it.
    await previewAfter(page, () => page.getByRole("button", { name: "Save and preview" }).click());
    expect(page.url(), "the address names the report").to.match(/#edit\/ward-months$/);
    // One language: the type reads "Chart", not "Chart (chart)".
    await chartCard(page).getByLabel("Type").selectOption("chart");
    expect(await chartCard(page).getByLabel("Type").locator("option:checked").textContent()).to.equal("Chart");
    await chartCard(page).getByLabel("Chart", { exact: true }).selectOption("bar");
    // Now the result's columns are offered: picked, not typed.
    const x = chartCard(page).getByLabel("x column");
    await page.waitForFunction(() =>
      document.querySelector('.spec-card[data-path="nodes[0]"] select[data-path="nodes[0].x"]'),
    );
    expect(await x.locator("option").allTextContents()).to.deep.equal([
      "(choose a column)",
      "month",
      "ward",
      "patients",
    ]);
    await x.selectOption("month");
    await chartCard(page).getByRole("checkbox", { name: "patients" }).first().check();
    await chartCard(page).getByLabel("Series column").selectOption("ward");
    const frame = await previewAfter(page, () => page.getByRole("button", { name: "Save and preview" }).click());
    const chart = frame.locator(".chart[data-series]");
    await chart.waitFor();
    expect(await chart.getAttribute("data-series"), "a series per ward").to.equal("A|B");
    expect(await chart.getAttribute("data-categories"), "each month once").to.equal("3");
    expect(await chart.getAttribute("data-signature"), "six bars, 63 patients").to.equal("6:63.0000");
    expect(await frame.locator(".chart svg text").allTextContents()).to.include.members(["A", "B"]);
    expect(await page.locator('.editor-audit li[data-rule="unknown-column"]').count()).to.equal(0);
    await expectAccessible(page, "the editor with a month × ward chart (en)");
    await page.screenshot({ path: `${OUT}editor-series-en.png`, fullPage: false });

    // The schema browser: the clinical views with their columns, and the dictionary's items.
    await page.locator(".schema-browser > summary").click();
    const results = page.locator('.schema-relation[data-relation="lab_results"]');
    await results.waitFor();
    await results.locator("summary").click();
    expect(await results.locator(".schema-columns code").allTextContents()).to.include.members([
      "std_code",
      "std_value",
      "collected_at",
    ]);
    await page.locator(".schema-items > summary").click();
    expect(await page.locator(".schema-items tbody code").allTextContents()).to.include("KTV");
    await expectAccessible(page, "the schema browser (en)");
    await page.screenshot({ path: `${OUT}editor-schema-en.png`, fullPage: false });

    // The other language after the first save: the same report, every control named in Chinese.
    const switchTo = page.locator("a.lang");
    expect(await switchTo.getAttribute("href")).to.match(/#edit\/ward-months$/);
    await switchTo.click();
    await page.locator(".page-editor .editor").waitFor();
    expect(page.url()).to.match(/lang=zh#edit\/ward-months$/);
    expect(await page.locator(".page-editor h1").textContent()).to.include("ward-months");
    expect(await page.getByLabel("标题", { exact: true }).first().inputValue()).to.equal("Patients by month and ward");
    const words = await chartCard(page)
      .locator("select option:checked, label, legend, .card-title, h3")
      .allTextContents();
    expect(
      words.filter((text) => /\b(table|chart|bar|line|node)\b/.test(text)),
      "no English control names on the Chinese page",
    ).to.deep.equal([]);
    expect(await chartCard(page).getByLabel("分组（系列）列").inputValue()).to.equal("ward");
    await page.screenshot({ path: `${OUT}editor-series-zh.png`, fullPage: false });
    await page.close();
  });

  it("says which column a node probably meant (did you mean), in the page's language", async () => {
    const saved = await staff.tenant.call("PUT", "/api/reports/ward-typo/draft", {
      token: staff.tenant.authorToken,
      body: {
        title: "Typo",
        spec: {
          version: 1,
          title: "Typo",
          params: [],
          queries: { q: { sql: MONTH_BY_WARD } },
          nodes: [{ id: "c", type: "chart", chart: "bar", query: "q", x: "month", y: ["patient"], series: "wards" }],
        },
      },
    });
    expect(saved.status).to.equal(200);
    for (const [lang, expected] of [
      ["en", 'The query returns no column "patient"; did you mean "patients"?'],
      ["zh", "查询结果中没有列“patient”，您是否想用“patients”？"],
    ] as const) {
      const page = await signedInPage(staff, TENANT, { lang, fragment: "#edit/ward-typo" });
      const finding = page.locator('.editor-audit li[data-rule="unknown-column"]');
      await finding.first().waitFor();
      expect(await finding.allTextContents()).to.satisfy((texts: string[]) =>
        texts.some((text) => text.endsWith(expected)),
      );
      // The picker shows the wrong name as not in the result, beside the columns there are.
      await page.waitForFunction(() => document.querySelector('select[data-path="nodes[0].series"]'));
      expect(await page.locator('select[data-path="nodes[0].series"] option:checked').textContent()).to.include(
        "wards",
      );
      await expectAccessible(page, `the did-you-mean finding (${lang})`);
      await page.screenshot({ path: `${OUT}editor-did-you-mean-${lang}.png`, fullPage: false });
      await page.close();
    }
  });

  for (const lang of ["zh", "en"] as const) {
    it(`${lang}: the editor with the adequacy report open fits a 390 px phone`, async () => {
      const demo = demoReports(["2026-01-01", "2026-03-31"]).find((report) => report.id === ADEQUACY_REPORT_ID)!;
      const put = await staff.tenant.call("PUT", `/api/reports/${ADEQUACY_REPORT_ID}/draft`, {
        token: staff.tenant.authorToken,
        body: { title: demo.title, spec: demo.spec },
      });
      expect([200, 412]).to.include(put.status);
      const page = await signedInPage(staff, TENANT, { lang, fragment: `#edit/${ADEQUACY_REPORT_ID}` });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator(".page-editor .editor").waitFor();
      await page.locator(".preview-frame").waitFor();
      await page.waitForTimeout(500);
      await expectViewFits(page, `the editor with ${ADEQUACY_REPORT_ID} open (${lang})`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, "no sideways scroll").to.be.at.most(390);
      await page.screenshot({ path: `${OUT}editor-phone-${lang}.png`, fullPage: false });
      await page.close();
    });
  }
});

import { expect } from "chai";
import type { Page } from "playwright-core";
import { localDateTime } from "../../db/localDateTime.ts";
import { labReport, monthlyPanels } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { expectAccessible } from "./accessibility.ts";
import { OUT, useStaffBrowserSuite, signedInPage } from "./staffSuite.ts";

/*
 * Issue #34, item 5: the Kt/V card said 尿素清除指数 in both languages, "Kt/V" appeared nowhere and
 * an English page named every item in Chinese. Now every page names a dictionary item by its short
 * clinical label and its name in the page's language — English "spKt/V · Single-pool Kt/V", Chinese
 * "尿素清除指数 (spKt/V)" — on the chart's cards and item picker, on the alerts page, and in the
 * report editor's completions of item codes.
 */

const TENANT = "h1";
/** Three monthly adequacy panels of 张三, Kt/V sent by its Chinese name. */
const adequacy = () =>
  monthlyPanels("ADEQ", 3, (i) => [
    { itemName: "尿素清除指数", value: 1.3 + i / 10 },
    { itemCode: "URR", itemName: "尿素下降率", value: 70 + i, unit: "%" },
  ]);

const WORDS = {
  en: {
    ktv: "spKt/V · Single-pool Kt/V",
    urr: "URR · Urea reduction ratio",
    option: /^spKt\/V · Single-pool Kt\/V · 3 results, latest /,
    alert: "K · Potassium",
    announce: "New critical result",
  },
  zh: {
    ktv: "尿素清除指数 (spKt/V)",
    urr: "尿素下降率 (URR)",
    option: /^尿素清除指数 \(spKt\/V\) · 3 个结果，最新 /,
    alert: "钾 (K)",
    announce: "新危急值",
  },
} as const;
/** The badge words of SQL completions (issue #34 item 11). */
const KINDS = {
  en: { keyword: "keyword", table: "table", item: "item" },
  zh: { keyword: "关键字", table: "表", item: "项目" },
} as const;

/**
 * What a completion's badge shows: its word (the icon's ::after content), its width, and the
 * characters of the word the page's font cannot draw (they come out as the box of a missing
 * glyph: drawn on a canvas, the same pixels as a private-use character no font has). A Han
 * character counts as drawn on a machine whose fonts draw no Chinese at all (中 comes out as a
 * box too): there the whole Chinese page is boxes, not the badge.
 */
function badge(option: import("playwright-core").Locator) {
  return option.locator(".cm-completionIcon").evaluate((icon) => {
    const style = getComputedStyle(icon, "::after");
    const word = style.content === "none" ? "" : (JSON.parse(style.content) as string);
    const canvas = document.createElement("canvas");
    canvas.width = 64;
    canvas.height = 48;
    const context = canvas.getContext("2d", { willReadFrequently: true })!;
    context.font = `32px ${style.fontFamily}`;
    const drawn = [...word, "\u{10FFFD}", "中"].map((character) => {
      context.clearRect(0, 0, 64, 48);
      context.fillText(character, 4, 38);
      return context.getImageData(0, 0, 64, 48).data.join(",");
    });
    const missingGlyph = drawn[word.length];
    const noChinese = drawn[word.length + 1] === missingGlyph;
    const missing = [...word].filter(
      (character, i) => drawn[i] === missingGlyph && !(noChinese && /\p{Script=Han}/u.test(character)),
    );
    return {
      word,
      width: icon.getBoundingClientRect().width,
      missing,
      color: getComputedStyle(icon).color,
      background: getComputedStyle(icon).backgroundColor,
    };
  });
}

describe("items named by their clinical label and in the page's language (#34 item 5) in chromium", function () {
  this.timeout(120_000);
  const staff = useStaffBrowserSuite(TENANT, { viewport: { width: 1400, height: 950 } });
  let page: Page;
  const ready = (selector: string) => page.locator(`${selector}[data-state=ready]`).waitFor({ timeout: 15_000 });

  before(async () => {
    expect((await staff.tenant.push("lab", adequacy())).status).to.equal(200);
    const critical = labReport("CRIT-LABEL", {
      collectedAt: localDateTime(new Date(Date.now() - 3_600_000)),
      reportedAt: localDateTime(new Date()),
      items: [{ itemCode: "K", itemName: "钾", value: 7.0, unit: "mmol/L", abnormalFlag: "HH" }],
    });
    expect((await staff.tenant.push("lab", [critical])).status).to.equal(200);
    await until(async () =>
      (
        (await staff.tenant.call("GET", "/api/alerts", { token: staff.tenant.authorToken })).body as Array<{
          externalId: string;
        }>
      ).some((alert) => alert.externalId === "CRIT-LABEL"),
    );
    const spec = {
      version: 1,
      title: "Adequacy",
      params: [],
      queries: { adequacy: { sql: "select month, value_avg from monthly_results" } },
      nodes: [{ id: "trend", type: "table", query: "adequacy" }],
    };
    expect(
      (
        await staff.tenant.call("PUT", "/api/reports/adequacy-labels/draft", {
          token: staff.tenant.authorToken,
          body: { spec },
        })
      ).status,
    ).to.equal(200);
    page = await signedInPage(staff, TENANT, { lang: "en", fragment: "#patients" });
  });

  for (const lang of ["en", "zh"] as const) {
    const words = WORDS[lang];

    it(`${lang}: the chart's Kt/V card and its item are named by the label spKt/V and the name in ${lang === "en" ? "English" : "Chinese"}`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#chart/P001`);
      await ready(".page-chart .page-body");
      const ktv = page.locator(".series-card[data-code=KTV]");
      expect(await ktv.getAttribute("data-points")).to.equal("3");
      expect(await ktv.locator("h2").textContent()).to.equal(words.ktv);
      expect(await page.locator(".series-card[data-code=URR] h2").textContent()).to.equal(`${words.urr} %`);
      await ktv.locator(".series-chart canvas").waitFor();
      expect(await ktv.locator(".series-chart").getAttribute("aria-label")).to.satisfy((label: string) =>
        label.startsWith(words.ktv),
      );
      // Found by "Kt/V" in either language, as the find bar of the browser finds it.
      expect(await page.locator(".series-card", { hasText: "Kt/V" }).getAttribute("data-code")).to.equal("KTV");
      await page.locator(".item-picker summary").click();
      expect(await page.locator(".item-option[data-code=KTV]").textContent()).to.match(words.option);
      await page.locator(".item-picker summary").click();
      await page.screenshot({ path: `${OUT}item-labels-chart-${lang}.png`, fullPage: true });

      await page.locator(".view-toggle").click();
      expect(await page.locator("table.results tr[data-code=KTV] th").first().textContent()).to.equal(words.ktv);
      await page.locator(".view-toggle").click();
      expect(staff.cspViolations).to.deep.equal([]);
    });

    it(`${lang}: the alerts page names the critical potassium by its label`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#alerts`);
      await ready(".page-alerts .page-body");
      const row = page.locator("tr[data-external-id=CRIT-LABEL]");
      expect(await row.locator("td.result strong").textContent()).to.equal(words.alert);
      expect(await row.locator("button.acknowledge").getAttribute("aria-label")).to.include(words.alert);
      await expectAccessible(page, `the alerts page naming items by their labels (${lang})`);
    });

    it(`${lang}: the SQL editor completes a quoted item code found by its label, with the label and name beside the code`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#edit/adequacy-labels`);
      await page.locator(".page-editor .editor").waitFor();
      const field = page.locator('.sql-field[data-path="queries.adequacy.sql"] .cm-content');
      await field.click();
      await page.keyboard.press("Control+End");
      await page.keyboard.type(" where std_code = 'spkt");
      const options = page.locator(".cm-tooltip-autocomplete li");
      const offered = () => options.locator(".cm-completionLabel").allTextContents();
      await until(async () => (await offered()).join() === "KTV", 10_000);
      expect(await options.first().locator(".cm-completionDetail").textContent()).to.equal(words.ktv);
      await options.first().click();
      expect(await field.textContent()).to.equal("select month, value_avg from monthly_results where std_code = 'KTV'");
      // (Typing over a whole selection would have Chromium's editing put a style attribute on the line.)
      await page.keyboard.press("Control+A");
      await page.keyboard.press("Delete");
      await page.keyboard.insertText("select * from lab_results where std_code in ('HGB', ");
      await page.keyboard.type("'ur");
      // Those whose code or label starts so first, then Uric acid by its English name.
      await until(async () => (await offered()).join() === "UREA_PRE,UREA_POST,URR,UA", 10_000);
      await page.keyboard.press("Escape");
      // Leaving asks nothing of the test: the draft is left unsaved on purpose.
      page.once("dialog", (dialog) => void dialog.accept());
    });

    it(`${lang}: each SQL completion has a badge word the page's fonts draw (keyword, table, item), not an empty box`, async () => {
      await page.goto(`${staff.service.url}/staff?tenant=${TENANT}&lang=${lang}#edit/adequacy-labels`);
      await page.locator(".page-editor .editor").waitFor();
      const field = page.locator('.sql-field[data-path="queries.adequacy.sql"] .cm-content');
      await field.click();
      const options = page.locator(".cm-tooltip-autocomplete li");
      const expectBadge = async (typed: string, label: string, kind: keyof (typeof KINDS)["en"]) => {
        await page.keyboard.press("Control+A");
        await page.keyboard.press("Delete");
        await page.keyboard.type(typed);
        const option = options
          .filter({ has: page.locator(".cm-completionLabel", { hasText: new RegExp(`^${label}$`) }) })
          .first();
        await option.waitFor();
        const seen = await badge(option);
        expect(seen, `${lang}: the badge of ${label}`).to.deep.include({
          word: KINDS[lang][kind],
          missing: [],
          color: "rgb(31, 41, 55)",
          background: "rgb(232, 234, 237)",
        });
        expect(seen.width, `${lang}: the badge of ${label} is as wide as its word`).to.be.greaterThan(16);
        await page.locator(".cm-tooltip-autocomplete").screenshot({ path: `${OUT}sql-completion-${kind}-${lang}.png` });
        await page.keyboard.press("Escape");
      };
      await expectBadge("sel", "select", "keyword");
      await expectBadge("select * from lab_r", "lab_results", "table");
      await expectBadge("select * from lab_results where std_code = 'spkt", "KTV", "item");
      page.once("dialog", (dialog) => void dialog.accept());
    });
  }
});

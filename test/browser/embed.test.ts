import { mkdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import ExcelJS from "exceljs";
import type { Frame, Page } from "playwright-core";
import { allProjections } from "../../src/app/allProjections.ts";
import { DEMO_TENANT } from "../../src/demo/demoData.ts";
import { ADEQUACY_REPORT_ID } from "../../src/demo/demoReports.ts";
import { loadDemo } from "../../src/demo/loadDemo.ts";
import type { RunningService } from "../../src/app/service.ts";
import { startTestService, TEST_ADMIN_TOKEN } from "../support/service.ts";
import { ensureEmbedBundle, launchChromium, type Chromium } from "./chromium.ts";
import { unzip } from "../support/zipText.ts";

/** Screenshots (and the printed PDF) of this run; the folder is gitignored. */
const OUT = fileURLToPath(new URL("../../test-output/", import.meta.url));
const TENANT = { "X-Service-Tenant": DEMO_TENANT };
const DEMO_NODES = 12;

/** A small report of our own: one good and one failing query; xlsx export switched off. */
const checkSpec = (title: string) => ({
  version: 1,
  title,
  params: [{ name: "active", label: "Active", type: "boolean", default: null }],
  queries: {
    counted: { sql: "select count(*)::int as patients from patients [[where active = {{active}}]]" },
    failing: { sql: "select 1 / (count(*) - count(*)) as boom from patients" },
  },
  nodes: [
    {
      id: "note",
      type: "text",
      markdown:
        "**Raw HTML** stays text: <img src=x onerror=\"document.title='pwned'\"> [link](javascript:alert(1)) [ok](https://example.org)",
    },
    { id: "count", type: "stat", title: "Patients", query: "counted", column: "patients", width: 6 },
    { id: "broken", type: "table", title: "Broken", query: "failing", width: 6 },
  ],
  export: { xlsx: false, docx: true },
});

async function api(service: RunningService, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${service.url}${path}`, {
    method,
    headers: { ...TENANT, authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function rendered(target: Page | Frame, count = 1): Promise<void> {
  await target.waitForFunction(
    (n) => document.body.dataset.rendered === "true" && Number(document.body.dataset.renderCount) >= n,
    count,
    { timeout: 20_000 },
  );
}

async function nodeStates(target: Page | Frame): Promise<Record<string, string>> {
  return target.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>("#app .node")].map((n) => [n.dataset.nodeId!, n.dataset.state!]),
    ),
  );
}

describe("embed page in chromium", function () {
  this.timeout(60_000);
  let service: RunningService;
  let browser: Chromium;
  let host: http.Server;
  let hostPort: number;
  let page: Page;

  before(async function () {
    this.timeout(180_000);
    mkdirSync(OUT, { recursive: true });
    ensureEmbedBundle();
    // The host page of the iframe test lives on another origin, allowed to frame the page.
    host = http.createServer((req, res) => {
      const src = `${service.url}/embed/reports/${ADEQUACY_REPORT_ID}?tenant=${DEMO_TENANT}&lang=en`;
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Host</title></head>
<body style="margin:0;font-family:sans-serif"><h1 style="font-size:16px;padding:8px 16px;margin:0;background:#234;color:#fff">Host application (${req.headers.host})</h1>
<iframe id="report" sandbox="allow-scripts allow-downloads" src="${src}" style="border:0;width:100%;height:1500px"></iframe></body></html>`);
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    hostPort = (host.address() as AddressInfo).port;
    const previous = process.env.EMBED_FRAME_ANCESTORS;
    process.env.EMBED_FRAME_ANCESTORS = `'self' http://127.0.0.1:${hostPort}`;
    try {
      service = await startTestService({ projections: allProjections });
    } finally {
      if (previous === undefined) delete process.env.EMBED_FRAME_ANCESTORS;
      else process.env.EMBED_FRAME_ANCESTORS = previous;
    }
    const [demo, chromium] = await Promise.all([loadDemo(service.url!, TEST_ADMIN_TOKEN), launchChromium()]);
    browser = chromium;
    expect(demo?.reports).to.include(ADEQUACY_REPORT_ID);

    expect(
      (await api(service, "PUT", "/api/reports/embed-check/draft", { spec: checkSpec("Embed check") })).status,
    ).to.equal(200);
    expect((await api(service, "POST", "/api/reports/embed-check/publish", { mode: "dynamic" })).status).to.equal(201);
    const frozen = {
      ...checkSpec("Embed snapshot"),
      queries: { ...checkSpec("").queries, failing: { sql: "select 1 as boom" } },
    };
    expect((await api(service, "PUT", "/api/reports/embed-snapshot/draft", { spec: frozen })).status).to.equal(200);
    expect((await api(service, "POST", "/api/reports/embed-snapshot/publish", { mode: "snapshot" })).status).to.equal(
      201,
    );
    expect(
      (await api(service, "PUT", "/api/reports/never-published/draft", { spec: checkSpec("Never published") })).status,
    ).to.equal(200);

    page = await browser.context.newPage();
    await page.setExtraHTTPHeaders(TENANT);
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await service?.stop();
  });

  it("serves the page with its CSP (frame-ancestors), nosniff and no X-Frame-Options", async () => {
    const response = await fetch(`${service.url}/embed/reports/${ADEQUACY_REPORT_ID}`, { headers: TENANT });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^text\/html; charset=utf-8/);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).to.include("default-src 'self'").and.include("script-src 'self'").and.include("connect-src 'self'");
    expect(csp).to.include(`frame-ancestors 'self' http://127.0.0.1:${hostPort}`);
    expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
    expect(response.headers.get("referrer-policy")).to.equal("same-origin");
    expect(response.headers.get("x-frame-options")).to.equal(null);
    const html = await response.text();
    // The demo's title is given in both languages (issue #54); the page without lang= is Chinese.
    expect(html).to.include("<title>透析充分性</title>");
    const asset = /src="(\/embed\/assets\/embed\.[0-9a-f]+\.js)"/.exec(html)![1]!;
    const script = await fetch(`${service.url}${asset}`);
    expect(script.status).to.equal(200);
    expect(script.headers.get("cache-control")).to.include("immutable");
    expect((await fetch(`${service.url}/embed/assets/..%2Fbuild.mjs`)).status).to.equal(404);
  });

  it("answers 409 with a short HTML message for a never-published report, 404 for an unknown one", async () => {
    const never = await fetch(`${service.url}/embed/reports/never-published?lang=en`, { headers: TENANT });
    expect(never.status).to.equal(409);
    expect(never.headers.get("content-type")).to.match(/^text\/html/);
    expect(await never.text()).to.include("This report has not been published yet");
    expect(
      (await fetch(`${service.url}/embed/reports/never-published?version=draft`, { headers: TENANT })).status,
    ).to.equal(200);
    expect((await fetch(`${service.url}/embed/reports/no-such-report`, { headers: TENANT })).status).to.equal(404);
    expect(
      (await fetch(`${service.url}/embed/reports/${ADEQUACY_REPORT_ID}?version=v9`, { headers: TENANT })).status,
    ).to.equal(404);
  });

  it("renders every node of the demo report: stat tiles, charts, sortable tables, markdown", async () => {
    await page.goto(`${service.url}/embed/reports/${ADEQUACY_REPORT_ID}`);
    await rendered(page);
    const states = await nodeStates(page);
    expect(Object.keys(states)).to.have.length(DEMO_NODES);
    expect(Object.entries(states).filter(([, state]) => state !== "ready")).to.deep.equal([]);
    expect(await page.locator("#app .node-chart svg").count()).to.equal(3);
    expect(await page.locator(".node[data-node-id=intro] strong").first().textContent()).to.equal("单室 Kt/V");
    expect(await page.locator(".node[data-node-id=patients] .stat-value").textContent()).to.match(/^\d+$/);
    expect(await page.title()).to.equal("透析充分性");
    expect(await page.locator(".filters .apply").textContent()).to.equal("查询"); // zh by default

    // Sorting a table by a header: descending Kt/V puts the highest first.
    const ktv = () => page.locator(".node[data-node-id=monthlyTable] tbody tr td:nth-child(3)").allTextContents();
    const header = page.locator(".node[data-node-id=monthlyTable] th button", { hasText: "spKt/V" }).first();
    await header.click();
    await header.click();
    const values = (await ktv()).map(Number);
    expect(values).to.deep.equal([...values].sort((a, b) => b - a));
    // The demo marks spKt/V under the aim of 1.4 (red under 1.2): every marked cell is one.
    const marked = await page
      .locator(".node[data-node-id=monthlyTable] tbody td.tone")
      .evaluateAll((cells) => cells.map((cell) => [cell.className, Number(cell.textContent)] as const));
    for (const [className, value] of marked)
      expect(value, className).to.be.below(className.includes("tone-danger") ? 1.2 : 1.4);
    await page.screenshot({ path: `${OUT}embed-report.png`, fullPage: true });
  });

  it("names the demo's series and columns as a reader knows them (spKt/V, not ktv), and its reference line beside the bars, in zh and en", async () => {
    for (const lang of ["zh", "en"]) {
      const named = await browser.context.newPage();
      await named.setExtraHTTPHeaders(TENANT);
      await named.goto(`${service.url}/embed/reports/${ADEQUACY_REPORT_ID}?lang=${lang}`);
      await rendered(named);
      const chartTexts = (id: string) => named.locator(`.node[data-node-id=${id}] svg text`).allTextContents();
      const sqlNames = /^(ktv|urr|ktv_on_target_pct|urr_on_target_pct)$/;
      expect(await chartTexts("onTarget"), lang).to.include.members(["spKt/V ≥ 1.2", "URR ≥ 65 %"]);
      expect(await chartTexts("trend"), lang).to.include.members(["spKt/V", "URR"]);
      for (const id of ["trend", "onTarget", "wards"])
        expect(
          (await chartTexts(id)).filter((text) => sqlNames.test(text)),
          `${lang}: SQL names in chart ${id}`,
        ).to.deep.equal([]);

      // The tooltip of a month names the series as the legend does.
      const chart = named.locator(".node[data-node-id=trend] .chart");
      const box = (await chart.boundingBox())!;
      await named.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      // ECharts puts its tooltip box after the drawing, inside the chart's element.
      // Its months written as months, in the page's language (issue #54).
      const tooltip = chart.locator(":scope > div:not(:has(svg))", {
        hasText: lang === "zh" ? /\d{4}年\d{1,2}月/ : /\d{4}-\d{2}(?!-)/,
      });
      await tooltip.waitFor();
      expect(await tooltip.innerText(), `${lang}: tooltip`)
        .to.match(/spKt\/V/)
        .and.match(/URR/)
        .and.not.match(/\bktv\b|\burr\b/);

      const [month, patients, ward] = lang === "zh" ? ["月份", "患者数", "病区"] : ["Month", "Patients", "Ward"];
      expect(await named.locator(".node[data-node-id=monthlyTable] thead th").allTextContents(), lang).to.deep.equal([
        month,
        patients,
        "spKt/V",
        "URR (%)",
        "spKt/V ≥ 1.2 (%)",
        "URR ≥ 65 (%)",
      ]);
      expect(await named.locator(".node[data-node-id=detail] thead th").allTextContents(), lang).to.include.members([
        month,
        ward,
        "spKt/V",
      ]);

      // The reference line's name ("target 1.2") covers no bar of the ward chart.
      // (No named function inside evaluate: the test loader would wrap it in a helper the page lacks.)
      const target = lang === "zh" ? "目标 1.2" : "target 1.2";
      const boxes = await named.locator(".node[data-node-id=wards] svg").evaluate((svg, target) => {
        const name = [...svg.querySelectorAll("text")].filter((text) => text.textContent === target);
        // Bars are the paths filled with a series' colour taller than a legend sign (14 px).
        const bars = [...svg.querySelectorAll("path")].filter(
          (path) =>
            ["#0072B2", "#E69F00"].includes((path.getAttribute("fill") ?? "").toUpperCase()) &&
            path.getBoundingClientRect().height > 16,
        );
        const [nameBox, ...barBoxes] = [...name, ...bars].map(
          (element) =>
            element.getBoundingClientRect().toJSON() as { left: number; top: number; right: number; bottom: number },
        );
        return { name: name.length ? nameBox! : null, bars: name.length ? barBoxes : [] };
      }, target);
      expect(boxes.name, `${lang}: the reference line is named`).to.not.equal(null);
      expect(boxes.bars, `${lang}: the bars of the ward chart`).to.have.length.of.at.least(2);
      const overlapping = boxes.bars.filter(
        (bar) =>
          bar.left < boxes.name!.right &&
          boxes.name!.left < bar.right &&
          bar.top < boxes.name!.bottom &&
          boxes.name!.top < bar.bottom,
      );
      expect(overlapping, `${lang}: bars under the name at ${JSON.stringify(boxes.name)}`).to.deep.equal([]);
      await named.close();
    }
  });

  it("changes the chart when the period filter changes", async () => {
    const chart = page.locator(".node[data-node-id=trend] .chart");
    const before = await chart.getAttribute("data-signature");
    expect(Number(await chart.getAttribute("data-points"))).to.be.greaterThan(3);
    const to = await page.locator(".field[data-param=period] input[data-end=to]").inputValue();
    const end = new Date(`${to}T00:00:00Z`);
    const from = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - 2, 1)).toISOString().slice(0, 10);
    await page.locator(".field[data-param=period] input[data-end=from]").fill(from);
    const count = Number(await page.evaluate(() => document.body.dataset.renderCount));
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith("/data") && r.method() === "POST"),
      page.locator(".filters .apply").click(),
    ]);
    expect(request.postDataJSON().params.period).to.deep.equal([from, to]);
    await rendered(page, count + 1);
    // Three months of spKt/V and of URR (its second axis).
    expect(await chart.getAttribute("data-points")).to.equal("6");
    expect(await chart.getAttribute("data-signature")).to.not.equal(before);
    expect(await page.locator(".filter-summary [data-param=period] dd").textContent()).to.equal(`${from} – ${to}`);

    // The wards multi-select is filled from its option query (value, label: the ward's code, in every language).
    const wards = page.locator(".field[data-param=wards]");
    await wards.locator("summary").click();
    expect(await wards.locator(".multi-list label").allTextContents()).to.deep.equal(["A", "B", "C"]);
    await wards.locator(".multi-list label", { hasText: "A" }).click();
    const [wardRequest] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith("/data")),
      page.locator(".filters .apply").click(),
    ]);
    expect(wardRequest.postDataJSON().params.wards).to.deep.equal(["A"]);
    await rendered(page, count + 2);
    expect(await page.locator(".node[data-node-id=wardTable] tbody tr td:first-child").allTextContents()).to.deep.equal(
      ["A"],
    );
    expect(await page.locator(".filter-summary [data-param=wards] dd").textContent()).to.equal("A");
  });

  it("opens the drill layer with the clicked month from a chart point and from a table row", async () => {
    const box = (await page.locator(".node[data-node-id=trend] .chart").boundingBox())!;
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith("/drill")),
      page.mouse.click(box.x + box.width / 2, box.y + box.height / 2),
    ]);
    const body = request.postDataJSON();
    expect(body.drill).to.equal("byMonth");
    expect(body.args.month).to.match(/^\d{4}-\d{2}-01$/);
    const layer = page.locator(".layer-backdrop[data-state=ready]");
    await layer.waitFor();
    // Titled in the page's language, the clicked month as a month (issue #54).
    const [, year, monthNo] = /^(\d{4})-(\d{2})/.exec(body.args.month)!;
    expect(await layer.locator(".layer-title").textContent()).to.equal(`${year}年${Number(monthNo)}月 的患者`);
    expect(await layer.locator("tbody tr").count()).to.be.greaterThan(0);
    expect(await layer.locator(".exports button").count()).to.equal(2);
    await page.screenshot({ path: `${OUT}embed-drill.png` });
    await layer.locator("button.close").click();
    expect(await page.locator(".layer-backdrop").count()).to.equal(0);

    const row = page.locator(".node[data-node-id=monthlyTable] tbody tr").first();
    const month = await row.locator("td").first().textContent();
    await row.click();
    await page.locator(".layer-backdrop[data-state=ready]").waitFor();
    expect(month, "a table's month column reads as months").to.match(/^\d{4}年\d{1,2}月$/);
    expect(await page.locator(".layer-title").textContent()).to.equal(`${month} 的患者`);
    await page.keyboard.press("Escape");
    expect(await page.locator(".layer-backdrop").count()).to.equal(0);
  });

  it("exports xlsx from the page as a download with the server's file name", async () => {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.locator(".report-head .export-xlsx").click(),
    ]);
    expect(download.suggestedFilename()).to.match(/^透析充分性 v1 \d{4}-\d{2}-\d{2}\.xlsx$/);
    const file = `${OUT}${download.suggestedFilename()}`;
    await download.saveAs(file);
    expect(readFileSync(file).subarray(0, 2).toString()).to.equal("PK");
  });

  it("exports files whose own words follow the page's language (zh and en)", async () => {
    const aboutLabels = async (target: Page) => {
      const [download] = await Promise.all([
        target.waitForEvent("download"),
        target.locator(".report-head .export-xlsx").click(),
      ]);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(readFileSync((await download.path())!) as never);
      // The first sheet: "About", or its name in the file's language.
      return book.worksheets[0]!.getColumn(1).values.slice(1);
    };
    const docxText = async (target: Page) => {
      const [download] = await Promise.all([
        target.waitForEvent("download"),
        target.locator(".report-head .export-docx").click(),
      ]);
      return unzip(readFileSync((await download.path())!))
        .get("word/document.xml")!
        .toString("utf8");
    };
    // The page opened without lang= is Chinese, the embed page's default.
    expect(await aboutLabels(page))
      .to.include.members(["报表", "版本", "筛选条件"])
      .and.not.include("Report");
    const word = await docxText(page);
    expect(word).to.include("筛选条件").and.include("导出于").and.not.include(">Filters<");
    const enPage = await browser.context.newPage();
    try {
      await enPage.setExtraHTTPHeaders(TENANT);
      await enPage.goto(`${service.url}/embed/reports/${ADEQUACY_REPORT_ID}?lang=en`);
      await rendered(enPage);
      expect(await aboutLabels(enPage))
        .to.include.members(["Report", "Version", "Filters"])
        .and.not.include("报表");
      const english = await docxText(enPage);
      expect(english).to.include(">Filters<").and.not.include("筛选条件");
      expect(english, "the demo's screen-only hint stays off paper")
        .to.include("single-pool")
        .and.not.include("Click a month");
      expect(await enPage.locator(".node[data-node-id=howTo]").textContent()).to.include("Click a month");
    } finally {
      await enPage.close();
    }
  });

  it("shows a text marked print: false on screen and leaves it out of print", async () => {
    const spec = {
      ...checkSpec("Screen hint"),
      nodes: [{ id: "hint", type: "text", markdown: "Click a row to open it.", print: false }, ...checkSpec("").nodes],
    };
    expect((await api(service, "PUT", "/api/reports/screen-hint/draft", { spec })).status).to.equal(200);
    expect((await api(service, "POST", "/api/reports/screen-hint/publish", { mode: "dynamic" })).status).to.equal(201);
    const hint = await browser.context.newPage();
    try {
      await hint.setExtraHTTPHeaders(TENANT);
      await hint.goto(`${service.url}/embed/reports/screen-hint?lang=en`);
      await rendered(hint);
      const text = hint.locator(".node[data-node-id=hint]");
      expect(await text.isVisible()).to.equal(true);
      await hint.emulateMedia({ media: "print" });
      expect(await text.isVisible()).to.equal(false);
      expect(await hint.locator(".node[data-node-id=note]").isVisible(), "other texts print").to.equal(true);
    } finally {
      await hint.close();
    }
  });

  it("prints on A4 without buttons or filter inputs, the filter values as text", async () => {
    await page.setViewportSize({ width: 794, height: 1123 });
    await page.emulateMedia({ media: "print" });
    try {
      await page.waitForTimeout(100); // the charts resize to their print boxes
      // Buttons are gone; table headers (sort buttons on screen) stay as plain headings.
      for (const button of await page.locator("button:not(.sort)").all())
        expect(await button.isVisible()).to.equal(false);
      expect(await page.locator(".node[data-node-id=monthlyTable] th").first().isVisible()).to.equal(true);
      expect(await page.locator(".filter-controls").isVisible()).to.equal(false);
      expect(await page.locator(".filter-summary").isVisible()).to.equal(true);
      expect(await page.locator(".filter-summary [data-param=wards] dd").textContent()).to.equal("A");
      expect(
        await page
          .locator(".node-chart")
          .first()
          .evaluate((n) => getComputedStyle(n).breakInside),
      ).to.equal("avoid");
      const fits = await page
        .locator(".node-chart")
        .evaluateAll((nodes) =>
          nodes.every((n) => n.querySelector("svg")!.getBoundingClientRect().width <= n.getBoundingClientRect().width),
        );
      expect(fits).to.equal(true);
      await page.screenshot({ path: `${OUT}embed-print.png`, fullPage: true });
      await page.pdf({ path: `${OUT}embed-print.pdf`, preferCSSPageSize: true, printBackground: true });
    } finally {
      await page.emulateMedia({ media: "screen" });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("shows a failing query's message in its own node only, and hides switched-off exports", async () => {
    const check = await browser.context.newPage();
    await check.setExtraHTTPHeaders(TENANT);
    await check.goto(`${service.url}/embed/reports/embed-check?lang=en`);
    await rendered(check);
    expect(await nodeStates(check)).to.deep.equal({ note: "ready", count: "ready", broken: "error" });
    // Markdown: raw HTML is escaped, a javascript: link is dropped, an https link kept.
    const note = check.locator(".node[data-node-id=note]");
    expect(await note.locator("img").count()).to.equal(0);
    expect(await note.textContent()).to.include("<img src=x");
    expect(await note.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).to.deep.equal([
      "https://example.org",
    ]);
    // The failure said by its code in the page's words, not the database's sentence (issue #54).
    expect(await check.locator(".node[data-node-id=broken] .node-error").textContent()).to.match(
      /^The query divided by zero/,
    );
    expect(await check.locator(".report-head .export-xlsx").count()).to.equal(0);
    expect(await check.locator(".report-head .export-docx").isVisible()).to.equal(true);

    // A snapshot version: the frozen data, the filters fixed with a note.
    await check.goto(`${service.url}/embed/reports/embed-snapshot?lang=en`);
    await rendered(check);
    expect(await nodeStates(check)).to.deep.equal({ note: "ready", count: "ready", broken: "ready" });
    expect(await check.locator(".filter-note").textContent()).to.match(/^Snapshot/);
    expect(await check.locator(".field[data-param=active] select").isDisabled()).to.equal(true);
    await check.close();
  });

  it("heads a table's columns with their labels and units, writes the cells in the column's format and alignment, and marks highlighted values", async () => {
    const spec = {
      version: 1,
      title: "Columns",
      params: [],
      queries: {
        shares: { sql: "select g as n, g / 8.0 as share, 'W' || g as ward from generate_series(1, 3) g order by g" },
      },
      nodes: [
        {
          id: "shares",
          type: "table",
          query: "shares",
          columns: [
            { column: "ward", label: "Ward", align: "center" },
            { column: "share", label: "Share", unit: "of beds", format: "percent:1" },
            "n",
          ],
          highlight: [
            { column: "share", below: 0.2, tone: "danger" },
            { column: "share", between: [0.2, 0.3], tone: "ok" },
          ],
        },
        {
          id: "first",
          type: "stat",
          query: "shares",
          column: "share",
          format: "0.0%",
          unit: "of beds",
          highlight: [{ below: 0.2, tone: "warning" }],
        },
      ],
    };
    expect((await api(service, "PUT", "/api/reports/embed-columns/draft", { spec })).status).to.equal(200);
    expect((await api(service, "POST", "/api/reports/embed-columns/publish", { mode: "dynamic" })).status).to.equal(
      201,
    );
    const columns = await browser.context.newPage();
    await columns.setExtraHTTPHeaders(TENANT);
    await columns.goto(`${service.url}/embed/reports/embed-columns?lang=en`);
    await rendered(columns);
    const table = columns.locator(".node[data-node-id=shares] table");
    expect(await table.locator("thead th").allTextContents()).to.deep.equal(["Ward", "Share (of beds)", "n"]);
    expect(await table.locator("tbody tr").first().locator("td").allTextContents()).to.deep.equal(["W1", "12.5%", "1"]);
    expect(
      await table
        .locator("tbody tr")
        .first()
        .locator("td")
        .evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell).textAlign)),
    ).to.deep.equal(["center", "right", "right"]);

    // Highlight: the first matching rule's class, the fill from embed.css, a glyph whose alt text is the tone; the text stays the value.
    const marks = () =>
      table.locator("tbody td:nth-child(2)").evaluateAll((cells) =>
        (cells as HTMLElement[]).map((cell) => ({
          text: cell.textContent,
          className: cell.className,
          tone: cell.dataset.tone,
          title: cell.title,
          fill: getComputedStyle(cell).backgroundColor,
          glyph: getComputedStyle(cell, "::after").content,
        })),
      );
    const [low, mid, high] = await marks();
    expect(low).to.deep.include({
      text: "12.5%",
      className: "num tone tone-danger",
      tone: "Danger",
      title: "Danger: below 0.2",
      fill: "rgb(255, 199, 206)",
    });
    expect(low!.glyph).to.include("!!");
    expect(mid).to.deep.include({
      text: "25.0%",
      className: "num tone tone-ok",
      title: "OK: 0.2 to 0.3",
      fill: "rgb(198, 239, 206)",
    });
    expect(high).to.deep.include({ className: "num", tone: undefined, title: "" });
    const stat = columns.locator(".node[data-node-id=first] .stat-value");
    expect(await stat.textContent()).to.equal("12.5% of beds");
    expect(await stat.getAttribute("class")).to.equal("stat-value tone tone-warning");
    await columns.emulateMedia({ media: "print" });
    expect((await marks())[0]).to.deep.include({ fill: "rgb(255, 199, 206)" });
    expect(
      await table
        .locator("td.tone")
        .first()
        .evaluate((cell) => getComputedStyle(cell).printColorAdjust),
    ).to.equal("exact");
    await columns.screenshot({ path: `${OUT}embed-columns.png`, fullPage: true });
    await columns.close();
  });

  it("works inside a sandboxed iframe of a host page on another origin (tenant from ?tenant=)", async () => {
    const hostPage = await browser.context.newPage(); // no X-Service-Tenant header here
    try {
      await hostPage.goto(`http://127.0.0.1:${hostPort}/`);
      const frame = (await (await hostPage.waitForSelector("#report")).contentFrame())!;
      await rendered(frame);
      const states = await nodeStates(frame);
      expect(Object.values(states)).to.have.length(DEMO_NODES);
      expect(Object.entries(states).filter(([, state]) => state !== "ready")).to.deep.equal([]);
      expect(await frame.locator(".node-chart svg").count()).to.equal(3);
      expect(await frame.evaluate(() => window.origin)).to.equal("null"); // really sandboxed
      expect(await frame.locator(".filters .apply").textContent()).to.equal("Apply");
      // The frame paints in a process of its own: let it draw before the screenshot.
      await frame.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await hostPage.screenshot({ path: `${OUT}embed-iframe.png` });

      // Export from the sandboxed frame (allow-downloads): the server's name comes through CORS.
      const [download] = await Promise.all([
        hostPage.waitForEvent("download"),
        frame.locator(".report-head .export-xlsx").click(),
      ]);
      expect(download.suggestedFilename()).to.match(/ v1 \d{4}-\d{2}-\d{2}\.xlsx$/);

      // An origin that EMBED_FRAME_ANCESTORS does not list cannot frame the page.
      await hostPage.goto(`http://localhost:${hostPort}/`);
      const blocked = (await (await hostPage.waitForSelector("#report")).contentFrame())!;
      await hostPage.waitForTimeout(300);
      expect(await blocked.locator("body[data-rendered]").count()).to.equal(0);
    } finally {
      await hostPage.close();
    }
  });
});

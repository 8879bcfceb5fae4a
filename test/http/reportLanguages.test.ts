import { expect } from "chai";
import ExcelJS from "exceljs";
import { useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { downloadExport } from "../support/reports.ts";
import { unzip } from "../support/zipText.ts";
import { zipText } from "../support/zipText.ts";

/*
 * Issue #54: a report spec may give its titles, labels and texts per language; the viewing calls
 * (list, view, drill) and the exports answer them in the reader's language (`lang`), else in the
 * other language given. A call that names no language reads English, as the exports' own words do.
 */

const t = (zh: string, en: string) => ({ zh, en });

const spec = {
  version: 1,
  title: t("月度概览", "Monthly overview"),
  description: t("按月统计。", "By month."),
  params: [{ name: "period", label: t("时间段", "Period"), type: "dateRange", default: null }],
  queries: {
    monthly: {
      sql: "select d::date as month, 1.3 + extract(month from d) / 100.0 as ktv from generate_series(date '2026-01-01', date '2026-03-01', interval '1 month') d order by 1",
    },
  },
  nodes: [
    { id: "intro", type: "text", markdown: t("每月的 **Kt/V**。", "Monthly **Kt/V**.") },
    {
      id: "tbl",
      type: "table",
      title: t("按月份", "By month"),
      query: "monthly",
      columns: [
        { column: "month", label: t("月份", "Month") },
        { column: "ktv", label: "Kt/V" },
      ],
      drill: { target: "byMonth", args: { month: "month" } },
    },
  ],
  drills: {
    byMonth: {
      title: t("{month:month} 的明细", "Detail of {month}"),
      args: [{ name: "month", type: "date" }],
      queries: { detail: { sql: "select {{month}}::date as month" } },
    },
  },
};

describe("a report read in its reader's language (issue #54)", function () {
  this.timeout(120_000);
  const hub = useIngestionService();
  const call = (method: string, path: string, body?: unknown) => hub.tenant.call(method, path, { body });

  before(async () => {
    const saved = await hub.tenant.call("PUT", "/api/reports/overview/draft", {
      token: hub.tenant.authorToken,
      body: { spec },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const published = await hub.tenant.call("POST", "/api/reports/overview/publish", {
      token: hub.tenant.authorToken,
      body: { mode: "dynamic" },
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(201);
    await until(async () => (await call("GET", "/api/reports/overview/view?version=v1")).status === 200);
  });

  it("lists and opens the report with its words in the language asked for, English when none is", async () => {
    const titles = async (query: string) =>
      ((await call("GET", `/api/reports${query}`)).body as Array<{ id: string; title: string }>).find(
        (report) => report.id === "overview",
      )?.title;
    expect([await titles("?lang=zh"), await titles("?lang=en"), await titles("")]).to.deep.equal([
      "月度概览",
      "Monthly overview",
      "Monthly overview",
    ]);

    const zh = (await call("GET", "/api/reports/overview/view?lang=zh")).body;
    expect(zh.title).to.equal("月度概览");
    expect(zh.spec.title).to.equal("月度概览");
    expect(zh.spec.description).to.equal("按月统计。");
    expect(zh.spec.params[0].label).to.equal("时间段");
    expect(zh.spec.nodes[0].markdown).to.equal("每月的 **Kt/V**。");
    expect(zh.spec.nodes[1].columns[0]).to.deep.equal({ column: "month", label: "月份" });
    expect(zh.spec.drills.byMonth.title).to.equal("{month:month} 的明细");
    expect(zh.spec.queries, "no SQL leaves").to.deep.equal({ monthly: {} });
    const en = (await call("GET", "/api/reports/overview/view")).body;
    expect([en.title, en.spec.nodes[1].title]).to.deep.equal(["Monthly overview", "By month"]);

    const wrong = await call("GET", "/api/reports/overview/view?lang=fr");
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error).to.equal("lang must be zh or en (the reader's language), or be left out for English.");
  });

  it("titles a drill-through in the reader's language, a month arg written {month:month} as a month", async () => {
    const drill = (lang?: string) =>
      call("POST", "/api/reports/overview/drill", {
        drill: "byMonth",
        args: { month: "2026-02-01" },
        ...(lang ? { lang } : {}),
      });
    expect((await drill("zh")).body.title).to.equal("2026年2月 的明细");
    expect((await drill()).body.title).to.equal("Detail of 2026-02-01");
  });

  it("exports the report's words in the file's language: the Word document and the About sheet", async () => {
    const docx = await downloadExport(hub.service, "overview", "docx", { lang: "zh" });
    expect(docx.status, docx.json?.error).to.equal(200);
    const xml = unzip(docx.buffer).get("word/document.xml")!.toString("utf8");
    const text = [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join("");
    expect(text).to.include("月度概览").and.include("按月份").and.include("时间段").and.include("月份");
    expect(text).not.to.include("Monthly overview");
    // A month column reads as months in the document's language (one column, one way of writing it).
    expect(text).to.include("2026年1月").and.include("1.31").and.include("1.32");
    expect(decodeURIComponent(docx.headers.get("content-disposition")!)).to.include("月度概览");

    const xlsx = await downloadExport(hub.service, "overview", "xlsx", { lang: "zh" });
    expect(xlsx.status, xlsx.json?.error).to.equal(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.buffer as never);
    const about = book.worksheets[0]!;
    expect(about.name, "the About sheet in the file's language").to.equal("报表信息");
    const cells: unknown[] = [];
    about.eachRow((row) => cells.push(...(row.values as unknown[]).slice(1)));
    expect(cells).to.include("月度概览").and.include("时间段");
    expect(zipText((await downloadExport(hub.service, "overview", "xlsx", {})).buffer)).to.include("Monthly overview");
  });
});

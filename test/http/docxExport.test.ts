import { expect } from "chai";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { unzip } from "../support/zipText.ts";
import { adequacySpec, downloadExport, hbMonthlyReports } from "../support/reports.ts";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const TITLE = "血红蛋白月报";
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The document's visible text runs, joined, so a sentence split over runs still matches. */
function textOf(documentXml: string): string {
  return [...documentXml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join("");
}

const spec = {
  ...adequacySpec,
  title: "血红蛋白 by month",
  queries: {
    ...adequacySpec.queries,
    many: { sql: "select g as n, g * 2 as doubled from generate_series(1, 60) g" },
    broken: { sql: "select no_such_column from patients" },
  },
  nodes: [
    {
      id: "intro",
      type: "text",
      markdown:
        "# 概览 Overview\n\nMonthly **Hb** in *g/L*.\n\n- first point\n- second point\n\n1. step one\n2. step two",
    },
    { id: "kpi", type: "stat", title: "Months", query: "monthly", column: "n", format: "0 results" },
    ...adequacySpec.nodes.filter((node) => node.type !== "text"),
    { id: "bars", type: "chart", chart: "bar", title: "每月检验数", query: "monthly", x: "month", y: ["n", "hgb"] },
    { id: "long", type: "table", title: "Sixty rows", query: "many", columns: ["n"] },
    { id: "oops", type: "table", title: "Broken", query: "broken" },
  ],
};

describe("docx export (POST /api/reports/:id/export/docx)", function () {
  this.timeout(120_000);
  const hub = useIngestionService();

  const exportDocx = (reportId: string, body: unknown) => downloadExport(hub.service, reportId, "docx", body);
  const open = async (reportId: string, body: unknown) => {
    const download = await exportDocx(reportId, body);
    expect(download.status, download.json?.error).to.equal(200);
    const files = unzip(download.buffer);
    const xml = files.get("word/document.xml")!.toString("utf8");
    return { download, files, xml, text: textOf(xml) };
  };
  const publish = async (reportId: string, title: string, body: unknown, mode = "dynamic") => {
    const saved = await hub.tenant.call("PUT", `/api/reports/${reportId}/draft`, {
      token: hub.tenant.authorToken,
      body: { title, spec: body },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const published = await hub.tenant.call("POST", `/api/reports/${reportId}/publish`, {
      token: hub.tenant.authorToken,
      body: { mode, note: "Q1 board" },
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(201);
    return published.body.no as string;
  };

  before(async () => {
    await hub.tenant.push("lab", hbMonthlyReports());
    await until(
      async () =>
        (await hub.service.db.query("select count(*)::int as n from read.lab_results where std_code = 'HGB'")).rows[0]
          .n === 3,
    );
    await publish("hb", TITLE, spec);
  });

  it("answers a Word file with a UTF-8 file name", async () => {
    const { download, files } = await open("hb", { version: "v1" });
    expect(download.headers.get("content-type")).to.equal(DOCX);
    const disposition = download.headers.get("content-disposition")!;
    expect(disposition).to.match(/^attachment; filename="[^"]+\.docx"; filename\*=UTF-8''/);
    expect(disposition).to.include(`filename*=UTF-8''${encodeURIComponent(TITLE)}%20v1%20`);
    expect([...files.keys()]).to.include.members(["[Content_Types].xml", "word/document.xml"]);
  });

  it("writes the title, version, note and filter values", async () => {
    const { text } = await open("hb", { params: { period: ["2026-01-01", null] } });
    expect(text).to.include(TITLE);
    expect(text).to.match(
      /Version v1 \(published \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\) · exported \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/,
    );
    expect(text).to.include("Q1 board");
    expect(text).to.include("Filters").and.include("Period2026-01-01 – …").and.include("Wards(all)");
  });

  it("turns markdown into headings, bold runs and lists", async () => {
    const { xml, text } = await open("hb", {});
    expect(xml).to.match(/<w:pStyle w:val="Heading1"\/>.*?概览 Overview/s);
    expect(xml).to.match(/<w:b\/>.*?<w:t[^>]*>Hb<\/w:t>/s);
    expect(xml).to.match(/<w:i\/>.*?<w:t[^>]*>g\/L<\/w:t>/s);
    expect(text).to.include("first point").and.include("step two");
    expect(xml.match(/<w:numPr>/g) ?? []).to.have.length(4);
  });

  it("writes stats and tables: the header, the cells, and how many rows were left out", async () => {
    const { text } = await open("hb", {});
    expect(text).to.include("Months").and.include("2 results");
    expect(text)
      .to.include("Detail")
      .and.include("monthhgbn")
      // A column of months reads as months (issue #54).
      .and.include("2026-01105")
      .and.include("2026-021201");
    expect(text).to.include("Sixty rows").and.include("10 more rows.");
    expect(text, "the column list picks columns").not.to.include("doubled");
    // By its code in the document's words, never the database's text (issue #54).
    expect(text, "a failing query shows why in its node's place").to.include(
      "Query broken: The query names a column its data source does not have; the report&apos;s author must correct it.",
    );
  });

  it("heads a table's columns with their labels and units, formats the cells, and aligns them as the spec says", async () => {
    const formatted = {
      ...spec,
      nodes: [
        {
          id: "fmt",
          type: "table",
          title: "Formatted",
          query: "many",
          columns: [
            { column: "n", label: "Number", align: "center" },
            { column: "doubled", label: "Twice", unit: "mg/L", format: "number:2" },
          ],
        },
      ],
    };
    await publish("hb-formatted", "Formatted", formatted);
    const { text, xml } = await open("hb-formatted", {});
    expect(text).to.include("NumberTwice (mg/L)").and.include("12.00").and.include("24.00");
    expect(text).to.not.include("doubled");
    expect(xml).to.include('<w:jc w:val="center"/>');
  });

  it("shades the highlighted cells and stat in their tone's colours, bold, and writes a stat's unit", async () => {
    const highlighted = {
      ...spec,
      nodes: [
        {
          id: "kpi",
          type: "stat",
          title: "Latest",
          query: "many",
          column: "n",
          unit: "patients",
          highlight: [{ below: 5, tone: "warning" }],
        },
        { id: "plain", type: "stat", title: "Plain", query: "many", column: "n" },
        {
          id: "hl",
          type: "table",
          query: "many",
          columns: ["n", "doubled"],
          highlight: [
            { column: "doubled", below: 5, tone: "danger" },
            { column: "doubled", between: [5, 6], tone: "ok" },
            { column: "n", above: 59, tone: "warning" },
          ],
        },
      ],
    };
    await publish("hb-highlight", "Highlight", highlighted);
    const { text, xml } = await open("hb-highlight", {});
    expect(text).to.include("1 patients").and.include("Plain1");
    const cells = [...xml.matchAll(/<w:tc>(.*?)<\/w:tc>/gs)].map((m) => ({
      fill: /<w:shd [^>]*w:fill="([0-9A-F]+)"/.exec(m[1]!)?.[1],
      text: textOf(m[1]!),
      bold: m[1]!.includes("<w:b/>"),
    }));
    const table = cells.slice(cells.findIndex((cell) => cell.text === "n")); // after the filter table
    const doubled = table.filter((_, i) => i % 2 === 1).slice(1, 5); // the doubled column of rows 1 to 4
    expect(doubled).to.deep.equal([
      { fill: "FFC7CE", text: "2", bold: true },
      { fill: "FFC7CE", text: "4", bold: true },
      { fill: "C6EFCE", text: "6", bold: true },
      { fill: undefined, text: "8", bold: false },
    ]);
    expect(
      table.filter((cell) => cell.fill === "FFEB9C"),
      "n above 59 is in the rows left out (50 shown)",
    ).to.deep.equal([]);
    expect(xml, "the stat's value in the warning's text colour on its fill").to.match(
      /<w:shd [^>]*w:fill="FFEB9C"[^>]*\/>.*?<w:color w:val="9C5700"\/>.*?<w:t[^>]*>1<\/w:t>/s,
    );
  });

  it("embeds each chart as a PNG image with its title as alt text", async () => {
    const { files, xml } = await open("hb", {});
    const images = [...files.keys()].filter((name) => name.startsWith("word/media/"));
    expect(images).to.have.length(2);
    for (const name of images) {
      const png = files.get(name)!;
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE), `${name} is a PNG`).to.equal(true);
      expect(png.length, `${name} holds a drawn chart`).to.be.greaterThan(5_000);
      expect(png.readUInt32BE(16), "1200 pixels wide").to.equal(1200);
    }
    expect(xml).to.include('title="Hb by month"').and.include('title="每月检验数"');
  });

  it("exports the drill layer with the drill's title and its queries as tables", async () => {
    const { text, files } = await open("hb", { drill: "byMonth", args: { month: "2026-01-01" } });
    expect(text).to.include("Patients in 2026-01-01").and.include(`Drill-through of ${TITLE}`);
    expect(text).to.include("patient_refstd_value").and.include("P001100").and.include("month2026-01-01");
    expect([...files.keys()].filter((name) => name.startsWith("word/media/"))).to.have.length(0);
    const wrongArg = await exportDocx("hb", { drill: "byMonth", args: { ward: "A" } });
    expect(wrongArg.status).to.equal(400);
    expect((await exportDocx("hb", { args: { month: "2026-01-01" } })).status, "args without drill").to.equal(400);
  });

  it("exports a snapshot's frozen data, whatever arrives later", async () => {
    const no = await publish("frozen", "Frozen", spec, "snapshot");
    await hub.tenant.push("lab", [
      labReport("M4", { reportedAt: "2026-03-15 09:00:00", items: [{ itemCode: "HGB", value: 90, unit: "g/L" }] }),
    ]);
    await until(
      async () =>
        (await hub.service.db.query("select 1 from read.lab_results where external_id = 'M4'")).rowCount === 1,
    );
    const snapshot = await open("frozen", { version: no });
    expect(snapshot.text).to.include("Version v1 (snapshot").and.include("2 results").and.not.include("2026-0390");
    const live = await open("hb", {});
    expect(live.text).to.include("2026-03901");
  });

  it("writes its own words in the page's language (lang zh), the report's words as written", async () => {
    const { text, files } = await open("hb", { params: { period: ["2026-01-01", null] }, lang: "zh" });
    expect(text).to.match(
      /版本 v1（发布于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}）· 导出于 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/,
    );
    expect(text).to.include("筛选条件").and.include("Period2026-01-01 – …").and.include("Wards（全部）");
    expect(text)
      .to.include("另有 10 行。")
      .and.include("查询 broken：查询引用了数据源中不存在的列，请报表作者在编辑器中修正该查询。")
      .and.not.include("no_such_column");
    expect(text).not.to.include("Filters").and.not.to.include("more rows");
    expect(files.get("word/styles.xml")!.toString("utf8"), "Word proofs it as Chinese").to.match(
      /<w:lang w:val="zh-CN"/,
    );
    expect((await exportDocx("hb", { lang: "de" })).status).to.equal(400);
  });

  it("leaves a text marked print: false out of the document", async () => {
    await publish("hb-screen", "Screen hints", {
      ...spec,
      nodes: [
        { id: "hint", type: "text", markdown: "Click a month in the chart to list its patients.", print: false },
        ...spec.nodes,
      ],
    });
    const { text } = await open("hb-screen", {});
    expect(text).to.include("Overview").and.not.include("Click a month");
  });

  it("refuses a report whose spec switched docx off, and answers 404 for an unknown report", async () => {
    await publish("no-docx", "No docx", { ...spec, export: { docx: false } });
    const off = await exportDocx("no-docx", {});
    expect(off.status).to.equal(400);
    expect(off.json.error).to.equal("The docx export is switched off for this report.");
    expect((await exportDocx("nope", {})).status).to.equal(404);
    expect((await exportDocx("hb", { version: "v9" })).status).to.equal(404);
    expect((await exportDocx("hb", { params: { ward: "A" } })).status, "an undeclared param").to.equal(400);
  });
});

import { PassThrough, Writable } from "node:stream";
import { expect } from "chai";
import ExcelJS from "exceljs";
import { textCell } from "../../src/reports/export/xlsxCells.ts";
import { sheetNames, writeXlsx, type SheetEvent } from "../../src/reports/export/xlsxExport.ts";
import { labReport, useIngestionService } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { adequacySpec, downloadExport, hbMonthlyReports, tableReportSpec, type Download } from "../support/reports.ts";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const TITLE = "血红蛋白月报";
const INJECTION = "=cmd|' /C calc'!A0";

/** A sheet's rows as arrays of cell values (column 1 first); exceljs's row.values is 1-based. */
function rowsOf(sheet: ExcelJS.Worksheet): unknown[][] {
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row, number) => {
    rows[number - 1] = (row.values as unknown[]).slice(1);
  });
  return rows;
}

/** The first sheet: "About", or its name in the file's language. */
function aboutValue(book: ExcelJS.Workbook, label: string): unknown {
  const rows = rowsOf(book.worksheets[0]!);
  return rows.find((row) => row?.[0] === label)?.[1];
}

describe("xlsx export (POST /api/reports/:id/export/xlsx)", function () {
  this.timeout(120_000);
  const hub = useIngestionService();

  const exportXlsx = (reportId: string, body: unknown): Promise<Download> =>
    downloadExport(hub.service, reportId, "xlsx", body);
  const load = async (download: Download) => {
    expect(download.status, download.json?.error).to.equal(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(download.buffer as never);
    return book;
  };
  const publish = async (reportId: string, title: string, spec: unknown, mode = "dynamic") => {
    const saved = await hub.tenant.call("PUT", `/api/reports/${reportId}/draft`, {
      token: hub.tenant.authorToken,
      body: { title, spec },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const published = await hub.tenant.call("POST", `/api/reports/${reportId}/publish`, {
      token: hub.tenant.authorToken,
      body: { mode },
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(201);
    const no = published.body.no as string;
    await until(
      async () => (await hub.tenant.call("GET", `/api/reports/${reportId}/view?version=${no}`)).status === 200,
    );
    return no;
  };
  const tableSpec = (queries: Record<string, string>) => tableReportSpec("t", queries);

  before(async () => {
    await hub.tenant.push("lab", [
      ...hbMonthlyReports(),
      labReport("INJ", {
        reportedAt: "2026-03-01 11:00:00",
        items: [{ itemCode: "X-INJ", itemName: "注入", value: INJECTION, resultType: "QUALITATIVE" }],
      }),
    ]);
    await until(
      async () =>
        (
          await hub.service.db.query(
            "select count(*)::int as n from read.lab_results where std_code = 'HGB' or item_code = 'X-INJ'",
          )
        ).rows[0].n === 4,
    );
    await publish("hb", TITLE, adequacySpec);
  });

  it("streams a workbook: content type, a UTF-8 file name, About first, then one sheet per query", async () => {
    const download = await exportXlsx("hb", { version: "v1" });
    expect(download.headers.get("content-type")).to.equal(XLSX);
    const disposition = download.headers.get("content-disposition")!;
    expect(disposition).to.match(/^attachment; filename="[^"]+\.xlsx"; filename\*=UTF-8''/);
    expect(disposition).to.include(`filename*=UTF-8''${encodeURIComponent(TITLE)}%20v1%20`);
    const book = await load(download);
    expect(book.worksheets.map((sheet) => sheet.name)).to.deep.equal(["About", "monthly", "wardList"]);
    expect(rowsOf(book.getWorksheet("wardList")!)).to.deep.equal([["value"], ["A"]]);
  });

  it("writes the header in row 1 and typed cells from row 2: dates as dates, numbers as numbers", async () => {
    const book = await load(await exportXlsx("hb", {}));
    const monthly = book.getWorksheet("monthly")!;
    expect(rowsOf(monthly)).to.deep.equal([
      ["month", "hgb", "n"],
      [new Date(Date.UTC(2026, 0, 1)), 105, 2],
      [new Date(Date.UTC(2026, 1, 1)), 120, 1],
    ]);
    const month = monthly.getCell("A2");
    expect(month.type).to.equal(ExcelJS.ValueType.Date);
    expect(month.numFmt).to.equal("yyyy-mm-dd");
    expect(monthly.getCell("B2").type).to.equal(ExcelJS.ValueType.Number);
    expect(monthly.getCell("A1").font?.bold).to.equal(true);
    expect(monthly.views[0]).to.include({ state: "frozen", ySplit: 1 });
  });

  it("gives a column the number format of its table column in the spec (the first table to format it)", async () => {
    const spec = {
      ...tableSpec({ rates: "select g as n, g / 8.0 as share, g * 1000.5 as amount from generate_series(1, 3) g" }),
      nodes: [
        {
          id: "rates",
          type: "table",
          query: "rates",
          columns: [
            "n",
            { column: "share", label: "Share", format: "percent:1" },
            { column: "amount", format: "number:2" },
          ],
        },
        { id: "again", type: "table", query: "rates", columns: [{ column: "share", format: "number:0" }] },
      ],
    };
    await publish("formats", "Formats", spec);
    const book = await load(await exportXlsx("formats", {}));
    const sheet = book.worksheets[1]!;
    expect(sheet.getCell("A1").value, "the header keeps the column's name").to.equal("n");
    expect(sheet.getCell("B2").value).to.equal(0.125);
    expect(sheet.getCell("B2").numFmt).to.equal("0.0%");
    expect(sheet.getCell("C2").numFmt).to.equal("#,##0.00");
    expect(sheet.getCell("A2").numFmt ?? "General", "a column without a format keeps its own").to.not.match(/%|#,##0/);
  });

  it("highlights a column's cells with conditional formatting from its table's rules (the first table to highlight it)", async () => {
    const spec = {
      ...tableSpec({
        ktv: "select g as n, case when g = 3 then null else 0.9 + g / 10.0 end as ktv from generate_series(1, 6) g order by g",
      }),
      nodes: [
        {
          id: "ktv",
          type: "table",
          query: "ktv",
          highlight: [
            { column: "ktv", below: 1.2, tone: "danger" },
            { column: "ktv", between: [1.2, 1.4], tone: "warning" },
          ],
        },
        {
          id: "again",
          type: "table",
          query: "ktv",
          highlight: [
            { column: "ktv", above: 0, tone: "ok" },
            { column: "n", above: 5, tone: "ok" },
          ],
        },
      ],
    };
    await publish("highlights", "Highlights", spec);
    const download = await exportXlsx("highlights", {});
    const book = await load(download);
    const sheet = book.worksheets[1]! as ExcelJS.Worksheet & {
      conditionalFormattings: ExcelJS.ConditionalFormattingOptions[];
    };
    const formattings = sheet.conditionalFormattings.map((cf) => ({
      ref: cf.ref,
      rules: cf.rules.map((rule) => ({
        formula: (rule as { formulae: string[] }).formulae[0],
        fill: (rule.style?.fill as ExcelJS.FillPattern | undefined)?.bgColor?.argb,
        bold: rule.style?.font?.bold,
      })),
    }));
    expect(formattings).to.deep.equal([
      { ref: "A2:A7", rules: [{ formula: "AND(ISNUMBER(A2),A2>5)", fill: "FFC6EFCE", bold: true }] },
      {
        ref: "B2:B7",
        rules: [
          { formula: "AND(ISNUMBER(B2),B2<1.2)", fill: "FFFFC7CE", bold: true },
          { formula: "AND(ISNUMBER(B2),B2>=1.2,B2<=1.4)", fill: "FFFFEB9C", bold: true },
        ],
      },
    ]);
    expect(sheet.getCell("B2").value, "the cells keep their values").to.equal(1);
  });

  it("lists report, version and the filter values used on About", async () => {
    const book = await load(await exportXlsx("hb", { params: { period: ["2026-02-01", null] } }));
    expect(aboutValue(book, "Report")).to.equal(TITLE);
    expect(aboutValue(book, "Version")).to.equal("v1");
    expect(aboutValue(book, "Period")).to.equal("2026-02-01 – …");
    expect(aboutValue(book, "Wards")).to.equal("(all)");
    expect(rowsOf(book.getWorksheet("monthly")!).slice(1)).to.deep.equal([[new Date(Date.UTC(2026, 1, 1)), 120, 1]]);
    const all = await load(await exportXlsx("hb", { params: { wards: ["A", "B"] } }));
    expect(aboutValue(all, "Period")).to.equal("2026-01-01 – 2026-12-31");
    expect(aboutValue(all, "Wards")).to.equal("A, B");
    const none = await load(await exportXlsx("hb", { params: { period: ["2030-01-01", null] } }));
    expect(rowsOf(none.getWorksheet("monthly")!), "an empty result keeps its header").to.deep.equal([
      ["month", "hgb", "n"],
    ]);
  });

  it("writes the About sheet's own words in the page's language (lang zh), the report's words as written", async () => {
    const book = await load(await exportXlsx("hb", { params: { period: ["2026-02-01", null] }, lang: "zh" }));
    // Named in the file's language (issue #54); a file asked for without lang keeps the contract's "About".
    expect(book.worksheets.map((sheet) => sheet.name)).to.deep.equal(["报表信息", "monthly", "wardList"]);
    expect(aboutValue(book, "报表")).to.equal(TITLE);
    expect(aboutValue(book, "版本")).to.equal("v1");
    expect(aboutValue(book, "模式")).to.equal("实时");
    expect(aboutValue(book, "Period"), "the author's label as written").to.equal("2026-02-01 – …");
    expect(aboutValue(book, "Wards")).to.equal("（全部）");
    expect(rowsOf(book.worksheets[0]!).flat())
      .to.include.members(["筛选条件", "工作表", "查询", "行数"])
      .and.not.include("Report");
    // Its two times written one way, as the rows write date-times (it read 2026-…T…:… beside 2026-… …:…).
    const times = [aboutValue(book, "发布时间"), aboutValue(book, "导出时间")];
    for (const time of times) expect(time).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const english = await load(await exportXlsx("hb", { lang: "en" }));
    expect(english.worksheets[0]!.name).to.equal("About");
    expect(aboutValue(english, "Report")).to.equal(TITLE);
    expect(aboutValue(english, "Published at")).to.equal(times[0]);
  });

  it("refuses a language it does not write, saying which it does", async () => {
    const refused = await exportXlsx("hb", { lang: "fr" });
    expect(refused.status).to.equal(400);
    expect(refused.json.error).to.equal(
      "lang must be en or zh (the language of the file's own words), or be left out for English.",
    );
  });

  it("exports a drill layer: its queries, its title in the file name and on About", async () => {
    const download = await exportXlsx("hb", { drill: "byMonth", args: { month: "2026-01-01" } });
    expect(download.headers.get("content-disposition")).to.include(
      `filename*=UTF-8''${encodeURIComponent("Patients in 2026-01-01")}%20v1%20`,
    );
    const book = await load(download);
    expect(book.worksheets.map((sheet) => sheet.name)).to.deep.equal(["About", "patients"]);
    expect(rowsOf(book.getWorksheet("patients")!)).to.deep.equal([
      ["patient_ref", "std_value"],
      ["P001", 100],
      ["P001", 110],
    ]);
    expect(aboutValue(book, "Drill-through")).to.equal("Patients in 2026-01-01");
    expect(aboutValue(book, "month")).to.equal("2026-01-01");
    expect((await exportXlsx("hb", { drill: "byYear", args: {} })).status).to.equal(400);
    expect((await exportXlsx("hb", { args: { month: "2026-01-01" } })).status, "args without drill").to.equal(400);
  });

  it("answers 400 when the spec switched the xlsx export off, 400 for bad params, 404 for an unknown report", async () => {
    await publish("no-xlsx", "No xlsx", { ...adequacySpec, export: { xlsx: false } });
    const off = await exportXlsx("no-xlsx", {});
    expect(off.status).to.equal(400);
    expect(off.json).to.deep.equal({ error: "The xlsx export is switched off for this report." });
    expect((await exportXlsx("hb", { params: { ward: ["A"] } })).status).to.equal(400);
    const unknown = await exportXlsx("nope", {});
    expect(unknown.status).to.equal(404);
    expect(unknown.json.error).to.be.a("string");
  });

  it("neutralises text that a spreadsheet could take for a formula, and writes date-times as wall-clock dates", async () => {
    await publish(
      "inj",
      "Injection",
      tableSpec({
        items: "select item_code, value_text, reported_at from lab_results where item_code = 'X-INJ' order by 1",
        broken: "select 1 / (select count(*) - count(*) from lab_results) as x",
      }),
    );
    const book = await load(await exportXlsx("inj", {}));
    const items = book.getWorksheet("items")!;
    const text = items.getCell("B2");
    expect(text.type).to.equal(ExcelJS.ValueType.String);
    expect(text.value).to.equal(`'${INJECTION}`);
    const reported = items.getCell("C2");
    expect(reported.value).to.deep.equal(new Date(Date.UTC(2026, 2, 1, 11, 0, 0)));
    expect(reported.numFmt).to.equal("yyyy-mm-dd hh:mm:ss");
    // Said by its code in the file's words, never the database's text (issue #54).
    const broken = rowsOf(book.getWorksheet("broken")!);
    expect(broken.flat().join(" ")).to.equal(
      "The query divided by zero; the report's author must correct it (for example with NULLIF).",
    );
    expect(JSON.stringify(rowsOf(book.getWorksheet("About")!)))
      .to.include("The query divided by zero")
      .and.not.include("division by zero");
    const zh = await load(await exportXlsx("inj", { lang: "zh" }));
    expect(rowsOf(zh.getWorksheet("broken")!).flat().join(" ")).to.equal(
      "查询在计算时出现除以零，请报表作者修正该查询（例如用 NULLIF 避免除数为零）。",
    );
  });

  it("exports the full result up to 100000 rows per sheet, with a visible note when cut", async () => {
    await publish("big", "Big", tableSpec({ big: "select g from generate_series(1, 100010) g" }));
    const book = await load(await exportXlsx("big", {}));
    const rows = rowsOf(book.getWorksheet("big")!);
    expect(rows[0]).to.deep.equal(["g"]);
    expect(rows[1]).to.deep.equal([1]);
    expect(rows[100_000]).to.deep.equal([100_000]);
    const data = rows.slice(1).filter((row) => typeof row?.[0] === "number");
    expect(data).to.have.length(100_000);
    const note = "Only the first 100000 rows are exported; narrow the filters to see the rest.";
    expect(rows.slice(100_001).flat().filter(Boolean)).to.deep.equal([note]);
    const summary = rowsOf(book.getWorksheet("About")!).find((row) => row?.[0] === "big");
    expect(summary).to.deep.equal(["big", "big", 100_000, note]);
  });

  it("stops the query when the client goes away: no connection is left behind", async () => {
    // About 12 s of work in PostgreSQL for the whole result; the client leaves after the first bytes.
    await publish(
      "slow",
      "Slow",
      tableSpec({ slow: "select g, md5(repeat('x', 65536) || g) as h from generate_series(1, 100010) g" }),
    );
    const busy = () =>
      hub.service.db
        // The report role's activity is not tracked (db/reportRunner.ts): a connection holding a snapshot is busy.
        .query(
          "select count(*)::int as n from pg_stat_activity where application_name = 'dialysis-hub-reports' and backend_xmin is not null",
        )
        .then((result) => result.rows[0].n as number);
    const stop = new AbortController();
    const response = await fetch(`${hub.service.url}/api/reports/slow/export/xlsx`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "h1" },
      body: "{}",
      signal: stop.signal,
    });
    expect(response.status).to.equal(200);
    const reader = response.body!.getReader();
    await reader.read();
    await until(async () => (await busy()) > 0, 5000);
    const left = performance.now();
    stop.abort();
    await reader.cancel().catch(() => {});
    await until(async () => (await busy()) === 0, 10_000);
    expect(performance.now() - left, "the transaction ended soon after the client left").to.be.below(3000);
  });

  it("exports a snapshot's frozen numbers, whatever the data source holds now", async () => {
    const no = await publish("hb", TITLE, adequacySpec, "snapshot");
    const frozen = (await hub.tenant.call("POST", "/api/reports/hb/data", { body: { version: no } })).body.queries
      .monthly;
    await hub.tenant.push("lab", [
      labReport("M4", { reportedAt: "2026-02-15 09:00:00", items: [{ itemCode: "HGB", value: 60, unit: "g/L" }] }),
    ]);
    await until(
      async () =>
        (await hub.service.db.query("select 1 from read.lab_results where external_id = 'M4'")).rowCount === 1,
    );
    const book = await load(await exportXlsx("hb", { version: no }));
    const rows = rowsOf(book.getWorksheet("monthly")!);
    expect(rows[0]).to.deep.equal(frozen.columns);
    expect(
      rows.slice(1).map(([month, ...rest]) => [(month as Date).toISOString().slice(0, 10), ...rest]),
    ).to.deep.equal(frozen.rows);
    expect(aboutValue(book, "Mode")).to.equal("snapshot");
    const live = await load(await exportXlsx("hb", { version: "v1" }));
    expect(rowsOf(live.getWorksheet("monthly")!)[2]).to.deep.equal([new Date(Date.UTC(2026, 1, 1)), 90, 2]);
  });

  describe("pieces", () => {
    it("names sheets without forbidden characters, within 31 characters, uniquely", () => {
      const long = "a".repeat(40);
      expect(sheetNames(["About", long, long, "x/y:z", "history"])).to.deep.equal([
        "About (2)",
        "a".repeat(31),
        `${"a".repeat(27)} (2)`,
        "x_y_z",
        "history (2)",
      ]);
      expect(sheetNames(["报表信息", "About"], "报表信息"), "the About sheet's name in its language").to.deep.equal([
        "报表信息 (2)",
        "About",
      ]);
    });

    it("prefixes formula-like text with a quote, leaving signs and signed numbers alone", () => {
      expect(textCell("=1+1")).to.equal("'=1+1");
      expect(textCell("@SUM(A1)")).to.equal("'@SUM(A1)");
      expect(textCell("-2+3+cmd|' /C calc'!A0")).to.equal("'-2+3+cmd|' /C calc'!A0");
      expect(textCell("\t=1")).to.equal("'\t=1");
      expect(textCell("+++")).to.equal("+++");
      expect(textCell("-")).to.equal("-");
      expect(textCell("-1.5")).to.equal("-1.5");
      expect(textCell("阴性")).to.equal("阴性");
    });

    it("writes rows that read back as typed cells: escaped text, numbers, booleans, dates with their format, gaps, rows too big for one buffer", async () => {
      const long = "血".repeat(32_767); // 3 bytes each in UTF-8: five of them are more than the 1 MB a batch is encoded in
      async function* rows(): AsyncGenerator<SheetEvent> {
        yield {
          kind: "columns",
          columns: [
            { name: "text", type: "string" },
            { name: "n", type: "number" },
            { name: "b", type: "boolean" },
            { name: "d", type: "date" },
            { name: "t", type: "datetime" },
          ],
        };
        yield {
          kind: "rows",
          rows: [
            [
              `a<b>&'"\x01c\td\ne`,
              0,
              true,
              new Date(Date.UTC(1900, 2, 1)),
              new Date(Date.UTC(9999, 11, 31, 23, 59, 59)),
            ],
            ["  血红蛋白 😀 ", 1e21, false, null, null],
            [null, -1.5e-7, null, "BC date", null],
            [null, null, null, null, null],
            ["NaN stays a word", Number.NaN, null, null, null],
          ],
        };
        yield {
          kind: "rows",
          rows: [
            [long, long, long, long, long],
            ["after", 4, false, null, null],
          ],
        };
        yield { kind: "end", note: "cut" };
      }
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on("data", (chunk: Buffer) => chunks.push(chunk));
      const about = {
        report: "r",
        version: "v1",
        mode: "dynamic",
        publishedAt: "",
        exportedAt: "",
        datasource: "clinical",
        filters: [],
      };
      await writeXlsx(out, about, [{ query: "q", events: rows() }], new AbortController().signal);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(Buffer.concat(chunks) as never);
      const sheet = book.getWorksheet("q")!;
      expect(rowsOf(sheet)).to.deep.equal([
        ["text", "n", "b", "d", "t"],
        ["a<b>&'\"c\td\ne", 0, true, new Date(Date.UTC(1900, 2, 1)), new Date(Date.UTC(9999, 11, 31, 23, 59, 59))],
        ["  血红蛋白 😀 ", 1e21, false],
        [undefined, -1.5e-7, undefined, "BC date"],
        [],
        ["NaN stays a word", "NaN"],
        [long, long, long, long, long],
        ["after", 4, false],
        [],
        ["cut"],
      ]);
      expect(sheet.getCell("A2").type).to.equal(ExcelJS.ValueType.String);
      expect(sheet.getCell("C2").type).to.equal(ExcelJS.ValueType.Boolean);
      expect(sheet.getCell("D2").numFmt).to.equal("yyyy-mm-dd");
      expect(sheet.getCell("E2").numFmt).to.equal("yyyy-mm-dd hh:mm:ss");
      expect(sheet.getCell("D4").numFmt, "text in a date column keeps the column's format").to.equal("yyyy-mm-dd");
      expect(sheet.getCell("A10").font?.italic, "the note after the rows, in exceljs's own row").to.equal(true);
    });

    it("rejects and stops reading its sources when writing fails half-way", async () => {
      let closed = false;
      async function* failing(): AsyncGenerator<SheetEvent> {
        try {
          yield { kind: "columns", columns: [{ name: "x", type: "integer" }] };
          yield { kind: "rows", rows: [[1], [2]] };
          throw new Error("source broke");
        } finally {
          closed = true;
        }
      }
      const out = new PassThrough();
      out.resume();
      const about = {
        report: "r",
        version: "v1",
        mode: "dynamic",
        publishedAt: "",
        exportedAt: "",
        datasource: "clinical",
        filters: [],
      };
      let failure: unknown = null;
      await writeXlsx(out, about, [{ query: "q", events: failing() }], new AbortController().signal).catch(
        (error) => (failure = error),
      );
      expect((failure as Error)?.message).to.equal("source broke");
      expect(closed).to.equal(true);
    });

    it("stops when aborted", async () => {
      let closed = false;
      async function* endless(): AsyncGenerator<SheetEvent> {
        try {
          yield { kind: "columns", columns: [{ name: "x", type: "integer" }] };
          for (;;) yield { kind: "rows", rows: [[1]] };
        } finally {
          closed = true;
        }
      }
      const stop = new AbortController();
      const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
      setTimeout(() => stop.abort(), 50);
      const about = {
        report: "r",
        version: "v1",
        mode: "dynamic",
        publishedAt: "",
        exportedAt: "",
        datasource: "clinical",
        filters: [],
      };
      const failure = await writeXlsx(sink, about, [{ query: "q", events: endless() }], stop.signal).then(
        () => null,
        (error: Error) => error,
      );
      expect(failure?.message).to.match(/stopped/);
      expect(closed).to.equal(true);
    });
  });
});

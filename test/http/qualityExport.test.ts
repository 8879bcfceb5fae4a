import { expect } from "chai";
import ExcelJS from "exceljs";
import { localDateTime } from "../../db/localDateTime.ts";
import { ADMIN } from "../support/http.ts";
import { labReport, LI_SI, monthsAgo, useIngestionService, ZHANG_SAN } from "../support/ingestion.ts";
import { until } from "../support/service.ts";
import { projectionsCaughtUp } from "../support/storedReports.ts";
import { unzip } from "../support/zipText.ts";

/*
 * Contract G.2 over HTTP: a month's quality figures exported as a workbook or a Word document, in
 * Chinese or English, agreeing with GET /api/quality/months/{yyyy-MM}: an open month counted now,
 * a closed month's frozen figures (with when and by whom), each patient's place and last value,
 * and the 12 months up to it; of a ward for a caller limited to it; an access record.
 */

const monthOf = (date: Date) => localDateTime(date).slice(0, 7);
const at = (months: number, day: number, hour = 7) =>
  localDateTime(new Date(monthsAgo(months, day).setHours(hour, 0, 0, 0)));
const qualitative = (itemCode: string) => ({ itemCode, value: "阴性", resultType: "QUALITATIVE" });
const WANG_WU = { name: "王五", idCard: "110105200002290013" };

function collected(externalId: string, patient: object, months: number, day: number, items: object[]) {
  return labReport(externalId, { patient, collectedAt: at(months, day), reportedAt: at(months, day, 9), items });
}

/** Closed for the whole tenant in `before`; 李四's Hb of the month is corrected after the close. */
const CLOSED = monthOf(monthsAgo(2));
/** Never closed. */
const OPEN = monthOf(monthsAgo(1));

function reports() {
  return [
    collected("QE-1", ZHANG_SAN, 2, 5, [
      { itemCode: "HGB", value: 105, unit: "g/L" },
      { itemCode: "ALB", value: 38, unit: "g/L" },
      { itemCode: "P", value: 1.5, unit: "mmol/L" },
      { itemCode: "KTV", value: 1.3, unit: "" },
      { itemCode: "IPTH", value: 300, unit: "pg/mL" },
      qualitative("HBSAG"),
      qualitative("HCVAB"),
      qualitative("TPAB"),
      qualitative("HIV"),
    ]),
    collected("QE-2", ZHANG_SAN, 2, 20, [{ itemCode: "HGB", value: 120, unit: "g/L" }]),
    collected("QE-3", LI_SI, 2, 10, [
      { itemCode: "HGB", value: 100, unit: "g/L" },
      { itemCode: "ALB", value: 30, unit: "g/L" },
      { itemCode: "P", value: 2.0, unit: "mmol/L" },
    ]),
    collected("QE-4", ZHANG_SAN, 1, 8, [
      { itemCode: "HGB", value: 125, unit: "g/L" },
      { itemCode: "KTV", value: 1.1, unit: "" },
    ]),
    collected("QE-5", LI_SI, 1, 9, [
      { itemCode: "HGB", value: 140, unit: "g/L" },
      { itemCode: "ALB", value: 36, unit: "g/L" },
    ]),
    collected("QE-6", WANG_WU, 1, 12, [{ itemCode: "HGB", value: 112, unit: "g/L" }]),
    collected("QE-7", LI_SI, 3, 15, [{ itemCode: "HGB", value: 118, unit: "g/L" }]),
  ];
}

interface Figures {
  code: string;
  version: number;
  numerator: number;
  denominator: number;
  rate: number | null;
  patients: { met: string[]; notMet: string[]; untested: string[] };
}
interface MonthAnswer {
  month: string;
  ward: string | null;
  state: "open" | "closed";
  closedAt?: string;
  closedBy?: string;
  indicators: Figures[];
}
interface Indicator {
  code: string;
  name: string;
  nameEn: string;
  kind: string;
  source: string;
  sourceZh?: string;
}

type Row = Array<string | number | null>;

/** A sheet's rows from row 1, each as wide as its header, an empty cell null. */
function rowsOf(sheet: ExcelJS.Worksheet): Row[] {
  const rows: Row[] = [];
  sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1) as Row));
  const width = rows[0]?.length ?? 0;
  return rows.map((row) => Array.from({ length: Math.max(width, row.length) }, (_, i) => row[i] ?? null));
}

async function workbookOf(buffer: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(buffer as unknown as ArrayBuffer);
  return workbook;
}

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const textOfXml = (xml: string) =>
  [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)]
    .map((match) => match[1]!.replace(/&(\w+);/g, (_, name: string) => XML_ENTITIES[name] ?? `&${name};`))
    .join("");

/** The document's tables, each as rows of cells' text. */
function tablesOf(xml: string): string[][][] {
  return [...xml.matchAll(/<w:tbl>([\s\S]*?)<\/w:tbl>/g)].map((table) =>
    [...table[1]!.matchAll(/<w:tr[ >][\s\S]*?<\/w:tr>/g)].map((row) =>
      [...row[0].matchAll(/<w:tc>([\s\S]*?)<\/w:tc>/g)].map((cell) => textOfXml(cell[1]!)),
    ),
  );
}

const percent = (rate: number | null) => (rate === null ? "" : `${Number((rate * 100).toFixed(2))}%`);
const placeOf = (figures: Figures, patientRef: string) =>
  (["met", "notMet", "untested"] as const).find((place) => figures.patients[place].includes(patientRef)) ?? null;
const PLACES = {
  zh: { met: "达标", notMet: "未达标", untested: "未检测" },
  en: { met: "met", notMet: "not met", untested: "untested" },
} as const;

/** English a Chinese file must not hold: the English file's own words, and the little words of any sentence. */
const ENGLISH = [
  /\b(?:the|of|and|at|by|from|to|within|not|is|last|value|month|ward|patients?|indicators?|state|rate|band|source|version|open|closed|met|untested|about|trend|exported|notes?)\b/i,
];

describe("a month's quality figures exported (POST /api/quality/months/{yyyy-MM}/export)", function () {
  this.timeout(120_000);
  const hub = useIngestionService();
  let indicators: Indicator[];

  const author = async (roles: string[], wards?: string[]) => {
    const made = await hub.tenant.call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: `Dr export ${roles.join("+")} ${wards?.join("+") ?? "all"}`, tenant: "h1", roles, wards },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  };
  const month = async (path: string, token = hub.tenant.authorToken): Promise<MonthAnswer> => {
    const answer = await hub.tenant.call("GET", `/api/quality/months/${path}`, { token });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as MonthAnswer;
  };
  const exported = async (monthPath: string, body: unknown, token = hub.tenant.authorToken) => {
    const response = await fetch(`${hub.service.url}/api/quality/months/${monthPath}/export`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "h1", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    const buffer = Buffer.from(await response.arrayBuffer());
    const json = (response.headers.get("content-type") ?? "").includes("json")
      ? (JSON.parse(buffer.toString("utf8")) as { error: string; code?: string })
      : null;
    return { status: response.status, headers: response.headers, buffer, json };
  };
  const nameOf = (code: string, lang: "zh" | "en") => {
    const indicator = indicators.find((entry) => entry.code === code)!;
    return lang === "zh" ? indicator.name : indicator.nameEn;
  };
  const patientCodes = () => indicators.filter((entry) => entry.kind !== "timeliness").map((entry) => entry.code);

  before(async () => {
    for (const [ref, patient, ward] of [
      ["P002", LI_SI, "B"],
      ["P003", WANG_WU, "A"],
    ] as const) {
      const saved = await hub.tenant.call("PUT", `/api/patients/${ref}`, {
        token: hub.tenant.authorToken,
        body: { ...patient, ward },
      });
      expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    }
    expect((await hub.tenant.push("lab", reports())).status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
    const closed = await hub.tenant.call("POST", `/api/quality/months/${CLOSED}/close`, { token: ADMIN, body: {} });
    expect(closed.status, JSON.stringify(closed.body)).to.equal(201);
    // After the close: 李四's Hb of the closed month is corrected from 100 to 115, into the band.
    const corrected = await hub.tenant.push("lab", [
      {
        ...collected("QE-3", LI_SI, 2, 10, [
          { itemCode: "HGB", value: 115, unit: "g/L" },
          { itemCode: "ALB", value: 30, unit: "g/L" },
          { itemCode: "P", value: 2.0, unit: "mmol/L" },
        ]),
        status: "CORRECTED",
      },
    ]);
    expect(corrected.status).to.equal(200);
    await projectionsCaughtUp(hub.service.url!);
    indicators = (await hub.tenant.call("GET", "/api/quality/indicators", { token: hub.tenant.authorToken }))
      .body as Indicator[];
  });

  /** The workbook's indicator, patient and trend sheets against the month's answer and each trend month's. */
  async function expectWorkbookAgrees(
    workbook: ExcelJS.Workbook,
    answer: MonthAnswer,
    lang: "zh" | "en",
    token?: string,
  ) {
    const [, indicatorSheet, patientSheet, trendSheet] = workbook.worksheets;
    const indicatorRows = rowsOf(indicatorSheet!);
    expect(indicatorRows.slice(1).map((row) => row.slice(0, 5).concat(row[6]!))).to.deep.equal(
      answer.indicators.map((figures) => [
        figures.code,
        nameOf(figures.code, lang),
        figures.numerator,
        figures.denominator,
        figures.rate,
        figures.version,
      ]),
    );
    expect(indicatorSheet!.getRow(2).getCell(5).numFmt, "a rate reads as a percentage").to.equal("0.00%");

    const patientRows = rowsOf(patientSheet!);
    const refs = [...new Set(answer.indicators.flatMap((figures) => Object.values(figures.patients).flat()))].sort();
    expect(patientRows.slice(1).map((row) => row[0])).to.deep.equal(refs);
    const codes = patientCodes();
    expect(patientRows[0]!.filter((_, i) => i >= 2 && i % 2 === 0)).to.deep.equal(
      codes.map((code) => nameOf(code, lang)),
    );
    for (const row of patientRows.slice(1))
      codes.forEach((code, i) => {
        const place = placeOf(
          answer.indicators.find((figures) => figures.code === code)!,
          String(row[0]),
        );
        expect(row[2 + 2 * i], `${row[0]} ${code}`).to.equal(place === null ? null : PLACES[lang][place]);
      });

    const trendRows = rowsOf(trendSheet!).slice(1);
    expect(trendRows).to.have.length(12);
    for (const [index, row] of trendRows.entries()) {
      const trendMonth = monthOf(monthsAgo(11 - index + (answer.month === CLOSED ? 2 : 1)));
      const counted = await month(`${trendMonth}${answer.ward === null ? "" : `?ward=${answer.ward}`}`, token);
      expect(row.slice(2), trendMonth).to.deep.equal(counted.indicators.map((figures) => figures.rate));
      expect(row[1], trendMonth).to.equal(
        lang === "zh" ? { open: "未关闭", closed: "已关闭" }[counted.state] : counted.state,
      );
    }
    return { patientRows, codes };
  }

  it("writes an open month as a Chinese workbook that agrees with the month's answer, with no English in it", async () => {
    const answer = await month(OPEN);
    const file = await exported(OPEN, { format: "xlsx", lang: "zh" });
    expect(file.status, file.json?.error).to.equal(200);
    expect(file.headers.get("content-type")).to.equal(
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    );
    expect(decodeURIComponent(file.headers.get("content-disposition")!)).to.match(
      /^attachment; .*质量指标 \d{4}年\d{1,2}月/,
    );
    const workbook = await workbookOf(file.buffer);
    expect(workbook.worksheets.map((sheet) => sheet.name)).to.deep.equal(["说明", "指标", "患者", "趋势"]);
    const about = Object.fromEntries(rowsOf(workbook.worksheets[0]!).map((row) => [row[0], row[1]]));
    expect(about).to.deep.include({ 月份: `${OPEN.slice(0, 4)}年${Number(OPEN.slice(5))}月`, 病区: "全部病区" });
    expect(about.状态).to.match(/^未关闭/);
    expect(about.导出时间).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const hgb = rowsOf(workbook.worksheets[1]!).find((row) => row[0] === "HGB_TARGET")!;
    expect([hgb[5], hgb[7]]).to.deep.equal(["110–130 g/L", indicators.find((i) => i.code === "HGB_TARGET")!.sourceZh]);

    const { patientRows, codes } = await expectWorkbookAgrees(workbook, answer, "zh");
    const value = (ref: string, code: string) =>
      patientRows.find((row) => row[0] === ref)![3 + 2 * codes.indexOf(code)];
    // 张三: his Hb 125 and a Kt/V of 1.1 below the band; 李四's Hb 140 above it; 王五 measured only Hb.
    expect([value("P001", "HGB_TARGET"), value("P001", "KTV_TARGET"), value("P002", "HGB_TARGET")]).to.deep.equal([
      125, 1.1, 140,
    ]);
    expect(value("P003", "ALB_TARGET"), "an untested patient has no value").to.equal(null);

    for (const sheet of workbook.worksheets)
      for (const row of rowsOf(sheet))
        for (const [column, cell] of row.entries()) {
          // Codes are the dictionary's identifiers, in every language.
          if (typeof cell !== "string" || (sheet.name === "指标" && column === 0)) continue;
          for (const english of ENGLISH) expect(cell, `${sheet.name}: ${cell}`).not.to.match(english);
        }
  });

  it("writes the closed month as an English Word document: its frozen figures, when and by whom it was closed, and the trend charts", async () => {
    const answer = await month(CLOSED);
    expect(answer.state).to.equal("closed");
    const file = await exported(CLOSED, { format: "docx", lang: "en" });
    expect(file.status, file.json?.error).to.equal(200);
    expect(file.headers.get("content-type")).to.equal(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    const files = unzip(file.buffer);
    const xml = files.get("word/document.xml")!.toString("utf8");
    const text = textOfXml(xml);
    expect(text).to.include(`Quality figures ${CLOSED}`);
    expect(text).to.include(
      `closed: the figures frozen at the close · closed ${answer.closedAt!.replace("T", " ")} by admin`,
    );

    const [indicatorTable, patientTable] = tablesOf(xml);
    expect(indicatorTable![0]).to.deep.equal([
      "Code",
      "Indicator",
      "Numerator",
      "Denominator",
      "Rate",
      "Band",
      "Version",
      "Source",
    ]);
    expect(indicatorTable!.slice(1).map((row) => row.slice(0, 5).concat(row[6]!))).to.deep.equal(
      answer.indicators.map((figures) => [
        figures.code,
        nameOf(figures.code, "en"),
        String(figures.numerator),
        String(figures.denominator),
        percent(figures.rate),
        String(figures.version),
      ]),
    );
    const hgbColumn = 2 + patientCodes().indexOf("HGB_TARGET");
    expect(patientTable![0]![hgbColumn]).to.equal("Haemoglobin at target (g/L)");
    const byRef = Object.fromEntries(patientTable!.slice(1).map((row) => [row[0], row]));
    expect(Object.keys(byRef)).to.deep.equal(["P001", "P002"]);
    expect(byRef.P001![1]).to.equal("张三");
    expect(byRef.P001![hgbColumn]).to.equal("met 120");
    // Frozen as not met; the corrected 115 is in the band now, which the cell says instead of a value.
    expect(byRef.P002![hgbColumn]).to.equal("not met changed since the close");

    const images = [...files.keys()].filter((name) => /^word\/media\/.+\.png$/.test(name));
    expect(images, "a chart of the targets' rates and one of the tested").to.have.length(2);
    for (const image of images) expect(files.get(image)!.subarray(1, 4).toString("latin1")).to.equal("PNG");
    expect(xml).to.include(`Line chart: Patients at target (%), by month from ${monthOf(monthsAgo(13))} to ${CLOSED}`);
  });

  it("writes the closed month as an English workbook and the open month as a Chinese document", async () => {
    const closed = await month(CLOSED);
    const workbookFile = await exported(CLOSED, { format: "xlsx", lang: "en" });
    expect(workbookFile.status, workbookFile.json?.error).to.equal(200);
    const workbook = await workbookOf(workbookFile.buffer);
    expect(workbook.worksheets.map((sheet) => sheet.name)).to.deep.equal(["About", "Indicators", "Patients", "Trend"]);
    const about = Object.fromEntries(rowsOf(workbook.worksheets[0]!).map((row) => [row[0], row[1]]));
    expect(about).to.deep.include({
      State: "closed: the figures frozen at the close",
      "Closed at": closed.closedAt!.replace("T", " "),
      "Closed by": "admin",
    });
    await expectWorkbookAgrees(workbook, closed, "en");

    const open = await month(OPEN);
    const documentFile = await exported(OPEN, { format: "docx", lang: "zh" });
    expect(documentFile.status, documentFile.json?.error).to.equal(200);
    const xml = unzip(documentFile.buffer).get("word/document.xml")!.toString("utf8");
    const text = textOfXml(xml);
    expect(text).to.include("未关闭：按目前已知的结果计算");
    // The charts' titles are drawn into their pictures; their descriptions say them in the document's language.
    expect(xml).to.include(`折线图：达标率（%），按月份，`).and.include("折线图：检测率（%），按月份，");
    const [indicatorTable, patientTable] = tablesOf(xml);
    expect(indicatorTable!.slice(1).map((row) => [row[0], row[1], row[4]])).to.deep.equal(
      open.indicators.map((figures) => [figures.code, nameOf(figures.code, "zh"), percent(figures.rate)]),
    );
    expect(patientTable!.slice(1).map((row) => row[0])).to.deep.equal(["P001", "P002", "P003"]);
    for (const [index, cells] of tablesOf(xml).entries())
      for (const row of cells)
        for (const [column, cell] of row.entries())
          if (!(index === 0 && column === 0))
            for (const english of ENGLISH) expect(cell, `table ${index}: ${cell}`).not.to.match(english);
  });

  it("gives a caller limited to a ward that ward's patients only, and refuses the others as the month's answer does", async () => {
    const wardA = await author(["clinician"], ["A"]);
    const answer = await month(`${OPEN}?ward=A`, wardA);
    const file = await exported(OPEN, { format: "xlsx", lang: "en", ward: "A" }, wardA);
    expect(file.status, file.json?.error).to.equal(200);
    const workbook = await workbookOf(file.buffer);
    const { patientRows } = await expectWorkbookAgrees(workbook, answer, "en", wardA);
    expect(patientRows.slice(1).map((row) => [row[0], row[1]])).to.deep.equal([
      ["P001", "张三"],
      ["P003", "王五"],
    ]);
    expect(rowsOf(workbook.worksheets[0]!).find((row) => row[0] === "Ward")![1]).to.equal("A");

    const other = await exported(OPEN, { format: "xlsx", lang: "en", ward: "B" }, wardA);
    expect([other.status, other.json?.code]).to.deep.equal([404, "ward-not-found"]);
    const none = await exported(OPEN, { format: "docx", lang: "en" }, wardA);
    expect([none.status, none.json?.code]).to.deep.equal([400, "ward-required"]);
    expect(none.json!.error).to.match(/ward="A"/);
  });

  it("records the export as an access to the patients it names", async () => {
    expect((await exported(OPEN, { format: "xlsx", lang: "en" })).status).to.equal(200);
    await until(async () => {
      const log = await hub.tenant.call("GET", "/api/admin/access-log?limit=1000", { token: ADMIN });
      return (log.body.records as Array<{ action: string; patientRefs: string[] }>).some(
        (record) =>
          record.action === "POST /api/quality/months/{month}/export" &&
          JSON.stringify(record.patientRefs.slice().sort()) === JSON.stringify(["P001", "P002", "P003"]),
      );
    }, 5000);
  });

  it("refuses a bad format, language, month or body with 400 saying how to write it, and a viewer with 403", async () => {
    const expectRefused = async (monthPath: string, body: unknown, error: RegExp) => {
      const answer = await exported(monthPath, body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.json!.error, JSON.stringify(body)).to.match(error);
    };
    await expectRefused(OPEN, { format: "pdf", lang: "zh" }, /^format must be xlsx \(a workbook\) or docx/);
    await expectRefused(OPEN, { format: "xlsx" }, /^lang must be zh or en/);
    await expectRefused(OPEN, { format: "xlsx", lang: "fr" }, /^lang must be zh or en/);
    await expectRefused(OPEN, { format: "xlsx", lang: "en", wards: ["A"] }, /holds format, lang and ward only/);
    await expectRefused("2026-13", { format: "xlsx", lang: "en" }, /^The month must be written yyyy-MM/);
    const unknownWard = await exported(OPEN, { format: "xlsx", lang: "en", ward: "Z" });
    expect([unknownWard.status, unknownWard.json?.code]).to.deep.equal([404, "ward-not-found"]);
    const viewer = await exported(OPEN, { format: "xlsx", lang: "en" }, await author(["viewer"]));
    expect([viewer.status, viewer.json?.code]).to.deep.equal([403, "role-needed"]);
  });
});

/**
 * The month's export as a Word document (contract G.2), landscape: the title, the month's state
 * (and its close), the indicator table, the 12 months' trend as two line charts (targets; tested),
 * and the per-patient table, each patient's place and last value in one cell an indicator. The
 * tables are the workbook's (qualityExportTables.ts), written as text.
 *
 * As the report's docx export: the charts are drawn from the same ECharts option builder on the
 * export's worker threads, then the document is built and zipped on one of them (docxWorker.ts).
 */
import {
  AlignmentType,
  Document,
  HeadingLevel,
  ImageRun,
  Packer,
  PageOrientation,
  Paragraph,
  Table,
  TableRow,
  TextRun,
  WidthType,
} from "docx";
import type { ChartNode, ChartResult } from "../../reports/charts/chartOptions.ts";
import {
  CHART_LAYOUT,
  CHART_ON_PAGE,
  muted,
  textCell,
  type DocxJob,
  type DocxRendering,
} from "../../reports/export/docxExport.ts";
import type { MonthExport } from "../../../queries/quality/monthExport.ts";
import type { QualityChartImage, QualityDocxJob } from "./qualityDocxJob.ts";
import {
  aboutLines,
  fileDateTime,
  indicatorName,
  indicatorTable,
  patientTable,
  percentText,
  type ExportTable,
  type TableCell,
} from "./qualityExportTables.ts";
import { qualityExportWords, type QualityExportLang, type QualityExportWords } from "./qualityExportWords.ts";

/** The trend charts: the targets' rates, then the tested (and timeliness) indicators'. */
export function trendCharts(
  exported: MonthExport,
  lang: QualityExportLang,
): Array<{ node: ChartNode; result: ChartResult }> {
  const words = qualityExportWords(lang);
  const groups = [
    { id: "targets", title: words.targetChart, kinds: ["target"] },
    { id: "tested", title: words.testedChart, kinds: ["tested", "timeliness"] },
  ];
  return groups.flatMap(({ id, title, kinds }) => {
    const shown = exported.indicators.flatMap((indicator, index) =>
      kinds.includes(indicator.definition?.kind ?? "target") ? [{ indicator, index }] : [],
    );
    if (shown.length === 0) return [];
    const codes = shown.map(({ indicator }) => indicator.figures.code);
    const node: ChartNode = {
      id,
      type: "chart",
      chart: "line",
      title,
      query: "trend",
      x: "month",
      y: codes,
      yLabel: "%",
      labels: Object.fromEntries(
        shown.map(({ indicator }) => [indicator.figures.code, indicatorName(indicator, lang)]),
      ),
    };
    const result: ChartResult = {
      columns: ["month", ...codes],
      columnTypes: ["date", ...codes.map(() => "number" as const)],
      rows: exported.trend.map((month) => [
        `${month.month}-01`,
        ...shown.map(({ index }) => {
          const rate = month.rates[index] ?? null;
          return rate === null ? null : Number((rate * 100).toFixed(2));
        }),
      ]),
    };
    return [{ node, result }];
  });
}

/** The document: its charts drawn on the worker threads, then built and zipped on one of them. */
export async function exportQualityDocx(
  exported: MonthExport,
  lang: QualityExportLang,
  exportedAt: string,
  rendering: DocxRendering,
): Promise<Buffer> {
  const charts = trendCharts(exported, lang);
  const drawn = await rendering.workers.runAll(
    charts.map(({ node, result }): DocxJob => ({ kind: "chart", node, result, size: CHART_LAYOUT, lang })),
    rendering.chartsAtOnce,
  );
  const job: QualityDocxJob = {
    kind: "qualityDocument",
    exported,
    lang,
    exportedAt,
    charts: charts.map(({ node }, i) => {
      const answer = drawn[i]!;
      return { title: node.title ?? node.id, png: "png" in answer ? answer.png : null };
    }),
  };
  const answer = await rendering.workers.run(job);
  if (!("file" in answer)) throw new Error("The export worker answered the document job without a file.");
  return Buffer.from(answer.file.buffer, answer.file.byteOffset, answer.file.byteLength);
}

const cellText = (value: TableCell, rate: boolean): string =>
  value === null ? "" : rate && typeof value === "number" ? percentText(value) : String(value);

const NUMBER_COLUMNS = new Set([2, 3, 4, 6]);

function table(shown: ExportTable, options: { numbers?: ReadonlySet<number> } = {}): Table {
  return new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    rows: [
      new TableRow({
        tableHeader: true,
        children: shown.headings.map((heading) => textCell(heading, { header: true })),
      }),
      ...shown.rows.map(
        (row) =>
          new TableRow({
            cantSplit: true,
            children: row.map((value, column) =>
              textCell(cellText(value, shown.rateColumns.includes(column)), {
                align: options.numbers?.has(column) ? "right" : "left",
              }),
            ),
          }),
      ),
    ],
  });
}

/** The per-patient table as a page holds it: one cell an indicator, its place and last value together. */
function patientCells(exported: MonthExport, words: QualityExportWords, lang: QualityExportLang): ExportTable {
  const patients = patientTable(exported, words, lang);
  const headings = exported.patientIndicators.map((index) => {
    const indicator = exported.indicators[index]!;
    return words.withUnit(indicatorName(indicator, lang), words.unit(indicator.definition?.unit ?? ""));
  });
  const combined = (row: readonly TableCell[]) => {
    const cells: TableCell[] = [row[0]!, row[1]!];
    for (let column = 2; column < row.length; column += 2) {
      const [place, value] = [row[column], row[column + 1]];
      cells.push([place, value].filter((part) => part !== null && part !== "").join(" ") || null);
    }
    return cells;
  };
  return {
    headings: [patients.headings[0]!, patients.headings[1]!, ...headings],
    rows: patients.rows.map(combined),
    rateColumns: [],
  };
}

const heading = (text: string) =>
  new Paragraph({ heading: HeadingLevel.HEADING_2, keepNext: true, children: [new TextRun(text)] });

function chartBlock(chart: QualityChartImage, exported: MonthExport, words: QualityExportWords): Paragraph {
  if (!chart.png) return new Paragraph({ children: [new TextRun({ text: words.chartNotDrawn, italics: true })] });
  const first = exported.trend[0]?.month ?? exported.answer.month;
  return new Paragraph({
    alignment: AlignmentType.CENTER,
    children: [
      new ImageRun({
        type: "png",
        data: chart.png,
        transformation: CHART_ON_PAGE,
        altText: {
          name: chart.title,
          title: chart.title,
          description: words.chartDescription(
            chart.title,
            words.monthLabel(first),
            words.monthLabel(exported.answer.month),
          ),
        },
      }),
    ],
  });
}

/** The document itself (on a worker thread). */
export async function qualityDocxFile(job: QualityDocxJob): Promise<Buffer> {
  const { exported, lang, exportedAt } = job;
  const words = qualityExportWords(lang);
  const { answer } = exported;
  const title = words.title(answer.month, answer.ward);
  const closed =
    answer.state === "closed" ? words.closedLine(fileDateTime(answer.closedAt ?? ""), answer.closedBy ?? "") : null;
  const [month, ward, , ...rest] = aboutLines(exported, words, lang, exportedAt);
  const notes = rest.filter(([label]) => label === words.notes || label === "").map(([, note]) => note);
  const patients = patientCells(exported, words, lang);
  const body = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(title)] }),
    new Paragraph({ children: [muted(`${words.labelled(...month!)} · ${words.labelled(...ward!)}`)] }),
    new Paragraph({ children: [muted(words.headerLine(words.states[answer.state], closed, exportedAt))] }),
    heading(words.indicatorsHeading),
    table(indicatorTable(exported, words, lang), { numbers: NUMBER_COLUMNS }),
    heading(words.trendHeading(words.monthLabel(answer.month))),
    ...job.charts.map((chart) => chartBlock(chart, exported, words)),
    heading(words.patientsHeading),
    ...(patients.rows.length
      ? [table(patients)]
      : [new Paragraph({ children: [muted(words.noPatients, { italics: true })] })]),
    heading(words.notes),
    ...notes.map((note) => new Paragraph({ children: [muted(note)] })),
  ];
  const doc = new Document({
    title,
    creator: "Dialysis Hub",
    styles: {
      default: {
        document: {
          run: {
            font: { ascii: "Calibri", hAnsi: "Calibri", eastAsia: "Microsoft YaHei", cs: "Calibri" },
            size: 21,
            language: { value: lang === "zh" ? "zh-CN" : "en-US", eastAsia: "zh-CN" },
          },
          paragraph: { spacing: { after: 100 } },
        },
      },
    },
    sections: [
      {
        properties: {
          page: {
            size: { orientation: PageOrientation.LANDSCAPE },
            margin: { top: 1134, bottom: 1134, left: 1134, right: 1134 },
          },
        },
        children: body,
      },
    ],
  });
  return Packer.toBuffer(doc);
}

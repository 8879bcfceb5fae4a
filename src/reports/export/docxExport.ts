/**
 * The docx export (contract A.3, the list): a Word document with the report's title, its
 * version, publish time and export time, the note, the filter values, then the layer's nodes in
 * the spec's order — text (markdown), stats, tables (the first rows and how many more) and charts
 * (rendered on the server from the same ECharts option builder as the embed page, as PNGs).
 *
 * The event loop only runs the queries and hands the rest to the export's worker threads
 * (docxWorker.ts, workerPool.ts): each chart is drawn there, a few of one export at once, and
 * then the document is built and zipped there. A chart of more points than DOCX_CHART_MAX_POINTS
 * is drawn from thinned rows (thinRows.ts) and says so under it.
 *
 * A failing query never fails the export: its nodes show the error sentence in their place.
 */
import {
  AlignmentType,
  BorderStyle,
  Document,
  HeadingLevel,
  ImageRun,
  Packer,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from "docx";
import type { ShownNodeDef as NodeDef, ShownParamDef as ParamDef } from "../../../commands/reports/spec/specSchema.ts";
import type { QueryOutcome, QuerySuccess } from "../../../commands/reports/spec/queryOutcome.ts";
import { DRAFT_LABEL } from "../../../commands/reports/spec/specVocabulary.ts";
import type { ChartNode, ChartResult } from "../charts/chartOptions.ts";
import { optionLabels, paramText, statText } from "../charts/formatValue.ts";
import type { RenderSize } from "../charts/renderChart.ts";
import { thinChartRows, type Thinning } from "../charts/thinRows.ts";
import { matchingRule, rulesOfColumn, TONE_COLOURS, type HighlightTone } from "../charts/highlight.ts";
import { columnCell, tableColumns } from "../charts/tableColumns.ts";
import { MarkdownConverter, type Block } from "./docxMarkdown.ts";
import type { WorkerPool } from "./workerPool.ts";
import { exportWords, type ExportLang, type ExportWords } from "./exportWords.ts";
import type { QualityDocxJob } from "../../quality/export/qualityDocxJob.ts";

/** Rows of a table node written into the document; the rest are counted. */
export const DOCX_TABLE_ROWS = 50;

/** The chart's layout in CSS pixels, rasterised at 1.5× (1200 × 600) and shown 600 × 300 px (6.25 × 3.1 in) wide on the page. */
export const CHART_LAYOUT = { width: 800, height: 400, scale: 1.5 };
export const CHART_ON_PAGE = { width: 600, height: 300 };

/** A chart as the document shows it: its PNG and, when drawn from thinned rows, how; or the sentence in its place. */
type ChartImage = { png: Uint8Array; thinning: Thinning | null } | string;

/** The work of the export's worker threads (docxWorker.ts): draw one chart, or build and zip a report's or a quality month's document. */
export type DocxJob =
  | { kind: "chart"; node: ChartNode; result: ChartResult; size: RenderSize; lang?: ExportLang }
  | { kind: "document"; layer: DocxLayer; images: Map<string, ChartImage> }
  | QualityDocxJob;
/** A chart's PNG, or the sentence for its place (a column the query lacks); the document's file. */
export type DocxAnswer = { png: Uint8Array } | { problem: string } | { file: Uint8Array };

/** How the service runs its docx exports (its settings). */
export interface DocxRendering {
  workers: Pick<WorkerPool<DocxJob, DocxAnswer>, "run" | "runAll">;
  /** Charts of one export on the workers at once, waiting or drawn (DOCX_CHARTS_PER_EXPORT). */
  chartsAtOnce: number;
  /** Points of one series a chart draws at most (DOCX_CHART_MAX_POINTS); beyond, its rows are thinned. */
  maxPoints: number;
}

export interface DocxFilter {
  label: string;
  value: string;
}

export interface DocxLayer {
  /** The document's title: the report's, or the drill target's (args filled in). */
  title: string;
  /** For a drill layer: the report it was reached from. */
  reportTitle?: string;
  version: string;
  mode: "dynamic" | "snapshot";
  publishedAt: string;
  exportedAt: string;
  note: string;
  description?: string;
  filters: DocxFilter[];
  nodes: NodeDef[];
  results: Record<string, QueryOutcome>;
  /** The language of the document's own words (headings, notes); English when left out. */
  lang?: ExportLang;
}

/** A result cut to the rows a table shows, with the count of all its rows (what the document job is given). */
type ShownResult = QuerySuccess & { rowCount?: number };

/** The filter values of a layer as label → text, option values shown by their labels where known. */
export function filterRows(
  params: readonly ParamDef[],
  values: Record<string, unknown>,
  results: Record<string, QueryOutcome>,
  words: ExportWords = exportWords(),
): DocxFilter[] {
  return params.map((param) => {
    const optionQuery =
      (param.type === "select" || param.type === "multiSelect") && !Array.isArray(param.options)
        ? results[param.options.query]
        : undefined;
    const labels = optionLabels(param, optionQuery && !("error" in optionQuery) ? optionQuery : undefined);
    return { label: param.label, value: paramText(param, values[param.name] ?? null, labels, words) };
  });
}

const SMALL = 18; // half-points: 9 pt
const GREY = "595959";

/** Small grey text: the lines under a title, the notes under a table. */
export const muted = (text: string, options: { italics?: boolean } = {}) =>
  new TextRun({ text, color: GREY, size: SMALL, italics: options.italics });

function problem(text: string): Paragraph {
  return new Paragraph({ children: [new TextRun({ text, color: "C00000", italics: true })] });
}

const thin = { style: BorderStyle.SINGLE, size: 4, color: "BFBFBF" };
const cellBorders = { top: thin, bottom: thin, left: thin, right: thin };

const ALIGNMENTS = { left: AlignmentType.LEFT, center: AlignmentType.CENTER, right: AlignmentType.RIGHT } as const;

/** A highlighted value's fill, as Word writes cell and paragraph shading. */
const toneShading = (tone: HighlightTone) => ({
  type: ShadingType.CLEAR,
  color: "auto",
  fill: TONE_COLOURS[tone].fill,
});

/** A table cell of the exports' documents: grey header, thin borders, 9 pt. */
export function textCell(
  text: string,
  options: { header?: boolean; align?: keyof typeof ALIGNMENTS; tone?: HighlightTone } = {},
): TableCell {
  const { header, tone } = options;
  return new TableCell({
    borders: cellBorders,
    shading: header ? { type: ShadingType.CLEAR, color: "auto", fill: "F2F2F2" } : tone ? toneShading(tone) : undefined,
    margins: { top: 30, bottom: 30, left: 80, right: 80 },
    children: [
      new Paragraph({
        spacing: { after: 0 },
        alignment: ALIGNMENTS[options.align ?? "left"],
        // A marked value is bold too, so it stands out on a grey print as well.
        children: [
          new TextRun({ text, bold: header || !!tone, size: SMALL, color: tone ? TONE_COLOURS[tone].text : undefined }),
        ],
      }),
    ],
  });
}

function filterTable(filters: DocxFilter[]): Table {
  return new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    columnWidths: [2800, 6200],
    rows: filters.map(
      (filter) => new TableRow({ children: [textCell(filter.label, { header: true }), textCell(filter.value)] }),
    ),
  });
}

function outcomeOf(layer: DocxLayer, node: Exclude<NodeDef, { type: "text" }>): ShownResult | string {
  const words = exportWords(layer.lang);
  const outcome = layer.results[node.query];
  if (!outcome) return words.noResult(node.query);
  if ("error" in outcome) return words.nodeQueryFailed(node.query, words.queryFailure(outcome));
  return outcome;
}

function nodeHeading(title: string | undefined): Paragraph[] {
  return title
    ? [new Paragraph({ heading: HeadingLevel.HEADING_3, keepNext: true, children: [new TextRun(title)] })]
    : [];
}

function statBlocks(node: Extract<NodeDef, { type: "stat" }>, result: QuerySuccess, words: ExportWords): Block[] {
  const index = result.columns.indexOf(node.column);
  if (index < 0)
    return [...nodeHeading(node.title), problem(words.notAColumn(node.column, node.query, result.columns.join(", ")))];
  const value = result.rows[0]?.[index] ?? null;
  const tone = matchingRule(node.highlight, value)?.tone;
  const colour = tone ? TONE_COLOURS[tone].text : undefined;
  const unit =
    node.unit && value !== null ? [new TextRun({ text: ` ${node.unit}`, size: 28, color: colour ?? GREY })] : [];
  return [
    new Paragraph({ keepNext: true, spacing: { after: 0 }, children: [muted(node.title ?? node.column)] }),
    new Paragraph({
      ...(tone ? { shading: toneShading(tone) } : {}),
      children: [new TextRun({ text: statText(value, node.format), bold: true, size: 40, color: colour }), ...unit],
    }),
  ];
}

function tableBlocks(
  node: Extract<NodeDef, { type: "table" }>,
  result: ShownResult,
  words: ExportWords,
  lang: ExportLang,
): Block[] {
  const { shown: columns, missing } = tableColumns(node.columns, result);
  const blocks: Block[] = [...nodeHeading(node.title)];
  if (missing.length) blocks.push(problem(words.notColumns(node.query, missing.join(", "), result.columns.join(", "))));
  if (columns.length === 0) return blocks;
  const shown = result.rows.slice(0, DOCX_TABLE_ROWS);
  const rules = columns.map((view) => rulesOfColumn(node.highlight, view.column));
  blocks.push(
    new Table({
      width: { size: 100, type: WidthType.PERCENTAGE },
      rows: [
        new TableRow({
          tableHeader: true,
          children: columns.map((view) => textCell(view.heading, { header: true, align: view.align })),
        }),
        ...shown.map(
          (row) =>
            new TableRow({
              cantSplit: true,
              children: columns.map((view, c) =>
                textCell(columnCell(view, row[view.index], lang), {
                  align: view.align,
                  tone: matchingRule(rules[c], row[view.index])?.tone,
                }),
              ),
            }),
        ),
      ],
    }),
  );
  const rowCount = result.rowCount ?? result.rows.length;
  const more = rowCount - shown.length;
  if (rowCount === 0) blocks.push(new Paragraph({ children: [muted(words.noRows, { italics: true })] }));
  else if (result.truncated)
    blocks.push(new Paragraph({ children: [muted(words.moreRowsCut(more, rowCount), { italics: true })] }));
  else if (more > 0) blocks.push(new Paragraph({ children: [muted(words.moreRows(more), { italics: true })] }));
  else blocks.push(new Paragraph({ spacing: { after: 120 }, children: [] }));
  return blocks;
}

/** Draws every chart node of the layer on the worker threads, each from at most `maxPoints` rows. */
async function chartImages(layer: DocxLayer, rendering: DocxRendering): Promise<Map<string, ChartImage>> {
  const images = new Map<string, ChartImage>();
  const words = exportWords(layer.lang);
  const drawn: Array<{ id: string; thinning: Thinning | null; job: DocxJob }> = [];
  for (const node of layer.nodes) {
    if (node.type !== "chart") continue;
    const outcome = outcomeOf(layer, node);
    if (typeof outcome === "string") images.set(node.id, outcome);
    else if (outcome.rows.length === 0) images.set(node.id, words.noChartRows(node.title ?? node.id));
    else {
      const { result, thinning } = thinChartRows(node, outcome, rendering.maxPoints);
      drawn.push({
        id: node.id,
        thinning,
        job: {
          kind: "chart",
          node,
          result: { columns: result.columns, columnTypes: result.columnTypes, rows: result.rows },
          size: CHART_LAYOUT,
          lang: layer.lang ?? "en",
        },
      });
    }
  }
  const answers = await rendering.workers.runAll(
    drawn.map((chart) => chart.job),
    rendering.chartsAtOnce,
  );
  drawn.forEach((chart, i) => {
    const answer = answers[i]!;
    images.set(
      chart.id,
      "png" in answer
        ? { png: answer.png, thinning: chart.thinning }
        : "problem" in answer
          ? answer.problem
          : words.chartNotDrawn,
    );
  });
  return images;
}

/** The note under a chart drawn from thinned rows. */
function thinningNote(node: ChartNode, thinning: Thinning, words: ExportWords): string {
  return node.chart === "pie"
    ? words.thinnedPie(thinning.kept, thinning.from)
    : words.thinned(thinning.kept, thinning.from);
}

function chartBlocks(node: ChartNode, image: ChartImage | undefined, words: ExportWords): Block[] {
  if (image === undefined) return [];
  if (typeof image === "string") return [...nodeHeading(node.title), problem(image)];
  const note = image.thinning
    ? [
        new Paragraph({
          alignment: AlignmentType.CENTER,
          children: [muted(thinningNote(node, image.thinning, words), { italics: true })],
        }),
      ]
    : [];
  return [
    new Paragraph({
      alignment: AlignmentType.CENTER,
      keepNext: note.length > 0,
      children: [
        new ImageRun({
          type: "png",
          data: image.png,
          transformation: CHART_ON_PAGE,
          altText: {
            name: node.id,
            title: node.title ?? node.id,
            description: words.chartDescription(node.chart, node.title ?? "", node.y.join(", "), node.x),
          },
        }),
      ],
    }),
    ...note,
  ];
}

function headerBlocks(layer: DocxLayer, markdown: MarkdownConverter, words: ExportWords): Block[] {
  const blocks: Block[] = [new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(layer.title)] })];
  if (layer.reportTitle) blocks.push(new Paragraph({ children: [muted(words.drillOf(layer.reportTitle))] }));
  const kind = layer.version === DRAFT_LABEL ? "saved" : layer.mode === "snapshot" ? "snapshot" : "published";
  blocks.push(
    new Paragraph({
      children: [
        muted(
          words.versionLine(
            layer.version,
            kind,
            layer.publishedAt.replace("T", " "),
            layer.exportedAt.replace("T", " "),
          ),
        ),
      ],
    }),
  );
  if (layer.note) blocks.push(new Paragraph({ children: [new TextRun({ text: layer.note, italics: true })] }));
  if (layer.description) blocks.push(...markdown.convert(layer.description));
  if (layer.filters.length) {
    blocks.push(
      new Paragraph({ heading: HeadingLevel.HEADING_2, keepNext: true, children: [new TextRun(words.filters)] }),
    );
    blocks.push(filterTable(layer.filters));
    blocks.push(new Paragraph({ children: [] }));
  }
  return blocks;
}

/**
 * The layer as a .docx file: its charts drawn on the worker threads, then the document built and
 * zipped on one of them from a copy of the layer cut to the rows it shows.
 */
export async function exportDocx(layer: DocxLayer, rendering: DocxRendering): Promise<Buffer> {
  const images = await chartImages(layer, rendering);
  const results = Object.fromEntries(
    Object.entries(layer.results).map(([name, outcome]): [string, ShownResult | { error: string }] => [
      name,
      "error" in outcome || outcome.rows.length <= DOCX_TABLE_ROWS
        ? outcome
        : { ...outcome, rows: outcome.rows.slice(0, DOCX_TABLE_ROWS), rowCount: outcome.rows.length },
    ]),
  );
  const answer = await rendering.workers.run({ kind: "document", layer: { ...layer, results }, images });
  if (!("file" in answer)) throw new Error("The export worker answered the document job without a file.");
  return Buffer.from(answer.file.buffer, answer.file.byteOffset, answer.file.byteLength);
}

/** The document itself (on a worker thread: building and zipping it takes a while for many images). */
export async function docxFile(layer: DocxLayer, images: Map<string, ChartImage>): Promise<Buffer> {
  const markdown = new MarkdownConverter();
  const words = exportWords(layer.lang);
  const body: Block[] = headerBlocks(layer, markdown, words);
  for (const node of layer.nodes) {
    if (node.type === "text") {
      // A text written for the screen ("click a month…") has no place on paper.
      if (node.print !== false) body.push(...markdown.convert(node.markdown));
      continue;
    }
    if (node.type === "chart") {
      body.push(...chartBlocks(node, images.get(node.id), words));
      continue;
    }
    const outcome = outcomeOf(layer, node);
    if (typeof outcome === "string") {
      body.push(...nodeHeading(node.title), problem(outcome));
      continue;
    }
    body.push(
      ...(node.type === "stat"
        ? statBlocks(node, outcome, words)
        : tableBlocks(node, outcome, words, layer.lang ?? "en")),
    );
  }

  const doc = new Document({
    title: layer.title,
    creator: "Dialysis Hub",
    description: `${layer.title} ${layer.version}`,
    styles: {
      default: {
        document: {
          run: {
            font: { ascii: "Calibri", hAnsi: "Calibri", eastAsia: "Microsoft YaHei", cs: "Calibri" },
            size: 21,
            language: { value: layer.lang === "zh" ? "zh-CN" : "en-US", eastAsia: "zh-CN" },
          },
          paragraph: { spacing: { after: 100 } },
        },
      },
    },
    numbering: { config: markdown.numbering() },
    sections: [
      { properties: { page: { margin: { top: 1134, bottom: 1134, left: 1134, right: 1134 } } }, children: body },
    ],
  });
  return Packer.toBuffer(doc);
}

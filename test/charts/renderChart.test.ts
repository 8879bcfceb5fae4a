import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { chartOption, type ChartNode } from "../../src/reports/charts/chartOptions.ts";
import { SubsettableFont, svgCharacters } from "../../src/reports/charts/fontSubset.ts";
import { renderChartPng, renderChartSvg } from "../../src/reports/charts/renderChart.ts";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const fontsDir = join(dirname(createRequire(import.meta.url).resolve("@embedpdf/fonts-sc")), "..", "fonts");

function table(font: Buffer, tag: string): number {
  const tables = font.readUInt16BE(4);
  for (let i = 0; i < tables; i++) {
    const record = 12 + 16 * i;
    if (font.toString("latin1", record, record + 4) === tag) return font.readUInt32BE(record + 8);
  }
  throw new Error(`no ${tag} table`);
}

/** The number of glyphs of an OpenType font (its maxp table). */
const glyphCount = (font: Buffer) => font.readUInt16BE(table(font, "maxp") + 4);

/** The Windows-platform names of a given id (UTF-16BE in the name table). */
function names(font: Buffer, nameId: number): string[] {
  const at = table(font, "name");
  const strings = at + font.readUInt16BE(at + 4);
  const found: string[] = [];
  for (let i = 0; i < font.readUInt16BE(at + 2); i++) {
    const record = at + 6 + 12 * i;
    if (font.readUInt16BE(record) !== 3 || font.readUInt16BE(record + 6) !== nameId) continue;
    const start = strings + font.readUInt16BE(record + 10);
    const bytes = Buffer.from(font.subarray(start, start + font.readUInt16BE(record + 8)));
    found.push(bytes.swap16().toString("utf16le"));
  }
  return found;
}

const node: ChartNode = {
  id: "trend",
  type: "chart",
  chart: "bar",
  title: "各病区血红蛋白",
  query: "q",
  x: "病区",
  y: ["血红蛋白", "钾"],
};
const result = {
  columns: ["病区", "血红蛋白", "钾"],
  columnTypes: ["string", "number", "number"] as const,
  rows: [
    ["东区", 105, 4.5],
    ["西区", 120, 5.1],
    ["南区", 112, 4.8],
  ],
};

describe("chart rendering (src/reports/charts/renderChart)", function () {
  this.timeout(30_000);

  it("draws the option as SVG text in the CJK font list", () => {
    const svg = renderChartSvg(chartOption(node, { ...result, columnTypes: [...result.columnTypes] }), {
      width: 800,
      height: 400,
    });
    expect(svg).to.match(/^<svg[^>]+width="800"/);
    expect(svg).to.include("各病区血红蛋白").and.include("东区").and.include("Noto Sans CJK SC");
  });

  it("subsets the packaged Noto Sans SC to the characters in use, Chinese glyphs included", () => {
    const font = new SubsettableFont(join(fontsDir, "NotoSansHans-Regular.otf"));
    const characters = svgCharacters(["<text>血红蛋白 &amp; Hb</text>"]);
    expect(characters.has("&")).to.equal(true);
    const subset = font.subset(characters);
    expect(subset.length, "a few kilobytes, not 8 MB").to.be.lessThan(100_000);
    expect(glyphCount(subset), "a glyph for each of 血红蛋白 besides the Latin ones").to.be.greaterThan(
      characters.size - 2,
    );
    expect(names(subset, 16), "the typographic family, which names every weight alike, survives").to.include(
      "Noto Sans S Chinese",
    );
  });

  it("renders charts to PNGs at the asked scale", () => {
    const option = chartOption(node, { ...result, columnTypes: [...result.columnTypes] }, { animation: false });
    const [first, second] = [option, { ...option, series: [] }].map((drawn) =>
      renderChartPng(drawn, { width: 800, height: 400, scale: 1.5 }),
    );
    for (const png of [first!, second!]) {
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).to.equal(true);
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).to.deep.equal([1200, 600]);
    }
    expect(first!.length).to.be.greaterThan(second!.length);
  });
});

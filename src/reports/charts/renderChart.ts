/**
 * Server-side chart rendering (Node only): Apache ECharts draws the option to an SVG string
 * (its SSR mode, no DOM), and resvg rasterises the SVG to a PNG. Both are synchronous and take
 * up to a second for a big chart: the service calls them only on a chart worker thread
 * (chartWorker.ts, run by chartPool.ts), never on its event loop.
 *
 * Fonts: resvg draws text only with the fonts it is given. Chinese in titles, axes and legends
 * needs a CJK font, and one ships with the npm dependencies: `@embedpdf/fonts-sc` (Noto Sans
 * Simplified Chinese as OTF, SIL Open Font License; its family name is "Noto Sans S Chinese").
 * resvg gets a subset of it holding the chart's characters (see fontSubset.ts). Should the
 * package's files be missing, or subsetting fail, the renderer falls back to the whole files, then
 * to the system's fonts (Debian's `fonts-noto-cjk` shows Chinese; a machine without shows boxes).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Resvg, type ResvgRenderOptions } from "@resvg/resvg-js";
import * as echarts from "echarts";
import type { EChartsOption } from "echarts";
import { SubsettableFont, svgCharacters } from "./fontSubset.ts";

type FontOptions = NonNullable<ResvgRenderOptions["font"]>;

export const CHART_FONT_NAME = "Noto Sans S Chinese";
const FONT_FILES = ["NotoSansHans-Regular.otf", "NotoSansHans-Bold.otf"];

let packaged: SubsettableFont[] | undefined;

/** The packaged CJK faces (regular and bold), or none when the package is not installed. */
function packagedFonts(): SubsettableFont[] {
  if (!packaged) {
    try {
      const dir = join(dirname(createRequire(import.meta.url).resolve("@embedpdf/fonts-sc")), "..", "fonts");
      packaged = FONT_FILES.map((file) => join(dir, file))
        .filter((file) => existsSync(file))
        .map((file) => new SubsettableFont(file));
    } catch {
      packaged = [];
    }
  }
  return packaged;
}

function fontOptions(files: string[]): FontOptions {
  if (files.length === 0) return { loadSystemFonts: true, sansSerifFamily: "Noto Sans CJK SC" };
  return {
    fontFiles: files,
    loadSystemFonts: false,
    defaultFontFamily: CHART_FONT_NAME,
    sansSerifFamily: CHART_FONT_NAME,
    serifFamily: CHART_FONT_NAME,
    monospaceFamily: CHART_FONT_NAME,
  };
}

export interface RenderSize {
  /** The chart's layout size in CSS pixels. */
  width: number;
  height: number;
  /** Pixels of the PNG per layout pixel (1.5 gives 1200 × 600 for an 800 × 400 layout). Default 1. */
  scale?: number;
}

/** The chart as an SVG document (animation off). */
export function renderChartSvg(option: EChartsOption, size: Pick<RenderSize, "width" | "height">): string {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width: size.width, height: size.height });
  try {
    chart.setOption({ ...option, animation: false });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** The chart as a PNG, drawn on the calling thread (a chart worker's): SVG, a font subset of its characters, then resvg. */
export function renderChartPng(option: EChartsOption, size: RenderSize): Buffer {
  const svg = renderChartSvg(option, size);
  const scale = size.scale ?? 1;
  const fonts = packagedFonts();
  let dir: string | undefined;
  let files: string[];
  try {
    const characters = svgCharacters([svg]);
    const subsets = fonts.map((font) => font.subset(characters));
    dir = mkdtempSync(join(tmpdir(), "chart-fonts-"));
    files = subsets.map((bytes, i) => {
      const file = join(dir!, basename(fonts[i]!.path));
      writeFileSync(file, bytes);
      return file;
    });
  } catch {
    files = fonts.map((font) => font.path); // slower, same picture
  }
  try {
    const fitTo = scale === 1 ? ({ mode: "original" } as const) : ({ mode: "zoom", value: scale } as const);
    return new Resvg(svg, { font: fontOptions(files), background: "#ffffff", fitTo, logLevel: "off" }).render().asPng();
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

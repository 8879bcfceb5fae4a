import { expect } from "chai";
import {
  CHART_FONT_FAMILY,
  ChartColumnError,
  chartOption,
  type ChartNode,
  type ChartResult,
} from "../../src/reports/charts/chartOptions.ts";
import { paramText, statText } from "../../src/reports/charts/formatValue.ts";

const monthly: ChartResult = {
  columns: ["month", "hgb", "ktv", "ward"],
  columnTypes: ["date", "number", "number", "string"],
  rows: [
    ["2026-01-01", 105, 1.31, "东区"],
    ["2026-02-01", "120.5", null, "西区"],
    ["2026-03-01", 112, 1.4, null],
  ],
};

const node = (overrides: Partial<ChartNode>): ChartNode => ({
  id: "trend",
  type: "chart",
  chart: "line",
  title: "血红蛋白 by month",
  query: "monthly",
  x: "month",
  y: ["hgb"],
  ...overrides,
});

// The option is a plain object; tests read it loosely.
const loose = (value: unknown) => value as any;

describe("chart options (src/reports/charts/chartOptions)", () => {
  it("draws a line chart over a category x axis of dates, one series per y column", () => {
    const option = loose(chartOption(node({ y: ["hgb", "ktv"] }), monthly));
    expect(option.xAxis).to.include({ type: "category" });
    // Each date the first of its month: labelled by the months (issue #54), in the reader's language.
    expect(option.xAxis.data).to.deep.equal(["2026-01", "2026-02", "2026-03"]);
    expect(loose(chartOption(node({}), monthly, { lang: "zh" })).xAxis.data).to.deep.equal([
      "2026年1月",
      "2026年2月",
      "2026年3月",
    ]);
    expect(option.series).to.have.length(2);
    expect(option.series.map((s: any) => [s.type, s.name])).to.deep.equal([
      ["line", "hgb"],
      ["line", "ktv"],
    ]);
    expect(option.series[0].data, "digits become numbers").to.deep.equal([105, 120.5, 112]);
    expect(option.series[1].data, "null is a gap").to.deep.equal([1.31, null, 1.4]);
    expect(option.legend, "a legend with more than one series").to.be.an("object");
    expect(option.tooltip).to.include({ trigger: "axis" });
    expect(option.title.text).to.equal("血红蛋白 by month");
  });

  it("plots y2 columns on a second axis on the right, names the axes, and draws reference lines on the first axis", () => {
    const option = loose(
      chartOption(
        node({
          y: ["hgb"],
          y2: ["ktv"],
          xLabel: "Month",
          yLabel: "Hb (g/L)",
          y2Label: "spKt/V",
          refLines: [{ value: 110, label: "Hb target" }, { value: 130 }],
        }),
        monthly,
      ),
    );
    expect(option.yAxis).to.have.length(2);
    expect(option.yAxis[0]).to.include({ name: "Hb (g/L)" });
    expect(option.yAxis[1]).to.include({ name: "spKt/V", position: "right" });
    expect(option.series.map((s: any) => [s.name, s.yAxisIndex ?? 0])).to.deep.equal([
      ["hgb", 0],
      ["ktv", 1],
    ]);
    expect(option.xAxis).to.include({ name: "Month", nameLocation: "middle" });
    expect(option.series[0].markLine.data).to.deep.equal([
      { yAxis: 110, name: "Hb target" },
      { yAxis: 130, name: "130" },
    ]);
    expect(option.series[1].markLine, "reference lines belong to the first axis").to.equal(undefined);
    expect(option.yAxis[0].min({ min: 105 }), "the first axis reaches the lowest line").to.equal(105);
    expect(option.yAxis[0].max({ max: 120.5 }), "and the highest").to.equal(130);
    expect(option.legend, "two series, two axes: a legend").to.be.an("object");
  });

  it("stacks bars per axis when asked, from zero", () => {
    const option = loose(chartOption(node({ chart: "bar", y: ["hgb", "ktv"], stacked: true }), monthly));
    expect(option.series.map((s: any) => s.stack)).to.deep.equal(["axis0", "axis0"]);
    expect(option.yAxis.scale).to.equal(false);
    const withTarget = loose(chartOption(node({ chart: "bar", y: ["ktv"], refLines: [{ value: 1.2 }] }), monthly));
    expect(withTarget.yAxis.min({ min: 1.31 }), "a bar axis keeps its zero").to.equal(0);
    const plain = loose(chartOption(node({ chart: "bar", y: ["hgb", "ktv"] }), monthly));
    expect(plain.series.map((s: any) => s.stack)).to.deep.equal([undefined, undefined]);
  });

  it("names a y2 column the result lacks, as for y", () => {
    expect(() => chartOption(node({ y2: ["urr"] }), monthly)).to.throw(
      ChartColumnError,
      /y2 column "urr" is not a column of query monthly/,
    );
  });

  it("leaves the legend out for one series, and the title out when asked", () => {
    const option = loose(chartOption(node({}), monthly, { title: false, animation: false }));
    expect(option.legend).to.equal(undefined);
    expect(option.title).to.equal(undefined);
    expect(option.animation).to.equal(false);
  });

  it("fills the area of an area chart and draws bars for a bar chart", () => {
    const area = loose(chartOption(node({ chart: "area" }), monthly));
    expect(area.series[0]).to.include({ type: "line" });
    expect(area.series[0].areaStyle).to.be.an("object");
    const bar = loose(chartOption(node({ chart: "bar", x: "ward" }), monthly));
    expect(bar.series[0]).to.include({ type: "bar" });
    expect(bar.xAxis.data).to.deep.equal(["东区", "西区", "(empty)"]);
  });

  it("names pie slices by x and sizes them by the first y column", () => {
    const option = loose(chartOption(node({ chart: "pie", x: "ward", y: ["ktv", "hgb"] }), monthly));
    expect(option.series).to.have.length(1);
    expect(option.series[0].type).to.equal("pie");
    expect(option.series[0].data, "the slice without a value is left out").to.deep.equal([
      { name: "东区", value: 1.31 },
      { name: "(empty)", value: 1.4 },
    ]);
    expect(option.tooltip).to.include({ trigger: "item" });
  });

  it("plots scatter points on value axes, and on a time axis when x is a date", () => {
    const byKtv = loose(chartOption(node({ chart: "scatter", x: "ktv", y: ["hgb"] }), monthly));
    expect(byKtv.xAxis.type).to.equal("value");
    expect(byKtv.series[0].data).to.deep.equal([
      [1.31, 105],
      [1.4, 112],
    ]);
    const byMonth = loose(chartOption(node({ chart: "scatter" }), monthly));
    expect(byMonth.xAxis.type).to.equal("time");
    expect(byMonth.series[0].data[0]).to.deep.equal(["2026-01-01", 105]);
  });

  it("names the wrong column and the query's columns when x or y is not in the result", () => {
    expect(() => chartOption(node({ y: ["hgb", "kt_v"] }), monthly)).to.throw(
      ChartColumnError,
      /y column "kt_v" is not a column of query monthly \(its columns: month, hgb, ktv, ward\)/,
    );
    expect(() => chartOption(node({ x: "day" }), monthly)).to.throw(ChartColumnError, /x column "day"/);
  });

  it("names the series by their labels (legend, tooltip, the docx image alike), a column without one by its name", () => {
    const option = loose(chartOption(node({ y: ["hgb"], y2: ["ktv"], labels: { ktv: "spKt/V" } }), monthly));
    expect(option.series.map((s: any) => s.name)).to.deep.equal(["hgb", "spKt/V"]);
    const alone = loose(chartOption(node({ chart: "bar", labels: { hgb: "Hb" } }), monthly));
    expect(alone.yAxis.name, "one series without a yLabel: the axis is named after it").to.equal("Hb");
    expect(
      loose(chartOption(node({ chart: "scatter", x: "ktv", labels: { hgb: "Hb" } }), monthly)).series[0].name,
    ).to.equal("Hb");
    expect(
      loose(chartOption(node({ chart: "pie", x: "ward", labels: { hgb: "Hb" } }), monthly)).series[0].name,
    ).to.equal("Hb");
  });

  it("names reference lines right of the plot on a white ground, and keeps room there (a second axis' labels move out by as much)", () => {
    const option = loose(chartOption(node({ chart: "bar", refLines: [{ value: 110, label: "Hb target" }] }), monthly));
    const { label } = option.series[0].markLine;
    expect(label).to.include({ position: "end", backgroundColor: "#ffffff", overflow: "break" });
    expect(option.grid.right, "room for the name beside the plot").to.be.at.least(label.width + label.distance);
    const twoAxes = loose(
      chartOption(node({ chart: "bar", y2: ["ktv"], refLines: [{ value: 110, label: "Hb target" }] }), monthly),
    );
    expect(twoAxes.yAxis[1].axisLabel.margin).to.be.at.least(
      twoAxes.series[0].markLine.label.width + twoAxes.series[0].markLine.label.distance,
    );
    expect(
      loose(chartOption(node({ chart: "bar", y2: ["ktv"] }), monthly)).yAxis[1].axisLabel,
      "no lines, no room",
    ).to.equal(undefined);
  });

  it("asks for fonts that hold Chinese glyphs, quoted so the SVG attribute stays valid", () => {
    const option = loose(chartOption(node({}), monthly));
    expect(option.textStyle.fontFamily).to.equal(CHART_FONT_FAMILY);
    expect(CHART_FONT_FAMILY).to.include("Noto Sans CJK SC").and.include("Microsoft YaHei").and.not.include('"');
  });
});

describe("value text (src/reports/charts/formatValue)", () => {
  it("formats stats with and without a pattern", () => {
    expect(statText(12345.678)).to.equal("12,345.68");
    expect(statText("1.2345", "0.00")).to.equal("1.23");
    expect(statText(105, "0.0 g/L")).to.equal("105.0 g/L");
    expect(statText(0.375, "0%")).to.equal("38%");
    expect(statText(null)).to.equal("–");
    expect(statText("阴性")).to.equal("阴性");
  });

  it("shows ranges as from – to and null as (all)", () => {
    expect(paramText({ type: "dateRange" }, ["2026-01-01", "2026-03-31"])).to.equal("2026-01-01 – 2026-03-31");
    expect(paramText({ type: "dateRange" }, ["2026-01-01", null])).to.equal("2026-01-01 – …");
    expect(paramText({ type: "multiSelect" }, null)).to.equal("(all)");
    expect(paramText({ type: "multiSelect" }, ["A", "B"], new Map([["A", "东区"]]))).to.equal("东区, B");
    expect(paramText({ type: "boolean" }, false)).to.equal("no");
  });
});

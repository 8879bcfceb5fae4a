import { expect } from "chai";
import { reportSpecSchema } from "../../commands/reports/spec/specSchema.ts";
import { brokenOut, chartOption, type ChartNode, type ChartResult } from "../../src/reports/charts/chartOptions.ts";

/*
 * Issue #54: a chart's `series` breaks its rows out by a column's values — a month × ward query
 * became 38 unlabelled bars; it is a bar (or line) per ward over the months, with a legend.
 */

const monthByWard: ChartResult = {
  columns: ["month", "ward", "patients", "ktv"],
  columnTypes: ["date", "string", "integer", "number"],
  rows: [
    ["2026-01-01", "A", 12, 1.3],
    ["2026-01-01", "B", 9, 1.4],
    ["2026-02-01", "A", 13, 1.35],
    ["2026-02-01", "C", 4, 1.2],
    ["2026-03-01", "B", 10, 1.42],
  ],
};

const node = (overrides: Partial<ChartNode>): ChartNode => ({
  id: "byWard",
  type: "chart",
  chart: "bar",
  query: "monthly",
  x: "month",
  y: ["patients"],
  series: "ward",
  ...overrides,
});

// The option is a plain object; tests read it loosely.
interface PlottedSeries {
  type: string;
  name: string;
  data: unknown[];
  stack?: string;
  yAxisIndex?: number;
}
const loose = (value: unknown) => value as { xAxis: { data: string[] }; series: PlottedSeries[]; legend?: unknown };

describe("a chart broken out by a column (series, issue #54)", () => {
  it("draws one bar series per ward over each month once, gaps where a ward has no row, with a legend", () => {
    const option = loose(chartOption(node({}), monthByWard));
    // Each x the first of its month: labelled by the months (issue #54, one column one way of writing it).
    expect(option.xAxis.data).to.deep.equal(["2026-01", "2026-02", "2026-03"]);
    expect(option.series.map((s) => [s.type, s.name, s.data])).to.deep.equal([
      ["bar", "A", [12, 13, null]],
      ["bar", "B", [9, null, 10]],
      ["bar", "C", [null, 4, null]],
    ]);
    expect(option.legend).to.not.equal(undefined);
  });

  it("stacks the wards when asked, and draws several lines, each y column once per ward, named by both", () => {
    const stacked = loose(chartOption(node({ stacked: true }), monthByWard));
    expect(stacked.series.map((s) => s.stack)).to.deep.equal(["axis0", "axis0", "axis0"]);
    const lines = loose(
      chartOption(node({ chart: "line", y: ["patients"], y2: ["ktv"], labels: { ktv: "Kt/V" } }), monthByWard),
    );
    expect(lines.series.map((s) => [s.type, s.name, s.yAxisIndex ?? 0])).to.deep.equal([
      ["line", "A · patients", 0],
      ["line", "B · patients", 0],
      ["line", "C · patients", 0],
      ["line", "A · Kt/V", 1],
      ["line", "B · Kt/V", 1],
      ["line", "C · Kt/V", 1],
    ]);
  });

  it("knows the row of each ward and month (what a click on a bar drills into)", () => {
    expect(brokenOut(node({}), monthByWard)!.rowAt).to.deep.equal([
      [0, 2, null],
      [1, null, 4],
      [null, 3, null],
    ]);
    expect(brokenOut(node({ series: undefined }), monthByWard)).to.equal(null);
  });

  it("names a series column the result lacks, as it does a wrong x or y", () => {
    expect(() => chartOption(node({ series: "wards" }), monthByWard)).to.throw(
      'series column "wards" is not a column of query monthly',
    );
  });

  it("takes series in the spec as an additive member, refused on a pie or when it names x or a y column", () => {
    const spec = (chart: Record<string, unknown>) => ({
      version: 1,
      title: "By ward",
      params: [],
      queries: { monthly: { sql: "select 1" } },
      nodes: [{ id: "c", type: "chart", chart: "bar", query: "monthly", x: "month", y: ["patients"], ...chart }],
    });
    expect(reportSpecSchema.safeParse(spec({ series: "ward" })).success).to.equal(true);
    for (const [chart, words] of [
      [{ chart: "pie", series: "ward" }, "series applies to line, bar, area and scatter charts"],
      [{ series: "month" }, "series names the x column"],
      [{ series: "patients" }, "series names a plotted y column"],
      [{ series: "" }, "series"],
    ] as const) {
      const parsed = reportSpecSchema.safeParse(spec(chart));
      expect(parsed.success, JSON.stringify(chart)).to.equal(false);
      expect(JSON.stringify(parsed.error?.issues), JSON.stringify(chart)).to.include(words);
    }
  });
});

import { expect } from "chai";
import fc from "fast-check";
import type { ChartNode, ChartResult } from "../../src/reports/charts/chartOptions.ts";
import { thinChartRows } from "../../src/reports/charts/thinRows.ts";

const line: ChartNode = { id: "k", type: "chart", chart: "line", query: "q", x: "day", y: ["k"], y2: ["hgb"] };
const pie: ChartNode = { id: "p", type: "chart", chart: "pie", query: "q", x: "ward", y: ["n"] };

/** Days of potassium and hemoglobin: a calm wave, a spike, a dip and a gap. */
function days(count: number): ChartResult {
  const rows: unknown[][] = Array.from({ length: count }, (_, i) => [
    `d${i}`,
    4.5 + Math.sin(i / 9) / 2,
    110 + Math.cos(i / 13) * 5,
  ]);
  rows[777]![1] = 7.1; // the spike a nurse must see
  rows[1234]![2] = "80.5"; // exact decimals arrive as text
  for (let i = 1500; i < 1510; i++) rows[i]![1] = null; // no potassium for ten days
  return { columns: ["day", "k", "hgb"], columnTypes: ["string", "number", "number"], rows };
}

describe("thinning a chart's rows (src/reports/charts/thinRows)", () => {
  it("leaves a chart within the cap as it is", () => {
    const result = days(2000);
    expect(thinChartRows(line, result, 2000)).to.deep.equal({ result, thinning: null });
  });

  it("keeps at most the cap, the first and last rows, every extreme and a gap, in the rows' order", () => {
    const result = days(2000);
    const { result: thinned, thinning } = thinChartRows(line, result, 200);
    expect(thinning).to.deep.equal({ from: 2000, kept: thinned.rows.length });
    expect(thinned.rows.length).to.be.at.most(200).and.at.least(150);
    const kept = thinned.rows.map((row) => result.rows.indexOf(row));
    expect(kept, "in order, no row twice").to.deep.equal(
      [...kept].sort((a, b) => a - b).filter((r, i, all) => all.indexOf(r) === i),
    );
    expect(kept).to.include.members([0, 1999, 777, 1234]);
    expect(
      thinned.rows.some((row) => row[1] === null),
      "the ten days without potassium stay a gap",
    ).to.equal(true);
    expect(thinned.columns).to.deep.equal(result.columns);
  });

  it("holds the cap for any rows and series", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.option(fc.double({ noNaN: true })), fc.option(fc.integer())), {
          minLength: 1,
          maxLength: 600,
        }),
        fc.integer({ min: 10, max: 300 }),
        (values, cap) => {
          const result: ChartResult = {
            columns: ["day", "k", "hgb"],
            columnTypes: ["string", "number", "number"],
            rows: values.map(([k, hgb], i) => [i, k, hgb]),
          };
          const { result: thinned } = thinChartRows(line, result, cap);
          expect(thinned.rows.length).to.be.at.most(Math.max(cap, values.length <= cap ? values.length : 0));
          if (values.length > cap)
            expect([thinned.rows[0], thinned.rows.at(-1)]).to.deep.equal([result.rows[0], result.rows.at(-1)]);
        },
      ),
    );
  });

  it("draws a pie from its largest slices and one slice of the others' sum", () => {
    const rows = Array.from({ length: 30 }, (_, i) => [`ward ${i}`, i + 1]);
    const { result, thinning } = thinChartRows(
      pie,
      { columns: ["ward", "n"], columnTypes: ["string", "integer"], rows },
      10,
    );
    expect(thinning).to.deep.equal({ from: 30, kept: 9 });
    expect(result.rows.slice(0, 9).map((row) => row[0])).to.deep.equal(rows.slice(21).map((row) => row[0]));
    const othersSum = rows.slice(0, 21).reduce((sum, row) => sum + (row[1] as number), 0);
    expect(result.rows[9]).to.deep.equal(["Others (21)", othersSum]);
  });
});

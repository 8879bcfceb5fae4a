import { expect } from "chai";
import { reportSpecSchema } from "../../commands/reports/spec/specSchema.ts";
import { formattedCell, tableColumns } from "../../src/reports/charts/tableColumns.ts";
import { adequacySpec } from "../support/reports.ts";

describe("spec additions of issue #22: table columns, chart axes and lines", () => {
  const result = { columns: ["month", "ktv", "urr", "ward"], columnTypes: ["date", "number", "number", "string"] };

  it("shows a column named alone as before: its name, numbers right, the rest left", () => {
    const { shown, missing } = tableColumns(["ward", "ktv"], result);
    expect(shown.map(({ heading, align, index }) => ({ heading, align, index }))).to.deep.equal([
      { heading: "ward", align: "left", index: 3 },
      { heading: "ktv", align: "right", index: 1 },
    ]);
    expect(missing).to.deep.equal([]);
    expect(tableColumns(undefined, result).shown.map((view) => view.column)).to.deep.equal(result.columns);
  });

  it("heads a described column with its label and unit, aligns it as asked, and names a column the result lacks", () => {
    const { shown, missing } = tableColumns(
      [{ column: "urr", label: "URR", unit: "%", format: "number:1", align: "center" }, "nope"],
      result,
    );
    expect(shown).to.deep.equal([
      { column: "urr", index: 2, heading: "URR (%)", numeric: true, align: "center", format: "number:1" },
    ]);
    expect(missing).to.deep.equal(["nope"]);
  });

  it("formats numbers, per cents, days and moments, and leaves what the format does not fit as it comes", () => {
    expect(formattedCell(1234.5678, "number:2")).to.equal("1,234.57");
    expect(formattedCell("1.3", "number:0")).to.equal("1");
    expect(formattedCell(0.6534, "percent:1")).to.equal("65.3%");
    expect(formattedCell("2026-03-01T07:30:15", "date")).to.equal("2026-03-01");
    expect(formattedCell("2026-03-01T07:30:15", "datetime")).to.equal("2026-03-01 07:30");
    expect(formattedCell("阴性", "number:1")).to.equal("阴性");
    expect(formattedCell(null, "number:1")).to.equal("");
    expect(formattedCell(12.5, undefined)).to.equal("12.5");
  });

  it("takes a chart's second axis, labels, stacking and reference lines, and refuses them where they do not apply", () => {
    const chart = (extra: Record<string, unknown>) => ({
      ...adequacySpec,
      nodes: [{ id: "c", type: "chart", chart: "line", query: "monthly", x: "month", y: ["hgb"], ...extra }],
    });
    expect(
      reportSpecSchema.safeParse(
        chart({ y2: ["n"], yLabel: "g/L", y2Label: "results", refLines: [{ value: 110, label: "target" }] }),
      ).success,
    ).to.equal(true);
    const problems = (extra: Record<string, unknown>) =>
      JSON.stringify(reportSpecSchema.safeParse(chart(extra)).error?.issues ?? []);
    expect(problems({ chart: "pie", y2: ["n"] })).to.include(
      "y2 applies to line, bar and area charts, not to a pie chart",
    );
    expect(problems({ stacked: true })).to.include("stacked applies to bar and area charts, not to a line chart");
    expect(problems({ y2Label: "x" })).to.include("give y2 too");
    expect(problems({ refLines: [{ value: "1.2" }] })).to.include("value must be a number");
  });

  it("takes column objects in a spec, and says how to fix a wrong one at its path", () => {
    const withColumns = (columns: unknown[]) => ({
      ...adequacySpec,
      nodes: [{ id: "tbl", type: "table", query: "monthly", columns }],
    });
    expect(
      reportSpecSchema.safeParse(
        withColumns(["month", { column: "hgb", label: "Hb", unit: "g/L", format: "number:1", align: "right" }]),
      ).success,
    ).to.equal(true);
    const wrongFormat = reportSpecSchema.safeParse(withColumns([{ column: "hgb", format: "decimal" }]));
    expect(JSON.stringify(wrongFormat.error?.issues)).to.include(
      "format must be number:<decimals> or percent:<decimals>",
    );
    const typo = reportSpecSchema.safeParse(withColumns([{ column: "hgb", lable: "Hb" }]));
    expect(typo.success).to.equal(false);
    expect(JSON.stringify(typo.error?.issues)).to.include("lable");
  });
});

import { expect } from "chai";
import { columnCell, tableColumns } from "../../src/reports/charts/tableColumns.ts";
import { specProblems } from "../../commands/reports/spec/specSchema.ts";

/*
 * Issue #54: a table's numbers and dates formatted per column and in the reader's language — a
 * column's numbers all with one number of decimals (not 1.38 / 1.4 / 1.41), months as 2026-03 or
 * 2026年3月 rather than 2026-03-01.
 */

const result = {
  columns: ["month", "ktv", "patients", "year", "day"],
  columnTypes: ["date", "number", "integer", "integer", "date"],
  rows: [
    ["2026-01-01", 1.38, 12, 2026, "2026-01-05"],
    ["2026-02-01", 1.4, 14, 2026, "2026-02-01"],
    ["2026-03-01", "1.41", 9, 2026, null],
  ],
};

const cells = (lang: "zh" | "en", columns?: Array<string | { column: string; format?: string }>) => {
  const { shown } = tableColumns(columns, result);
  return result.rows.map((row) => shown.map((view) => columnCell(view, row[view.index], lang)));
};

describe("table cells formatted per column and language (src/reports/charts/tableColumns)", () => {
  it("writes a column's numbers with its most precise value's decimals, and a column of months as months", () => {
    expect(cells("en")).to.deep.equal([
      ["2026-01", "1.38", "12", "2026", "2026-01-05"],
      ["2026-02", "1.40", "14", "2026", "2026-02-01"],
      ["2026-03", "1.41", "9", "2026", ""],
    ]);
    expect(cells("zh").map((row) => row[0])).to.deep.equal(["2026年1月", "2026年2月", "2026年3月"]);
  });

  it("keeps a column's own format, and takes month as one", () => {
    expect(
      cells("zh", [
        { column: "ktv", format: "number:1" },
        { column: "day", format: "month" },
      ]),
    ).to.deep.equal([
      ["1.4", "2026年1月"],
      ["1.4", "2026年2月"],
      ["1.4", ""],
    ]);
    expect(specProblems({ version: 1, title: "t", params: [], queries: {}, nodes: [] })).to.deep.equal([]);
    const withMonth = {
      version: 1,
      title: "t",
      params: [],
      queries: { q: { sql: "select 1" } },
      nodes: [{ id: "t", type: "table", query: "q", columns: [{ column: "m", format: "month" }] }],
    };
    expect(specProblems(withMonth)).to.deep.equal([]);
  });

  it("says yes and no in the reader's words", () => {
    const { shown } = tableColumns(["flag"], { columns: ["flag"], columnTypes: ["boolean"], rows: [[true]] });
    expect([
      columnCell(shown[0]!, true, "zh"),
      columnCell(shown[0]!, false, "zh"),
      columnCell(shown[0]!, true, "en"),
    ]).to.deep.equal(["是", "否", "yes"]);
  });

  it("leaves a lone first of the month a date: it need not be a month", () => {
    const { shown } = tableColumns(["day"], { ...result, rows: [["", 0, 0, 0, "2026-02-01"]] });
    expect(columnCell(shown[0]!, "2026-02-01", "en")).to.equal("2026-02-01");
  });
});

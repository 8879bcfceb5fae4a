import { expect } from "chai";
import { auditSpec } from "../../../commands/reports/spec/audit.ts";

/*
 * Issue #54: the audit says when a node names a column its query does not return, and which column
 * it probably meant ("did you mean"), read from the query's own SQL, without a database.
 */

const spec = (
  nodes: unknown[],
  sql = "select date_trunc('month', collected_at)::date as month, ward, avg(std_value) as ktv, count(*) from lab_results group by 1, 2 order by 1",
) => ({
  params: [],
  queries: { monthly: { sql } },
  nodes: nodes as Array<{ id: string; type: string; query?: string }>,
});

describe("the audit's did-you-mean for a column a node names (issue #54)", () => {
  it("names the column the query does not return and the nearest one it does, at the node's member", async () => {
    const audit = await auditSpec(
      spec([
        { id: "c", type: "chart", chart: "bar", query: "monthly", x: "Month", y: ["ktvv", "count"], series: "wards" },
        { id: "s", type: "stat", query: "monthly", column: "average" },
        { id: "t", type: "table", query: "monthly", columns: ["month", { column: "wrad" }] },
      ]),
    );
    const found = audit.findings
      .filter((f) => f.rule === "unknown-column")
      .map(({ where, column, suggestion, severity }) => ({ where, column, suggestion, severity }));
    expect(found).to.deep.equal([
      { where: "nodes[0].x", column: "Month", suggestion: "month", severity: "medium" },
      { where: "nodes[0].series", column: "wards", suggestion: "ward", severity: "medium" },
      { where: "nodes[0].y[0]", column: "ktvv", suggestion: "ktv", severity: "medium" },
      { where: "nodes[1].column", column: "average", suggestion: null, severity: "medium" },
      { where: "nodes[2].columns[1].column", column: "wrad", suggestion: "ward", severity: "medium" },
    ]);
    expect(audit.findings.find((f) => f.where === "nodes[0].y[0]")!.message).to.equal(
      'Query "monthly" returns no column "ktvv"; did you mean "ktv"? Its columns are month, ward, ktv, count.',
    );
  });

  it("says nothing when the names are right, or when a * hides them", async () => {
    const right = await auditSpec(
      spec([{ id: "c", type: "chart", query: "monthly", x: "month", y: ["ktv"], series: "ward" }]),
    );
    expect(right.findings.filter((f) => f.rule === "unknown-column")).to.deep.equal([]);
    const star = await auditSpec(
      spec(
        [{ id: "c", type: "chart", query: "monthly", x: "anything", y: ["x"] }],
        "select * from patients order by 1",
      ),
    );
    expect(star.findings.filter((f) => f.rule === "unknown-column")).to.deep.equal([]);
  });
});

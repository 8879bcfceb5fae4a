import { expect } from "chai";
import { reportSpecSchema, specProblems, type HighlightRuleDef } from "../../commands/reports/spec/specSchema.ts";
import { statText } from "../../src/reports/charts/formatValue.ts";
import { conditionText, matchingRule, ruleMatches, rulesOfColumn } from "../../src/reports/charts/highlight.ts";
import { demoReports } from "../../src/demo/demoReports.ts";
import { highlightFormatting } from "../../src/reports/export/xlsxExport.ts";
import { adequacySpec } from "../support/reports.ts";

const pathsAndMessages = (spec: unknown) => specProblems(spec).map(({ path, message }) => ({ path, message }));

describe("spec additions of issue #22: conditional highlight and stat units", () => {
  const withNodes = (...nodes: unknown[]) => ({ ...adequacySpec, nodes });
  const table = (extra: Record<string, unknown>) => ({ id: "tbl", type: "table", query: "monthly", ...extra });
  const stat = (extra: Record<string, unknown>) => ({
    id: "kpi",
    type: "stat",
    query: "monthly",
    column: "hgb",
    ...extra,
  });

  describe("the spec", () => {
    it("takes highlight rules on tables and stats, and a stat's unit", () => {
      const spec = withNodes(
        table({
          highlight: [
            { column: "hgb", below: 100, tone: "danger" },
            { column: "hgb", between: [100, 110], tone: "warning" },
            { column: "n", above: 30, tone: "ok" },
          ],
        }),
        table({
          id: "listed",
          columns: ["month", { column: "hgb", label: "Hb" }],
          highlight: [{ column: "hgb", below: 110, tone: "warning" }],
        }),
        stat({
          unit: "g/L",
          format: "0.0",
          highlight: [
            { below: 110, tone: "warning" },
            { column: "hgb", above: 130, tone: "warning" },
          ],
        }),
      );
      expect(specProblems(spec)).to.deep.equal([]);
    });

    it("keeps every spec valid before: no highlight, no unit, a free-text stat format", () => {
      expect(specProblems(adequacySpec)).to.deep.equal([]);
      expect(specProblems(withNodes(stat({ format: "number:1" }), stat({ id: "b", format: "#,##0 %" })))).to.deep.equal(
        [],
      );
      for (const demo of demoReports(["2026-01-01", "2026-03-31"]))
        expect(specProblems(demo.spec), demo.id).to.deep.equal([]);
    });

    it("says at its path how to fix a wrong rule", () => {
      // Where and what to fix; each problem's code is test/commands/reports/specSchema.test.ts's.
      const problems = (...rules: unknown[]) =>
        pathsAndMessages(withNodes(table({ columns: ["month", "hgb"], highlight: rules })));
      expect(problems({ column: "hgb", tone: "danger" })).to.deep.equal([
        {
          path: "nodes[0].highlight[0]",
          message: "a highlight rule needs a condition: give one of below, above or between [lower, upper].",
        },
      ]);
      expect(problems({ column: "hgb", below: 1, above: 2, tone: "danger" })).to.deep.equal([
        {
          path: "nodes[0].highlight[0].above",
          message:
            "a highlight rule takes one condition, and this one has below and above: write one rule per " +
            "condition (the first rule that matches marks the value).",
        },
      ]);
      expect(problems({ column: "hgb", between: [130, 110], tone: "ok" })).to.deep.equal([
        {
          path: "nodes[0].highlight[0].between",
          message: "between must not end before it starts: write [lower, upper], e.g. [110, 130].",
        },
      ]);
      expect(problems({ column: "hgb", between: [110], tone: "ok" })[0]).to.deep.equal({
        path: "nodes[0].highlight[0].between",
        message: "between must be two numbers [lower, upper], e.g. [110, 130].",
      });
      expect(problems({ column: "hgb", below: "1.2", tone: "ok" })).to.deep.equal([
        { path: "nodes[0].highlight[0].below", message: "below must be a number, e.g. 1.2." },
      ]);
      expect(problems({ column: "hgb", below: 1.2, tone: "red" })).to.deep.equal([
        { path: "nodes[0].highlight[0].tone", message: "tone must be one of danger, warning, ok." },
      ]);
      expect(problems({ below: 1.2, tone: "ok" })).to.deep.equal([
        { path: "nodes[0].highlight[0].column", message: "column is required: send a string of 1 to 128 characters." },
      ]);
      expect(problems({ column: "n", below: 1.2, tone: "ok" })).to.deep.equal([
        {
          path: "nodes[0].highlight[0].column",
          message: 'column "n" is not a column this table shows: use one of month, hgb, or add it to columns.',
        },
      ]);
      expect(problems({ column: "hgb", under: 1.2, tone: "ok" })[0]!.path).to.equal("nodes[0].highlight[0].under");
      expect(problems(...Array.from({ length: 21 }, () => ({ column: "hgb", below: 1, tone: "ok" })))).to.deep.equal([
        { path: "nodes[0].highlight", message: "highlight may hold at most 20 rules." },
      ]);
    });

    it("lets a stat's rule name only the stat's own column, and bounds its unit", () => {
      expect(pathsAndMessages(withNodes(stat({ highlight: [{ column: "n", below: 1, tone: "ok" }] })))).to.deep.equal([
        {
          path: "nodes[0].highlight[0].column",
          message: "column of a stat's highlight rule must be the stat's column \"hgb\", or be left out.",
        },
      ]);
      expect(pathsAndMessages(withNodes(stat({ unit: "" })))).to.deep.equal([
        { path: "nodes[0].unit", message: "unit must not be empty: write at least one character." },
      ]);
    });

    it("types the parsed rules", () => {
      const parsed = reportSpecSchema.parse(
        withNodes(table({ highlight: [{ column: "hgb", between: [1, 2], tone: "ok" }] })),
      );
      const node = parsed.nodes[0]!;
      expect(node.type === "table" && node.highlight?.[0]?.between).to.deep.equal([1, 2]);
    });
  });

  describe("which tone a value gets", () => {
    const rules: HighlightRuleDef[] = [
      { column: "ktv", below: 1.2, tone: "danger" },
      { column: "ktv", below: 1.4, tone: "warning" },
      { column: "ktv", between: [1.4, 2], tone: "ok" },
      { column: "urr", above: 80, tone: "ok" },
    ];

    it("takes the first rule that matches: below and above strictly, between with both ends", () => {
      const ktv = rulesOfColumn(rules, "ktv");
      expect(ktv).to.have.length(3);
      expect(matchingRule(ktv, 1.1)?.tone).to.equal("danger");
      expect(matchingRule(ktv, 1.2)?.tone).to.equal("warning");
      expect(matchingRule(ktv, 1.4)?.tone).to.equal("ok");
      expect(matchingRule(ktv, 2)?.tone).to.equal("ok");
      expect(matchingRule(ktv, 2.01)).to.equal(undefined);
      expect(ruleMatches(rules[3]!, 80)).to.equal(false);
      expect(ruleMatches(rules[3]!, 80.5)).to.equal(true);
    });

    it("compares numbers only: a numeric string counts, null, text and booleans get no tone", () => {
      const ktv = rulesOfColumn(rules, "ktv");
      expect(matchingRule(ktv, "1.15")?.tone).to.equal("danger");
      for (const value of [null, undefined, "", "阴性", true, false])
        expect(matchingRule(ktv, value), String(value)).to.equal(undefined);
      expect(matchingRule(undefined, 1)).to.equal(undefined);
      expect(rulesOfColumn(undefined, "ktv")).to.deep.equal([]);
    });

    it("names a rule's condition", () => {
      expect(rules.map((rule) => conditionText(rule))).to.deep.equal([
        "below 1.2",
        "below 1.4",
        "1.4 to 2",
        "above 80",
      ]);
      expect(conditionText(rules[0]!, { below: "低于", above: "高于", to: "至" })).to.equal("低于 1.2");
    });

    it("leaves a stat's text as it was: the unit is shown beside it, not inside", () => {
      expect(statText(1.234, "0.0")).to.equal("1.2");
      expect(statText(0.653, "0.0%")).to.equal("65.3%");
    });
  });

  describe("as Excel conditional formatting", () => {
    it("covers the data rows of the column, numbers only, the rules in their order", () => {
      const formatting = highlightFormatting(27, 40, [
        { column: "ktv", below: 1.2, tone: "danger" },
        { column: "ktv", between: [1.2, 1.4], tone: "warning" },
      ])!;
      expect(formatting.ref).to.equal("AB2:AB41");
      expect(formatting.rules.map((rule) => (rule as { formulae: string[] }).formulae[0])).to.deep.equal([
        "AND(ISNUMBER(AB2),AB2<1.2)",
        "AND(ISNUMBER(AB2),AB2>=1.2,AB2<=1.4)",
      ]);
      expect(highlightFormatting(0, 0, [{ column: "ktv", above: 1, tone: "ok" }]), "no rows, nothing to mark").to.equal(
        null,
      );
      expect(highlightFormatting(0, 5, [])).to.equal(null);
    });
  });
});

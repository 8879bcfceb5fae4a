import { expect } from "chai";
import {
  exportEnabled,
  renderPath,
  reportSpecSchema,
  specProblems,
  stripSql,
  type ReportSpec,
} from "../../../commands/reports/spec/specSchema.ts";

/** The example of contract A.4, with the `…` of the drill SQL replaced by real SQL. */
function exampleSpec(): Record<string, any> {
  return {
    version: 1,
    title: "Dialysis adequacy",
    description: "markdown, optional",
    params: [
      { name: "period", label: "Period", type: "dateRange", default: ["2026-01-01", "2026-03-31"] },
      { name: "wards", label: "Wards", type: "multiSelect", options: { query: "wardList" }, default: null },
      { name: "minKtv", label: "Min Kt/V", type: "number", default: 1.2, required: true },
    ],
    queries: {
      wardList: { sql: "select distinct ward as value from patients order by 1" },
      monthly: {
        sql:
          "select date_trunc('month', collected_at)::date as month, avg(std_value) as ktv from lab_results where " +
          "std_code = 'KTV' and collected_at::date between {{period.from}} and {{period.to}} [[and ward = " +
          "any({{wards}})]] group by 1 order by 1",
      },
    },
    nodes: [
      { id: "intro", type: "text", markdown: "Monthly **Kt/V**" },
      {
        id: "trend",
        type: "chart",
        chart: "line",
        title: "Kt/V by month",
        query: "monthly",
        x: "month",
        y: ["ktv"],
        drill: { target: "byMonth", args: { month: "month" } },
      },
      { id: "tbl", type: "table", title: "Detail", query: "monthly" },
      { id: "kpi", type: "stat", title: "Average", query: "monthly", column: "ktv" },
    ],
    drills: {
      byMonth: {
        title: "Patients in {month}",
        args: [{ name: "month", type: "date" }],
        queries: {
          patients: {
            sql:
              "select p.patient_ref, p.name, p.ward, r.std_value as ktv, r.collected_at from lab_results r join " +
              "patients p using (patient_ref) where r.std_code = 'KTV' and date_trunc('month', " +
              "r.collected_at)::date = {{month}} order by r.collected_at",
          },
        },
      },
    },
    export: { xlsx: true, docx: true },
  };
}

const pathsOf = (spec: unknown) => specProblems(spec).map((p) => p.path);
const problemAt = (spec: unknown, path: string) => specProblems(spec).find((p) => p.path === path);

describe("report specification schema", () => {
  it("accepts the example of contract A.4 and keeps it as written", () => {
    const spec = exampleSpec();
    expect(specProblems(spec)).to.deep.equal([]);
    const parsed: ReportSpec = reportSpecSchema.parse(spec);
    expect(parsed).to.deep.equal(spec);
  });

  it("accepts a minimal spec and every node and param type", () => {
    const spec = {
      version: 1,
      title: "All kinds",
      params: [
        { name: "d", label: "Day", type: "date", default: "2024-02-29" },
        { name: "n", label: "N", type: "numberRange", default: [null, 5] },
        { name: "t", label: "Text", type: "text" },
        {
          name: "s",
          label: "One",
          type: "select",
          options: [
            { value: "a", label: "A" },
            { value: 2, label: "Two" },
          ],
          default: 2,
        },
        { name: "b", label: "Flag", type: "boolean", default: false },
        { name: "m", label: "Many", type: "multiSelect", options: [{ value: "x", label: "X" }], default: ["x"] },
      ],
      queries: { q: { sql: "select 1 as a" } },
      nodes: [
        { id: "c", type: "chart", chart: "scatter", query: "q", x: "a", y: ["a"], width: 12 },
        { id: "t-1", type: "table", query: "q", columns: ["a"], width: 1 },
        { id: "s", type: "stat", query: "q", column: "a", format: "0.0" },
      ],
    };
    expect(specProblems(spec)).to.deep.equal([]);
  });

  it("renders JSON paths with dots, brackets and quoted keys", () => {
    expect(renderPath(["queries", "monthly", "sql"])).to.equal("queries.monthly.sql");
    expect(renderPath(["nodes", 2, "query"])).to.equal("nodes[2].query");
    expect(renderPath(["queries", "my query"])).to.equal('queries["my query"]');
    expect(renderPath([])).to.equal("");
  });

  describe("member rules", () => {
    it("requires version 1", () => {
      const spec = { ...exampleSpec(), version: 2 };
      expect(problemAt(spec, "version")?.message).to.match(/^version must be 1/);
    });

    it("limits the title to 1–200 characters", () => {
      expect(pathsOf({ ...exampleSpec(), title: "" })).to.deep.equal(["title"]);
      expect(pathsOf({ ...exampleSpec(), title: "x".repeat(201) })).to.deep.equal(["title"]);
      expect(pathsOf({ ...exampleSpec(), title: "x".repeat(200) })).to.deep.equal([]);
    });

    it("names each missing top-level member", () => {
      expect(pathsOf({})).to.deep.equal(["version", "title", "params", "queries", "nodes"]);
      expect(specProblems({})[2]!.message).to.equal("params is required: send an array of params ([] for none).");
      // Its kind as a code a page words in its language (issue #54).
      expect(specProblems({})[2]!.code).to.equal("spec-required");
      expect(specProblems({ ...exampleSpec(), colour: "red" }).map((p) => [p.path, p.code])).to.deep.equal([
        ["colour", "spec-unknown-member"],
      ]);
      expect(specProblems("nope")).to.deep.equal([
        { path: "", message: "The specification must be a JSON object.", code: "spec-invalid" },
      ]);
    });

    it("points at an unknown member and lists the allowed ones", () => {
      const spec = exampleSpec();
      spec.params[2].defualt = 1;
      const problem = problemAt(spec, "params[2].defualt");
      expect(problem?.message).to.include('"defualt"').and.include("allowed: name, label, required, type, default");
    });

    it("refuses a bad param name, a duplicate name and an unknown type", () => {
      const spec = exampleSpec();
      spec.params[0].name = "1period";
      spec.params.push({ name: "wards", label: "Again", type: "text" });
      spec.params.push({ name: "colour", label: "Colour", type: "color" });
      expect(pathsOf(spec)).to.have.members(["params[0].name", "params[3].name", "params[4].type"]);
      expect(problemAt(spec, "params[3].name")?.message).to.equal(
        'name "wards" is already used by params[1]: give each param its own name.',
      );
      expect(problemAt(spec, "params[4].type")?.message).to.include("dateRange").and.include("multiSelect");
    });

    it("checks each default against its param type", () => {
      const spec = exampleSpec();
      spec.params = [
        { name: "a", label: "A", type: "date", default: "2026-02-30" },
        { name: "b", label: "B", type: "dateRange", default: ["2026-01-01"] },
        { name: "c", label: "C", type: "dateRange", default: ["2026-03-01", "2026-01-01"] },
        { name: "d", label: "D", type: "number", default: "1.2" },
        { name: "e", label: "E", type: "multiSelect", options: [{ value: "x", label: "X" }], default: "x" },
        { name: "f", label: "F", type: "boolean", default: "true" },
        { name: "g", label: "G", type: "select", options: [{ value: "x", label: "X" }], default: "y" },
        { name: "h", label: "H", type: "numberRange", default: [1, null] },
        { name: "i", label: "I", type: "text", default: null, required: true },
      ];
      spec.queries = { monthly: spec.queries.monthly };
      expect(pathsOf(spec)).to.have.members([
        "params[0].default",
        "params[1].default",
        "params[2].default",
        "params[3].default",
        "params[4].default",
        "params[5].default",
        "params[6].default",
        "params[8].default",
      ]);
      expect(problemAt(spec, "params[1].default")?.message).to.equal(
        "default must be a two-element array [from, to] of yyyy-MM-dd dates or null (either end may be null).",
      );
      expect(problemAt(spec, "params[0].default")?.message).to.include("real calendar date");
      expect(problemAt(spec, "params[2].default")?.message).to.include("must not end before it starts");
      expect(problemAt(spec, "params[6].default")?.message).to.include("among the option values");
      expect(problemAt(spec, "params[8].default")?.message).to.include("required");
    });

    it("requires options on select params and allows them nowhere else", () => {
      const spec = exampleSpec();
      spec.params.push({ name: "s", label: "S", type: "select" });
      spec.params.push({ name: "t", label: "T", type: "text", options: [{ value: "a", label: "A" }] });
      expect(pathsOf(spec)).to.have.members(["params[3].options", "params[4].options"]);
    });

    it("reports the member of a bad option inside a list", () => {
      const spec = exampleSpec();
      spec.params[1].options = [{ value: "3A", label: "Ward 3A" }, { value: "3B" }];
      expect(pathsOf(spec)).to.deep.equal(["params[1].options[1].label"]);
    });

    it("checks query names and SQL length", () => {
      const spec = exampleSpec();
      spec.queries["my query"] = { sql: "select 1" };
      spec.queries.monthly.sql = "";
      spec.queries.wardList.sql = "x".repeat(100_001);
      expect(pathsOf(spec)).to.have.members(['queries["my query"]', "queries.monthly.sql", "queries.wardList.sql"]);
      expect(problemAt(spec, "queries.monthly.sql")?.message).to.equal(
        "sql must not be empty: write one select statement.",
      );
    });

    it("checks nodes: unique ids, known types, width 1–12, chart kinds, at least one y", () => {
      const spec = exampleSpec();
      spec.nodes.push({ id: "tbl", type: "table", query: "monthly" });
      spec.nodes.push({ id: "x", type: "map", query: "monthly" });
      spec.nodes.push({ id: "c", type: "chart", chart: "donut", query: "monthly", x: "month", y: [], width: 13 });
      spec.nodes.push({ id: "k", type: "stat", query: "monthly" });
      expect(pathsOf(spec)).to.have.members([
        "nodes[4].id",
        "nodes[5].type",
        "nodes[6].chart",
        "nodes[6].y",
        "nodes[6].width",
        "nodes[7].column",
      ]);
      expect(problemAt(spec, "nodes[4].id")?.message).to.equal(
        'id "tbl" is already used by nodes[2]: give each node its own id.',
      );
      expect(problemAt(spec, "nodes[7].column")?.message).to.match(/^column is required/);
    });

    it("checks drills: arg types, duplicate args, title placeholders, at least one query; an arg may take a param's name", () => {
      const spec = exampleSpec();
      spec.drills.other = {
        title: "Ward {ward}",
        args: [
          { name: "w", type: "date" },
          { name: "w", type: "colour" },
        ],
        queries: {},
      };
      expect(pathsOf(spec)).to.have.members([
        "drills.other.args[1].type",
        "drills.other.args[1].name",
        "drills.other.queries",
        "drills.other.title",
      ]);
      expect(problemAt(spec, "drills.other.title")?.message).to.equal(
        "title refers to {ward}, which is not an arg of this drill: use one of {w}.",
      );
      delete spec.drills.other;
      spec.drills.byMonth.args.push({ name: "month", type: "text" });
      spec.drills.byMonth.args.push({ name: "period", type: "date" });
      expect(pathsOf(spec), "a duplicate arg is refused, an arg named like the param period is not").to.deep.equal([
        "drills.byMonth.args[1].name",
      ]);
    });

    it("checks export switches", () => {
      expect(pathsOf({ ...exampleSpec(), export: { xlsx: "no" } })).to.deep.equal(["export.xlsx"]);
      expect(pathsOf({ ...exampleSpec(), export: { pdf: true } })).to.deep.equal(["export.pdf"]);
      expect(exportEnabled(exampleSpec() as ReportSpec, "xlsx")).to.equal(true);
      expect(exportEnabled({ export: { docx: false } }, "docx")).to.equal(false);
      expect(exportEnabled({ export: { docx: false } }, "xlsx")).to.equal(true);
      expect(exportEnabled({}, "docx")).to.equal(true);
    });
  });

  describe("cross-references", () => {
    it("a node's query must be a query of the spec", () => {
      const spec = exampleSpec();
      spec.nodes[2].query = "monthlyy";
      expect(specProblems(spec)).to.deep.equal([
        {
          path: "nodes[2].query",
          message: 'query "monthlyy" is not a query of this report: use one of wardList, monthly.',
          code: "spec-invalid",
        },
      ]);
    });

    it("an option list query must be a query of the spec", () => {
      const spec = exampleSpec();
      spec.params[1].options.query = "wards";
      expect(pathsOf(spec)).to.deep.equal(["params[1].options.query"]);
    });

    it("a node's drill target must be a key of drills", () => {
      const spec = exampleSpec();
      spec.nodes[1].drill.target = "byWeek";
      expect(specProblems(spec)).to.deep.equal([
        {
          path: "nodes[1].drill.target",
          message: 'target "byWeek" is not a key of drills: use one of byMonth.',
          code: "spec-invalid",
        },
      ]);
      delete spec.drills;
      expect(problemAt(spec, "nodes[1].drill.target")?.message).to.include("declare it under drills first");
    });

    it("a node's drill args must be declared args of the target", () => {
      const spec = exampleSpec();
      spec.nodes[1].drill.args = { month: "month", ward: "ward" };
      expect(specProblems(spec)).to.deep.equal([
        {
          path: "nodes[1].drill.args.ward",
          message: '"ward" is not an arg of drill byMonth: use only month.',
          code: "spec-invalid",
        },
      ]);
    });

    it("a drill node's query must be a query of that drill, not of the report", () => {
      const spec = exampleSpec();
      spec.drills.byMonth.nodes = [
        { id: "list", type: "table", query: "patients" },
        { id: "bad", type: "table", query: "monthly" },
      ];
      expect(specProblems(spec)).to.deep.equal([
        {
          path: "drills.byMonth.nodes[1].query",
          message: 'query "monthly" is not a query of drill byMonth: use one of patients.',
          code: "spec-invalid",
        },
      ]);
    });

    it("reports cross-reference problems together with shape problems", () => {
      const spec = exampleSpec();
      spec.title = "";
      spec.nodes[3].query = "nope";
      expect(pathsOf(spec)).to.have.members(["title", "nodes[3].query"]);
    });
  });

  it("every problem message is a sentence", () => {
    const spec = exampleSpec();
    spec.version = 3;
    spec.nodes[0].width = 0;
    spec.nodes[1].drill.target = "x";
    spec.queries.monthly = { sql: 1 };
    spec.export = "yes";
    const problems = specProblems(spec);
    expect(problems.length).to.be.greaterThan(3);
    for (const { message } of problems) {
      expect(message).to.match(/^\S.*\.$/);
      expect(message).not.to.match(/Invalid input|expected/);
    }
  });

  describe("stripSql", () => {
    it("removes every sql member and keeps query names, without touching the original", () => {
      const spec = reportSpecSchema.parse(exampleSpec());
      const stripped = stripSql(spec);
      expect(stripped.queries).to.deep.equal({ wardList: {}, monthly: {} });
      expect(stripped.drills!.byMonth!.queries).to.deep.equal({ patients: {} });
      expect(JSON.stringify(stripped)).not.to.include("sql").and.not.to.include("select");
      expect(stripped.params).to.deep.equal(spec.params);
      expect(stripped.nodes).to.deep.equal(spec.nodes);
      expect(stripped.drills!.byMonth!.title).to.equal("Patients in {month}");
      expect(spec.queries.monthly!.sql).to.include("select");
      expect(spec.drills!.byMonth!.queries.patients!.sql).to.include("select");
    });

    it("works on a spec without drills", () => {
      const spec = exampleSpec();
      delete spec.drills;
      spec.nodes[1].drill = undefined;
      delete spec.nodes[1].drill;
      const stripped = stripSql(reportSpecSchema.parse(spec));
      expect(stripped).not.to.have.property("drills");
      expect(stripped.queries).to.deep.equal({ wardList: {}, monthly: {} });
    });
  });
});

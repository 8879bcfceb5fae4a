import { expect } from "chai";
import { specProblems } from "../../commands/reports/spec/specSchema.ts";
import { nearest, parsePath, problemsOf, setAt, valueAt } from "../../web/staff/editor/specPaths.ts";

/* The report editor reads the JSON paths of the service's sentences to show each problem where it points. */

describe("the report editor's JSON paths (web/staff/editor/specPaths.ts)", () => {
  it("reads every path the spec check writes, back to the member it names", () => {
    const spec = {
      version: 1,
      title: "T",
      params: [{ name: "p", label: "", type: "date" }],
      queries: { "bad-name": { sql: "" } },
      nodes: [{ id: "x y", type: "table", query: "q" }],
    };
    const problems = specProblems(spec);
    expect(problems.length).to.be.greaterThan(2);
    for (const problem of problems) {
      const path = parsePath(problem.path);
      expect(path, problem.path).to.not.equal(null);
      expect(valueAt(spec, path!.slice(0, -1)), `${problem.path} leads into the spec`).to.not.equal(undefined);
    }
    expect(parsePath('spec.queries["bad-name"].sql')).to.deep.equal(["queries", "bad-name", "sql"]);
    expect(parsePath("nodes[0].drill.target")).to.deep.equal(["nodes", 0, "drill", "target"]);
    expect(parsePath("nodes[0] and more")).to.equal(null);
  });

  it("splits a 400 sentence into its problems, each with its path", () => {
    const sentence =
      'spec.nodes[0].id: id must be 1 to 64 letters, digits, _ or -, e.g. trend. spec.queries["a b"]: The name ' +
      '"a b" is not allowed: use letters. spec.params[1].label: label must be 1 to 200 characters.';
    expect(problemsOf(sentence)).to.deep.equal([
      { path: ["nodes", 0, "id"], message: "id must be 1 to 64 letters, digits, _ or -, e.g. trend." },
      { path: ["queries", "a b"], message: 'The name "a b" is not allowed: use letters.' },
      { path: ["params", 1, "label"], message: "label must be 1 to 200 characters." },
    ]);
    expect(problemsOf("datasource lab is not configured; use one of clinical.")).to.deep.equal([
      { path: null, message: "datasource lab is not configured; use one of clinical." },
    ]);
  });

  it("writes and removes members, and finds the nearest place a problem can be shown", () => {
    const spec: Record<string, unknown> = { nodes: [{ id: "a" }] };
    setAt(spec, ["nodes", 0, "drill", "target"], "byMonth");
    expect(spec.nodes).to.deep.equal([{ id: "a", drill: { target: "byMonth" } }]);
    setAt(spec, ["nodes", 0, "drill"], undefined);
    expect(spec.nodes).to.deep.equal([{ id: "a" }]);
    const shown = new Set(["nodes[0]", "nodes[0].query"]);
    expect(nearest(["nodes", 0, "drill", "args", "month"], (path) => shown.has(path))).to.equal("nodes[0]");
    expect(nearest(["params", 3], (path) => shown.has(path))).to.equal(null);
  });
});

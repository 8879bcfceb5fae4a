import { expect } from "chai";
import {
  auditSpec,
  placeholderNames,
  scoreFindings,
  summariseAudit,
  templateToSql,
  type AuditableSpec,
  type Finding,
  type Severity,
} from "../../../commands/reports/spec/audit.ts";

// A spec that breaks no rule: every param, query and drill arg is used, the table is ordered.
function cleanSpec(): AuditableSpec {
  return {
    params: [
      { name: "period", type: "dateRange" },
      { name: "wards", type: "multiSelect", options: { query: "wardList" } },
    ],
    queries: {
      wardList: { sql: "select distinct ward as value from patients order by 1" },
      monthly: {
        sql:
          "select date_trunc('month', collected_at)::date as month, avg(std_value) as ktv from lab_results " +
          "where std_code = 'KTV' and collected_at::date between {{period.from}} and {{period.to}} " +
          "[[and ward = any({{wards}})]] group by 1 order by 1",
      },
    },
    nodes: [
      { id: "trend", type: "chart", query: "monthly", drill: { target: "byMonth", args: { month: "month" } } },
      { id: "tbl", type: "table", query: "monthly" },
    ],
    drills: {
      byMonth: {
        args: [{ name: "month", type: "date" }],
        queries: {
          patients: {
            sql:
              "select p.patient_ref, p.name from lab_results r join patients p on p.patient_ref = r.patient_ref " +
              "where date_trunc('month', r.collected_at)::date = {{month}} order by p.name",
          },
        },
      },
    },
  };
}

/** The clean spec with its ward list query replaced by `sql`. */
function specWithWardList(sql: string): AuditableSpec {
  const spec = cleanSpec();
  spec.queries.wardList!.sql = sql;
  return spec;
}

/** The one finding of `rule` in the audit of `spec`: there must be exactly one. */
async function theFinding(spec: AuditableSpec, rule: string): Promise<Finding> {
  const found = only((await auditSpec(spec)).findings, rule);
  expect(found).to.have.length(1);
  return found[0]!;
}

function rules(findings: Finding[]): string[] {
  return findings.map((f) => f.rule);
}

function only(findings: Finding[], rule: string): Finding[] {
  return findings.filter((f) => f.rule === rule);
}

function finding(severity: Severity): Finding {
  return { rule: "x", severity, where: "queries.x", message: "Fix it." };
}

describe("report spec audit", () => {
  describe("scoring", () => {
    it("gives a spec with no findings 100, grade A and highest none", async () => {
      const audit = await auditSpec(cleanSpec());
      expect(audit.findings).to.deep.equal([]);
      expect(audit).to.include({ score: 100, grade: "A", highest: "none" });
    });

    it("subtracts 20 per high, 10 per medium and 5 per low: 1 high + 2 medium + 1 low is 55, grade F, highest high", () => {
      const s = scoreFindings([finding("medium"), finding("low"), finding("high"), finding("medium")]);
      expect(s).to.deep.equal({ score: 55, grade: "F", highest: "high" });
    });

    it("subtracts 40 per critical, never goes below 0, and counts info for nothing", () => {
      expect(scoreFindings([finding("critical")])).to.deep.equal({ score: 60, grade: "D", highest: "critical" });
      expect(scoreFindings([finding("critical"), finding("critical"), finding("critical")]).score).to.equal(0);
      expect(scoreFindings([finding("info"), finding("info")])).to.deep.equal({
        score: 100,
        grade: "A",
        highest: "info",
      });
    });

    it("puts the grade boundaries at 90, 80, 70 and 60", () => {
      const lows = (n: number) => Array.from({ length: n }, () => finding("low"));
      expect(scoreFindings(lows(2)).grade).to.equal("A"); // 90
      expect(scoreFindings(lows(3)).grade).to.equal("B"); // 85
      expect(scoreFindings(lows(4)).grade).to.equal("B"); // 80
      expect(scoreFindings(lows(6)).grade).to.equal("C"); // 70
      expect(scoreFindings(lows(8)).grade).to.equal("D"); // 60
      expect(scoreFindings(lows(9)).grade).to.equal("F"); // 55
    });

    it("scores a real spec mixing 1 high, 2 medium and 1 low findings as 55 / F / high", async () => {
      const spec = cleanSpec();
      spec.queries.monthly!.sql = spec.queries.monthly!.sql!.replace("avg(std_value)", "avg(std_value) + random() * 0");
      spec.queries.wardList!.sql = "select * from patients order by 1";
      spec.drills!.byMonth!.args = [
        { name: "month", type: "date" },
        { name: "ward", type: "text" },
        { name: "bed", type: "text" },
      ];
      const audit = await auditSpec(spec);
      expect(rules(audit.findings).sort()).to.deep.equal(
        ["select-star", "unused-drill-arg", "unused-drill-arg", "volatile-function"].sort(),
      );
      expect(audit).to.include({ score: 55, grade: "F", highest: "high" });
      expect(audit.findings.map((f) => f.severity)).to.deep.equal(["high", "medium", "medium", "low"]);
    });

    it("summariseAudit turns the findings into a count for the version entry", async () => {
      const spec = specWithWardList("select * from patients order by 1");
      spec.queries.spare = { sql: "select 1" };
      const audit = await auditSpec(spec);
      expect(summariseAudit(audit)).to.deep.equal({ score: 95, grade: "A", findings: 2, highest: "low" });
    });
  });

  describe("select-star", () => {
    it("flags select * as low and scores the spec 95", async () => {
      const spec = specWithWardList("select * from patients order by 1");
      const audit = await auditSpec(spec);
      expect(audit.findings).to.have.length(1);
      expect(audit.findings[0]).to.include({ rule: "select-star", severity: "low", where: "queries.wardList" });
      expect(audit).to.include({ score: 95, grade: "A", highest: "low" });
    });

    it("counts a qualified t.* as select-star", async () => {
      const spec = specWithWardList("select p.*, 1 as x from patients p order by 1");
      expect(only((await auditSpec(spec)).findings, "select-star")).to.have.length(1);
    });

    it("flags a star in either arm of a UNION and names the drill query", async () => {
      const spec = cleanSpec();
      spec.drills!.byMonth!.queries.patients!.sql =
        "select name from patients where {{month}} is not null union all select * from patients order by 1";
      const found = only((await auditSpec(spec)).findings, "select-star");
      expect(found.map((f) => f.where)).to.deep.equal(["drills.byMonth.queries.patients"]);
    });

    it("ignores count(*) and a star that only appears inside a subquery", async () => {
      const spec = specWithWardList(
        "select ward as value, count(*) as n from (select * from patients) s group by ward order by 1",
      );
      expect(rules((await auditSpec(spec)).findings)).to.not.include("select-star");
    });

    it("does not mistake a string literal '*' or a column named star for a star", async () => {
      const spec = specWithWardList("select '*' as value, ward as \"select *\" from patients order by 1");
      expect((await auditSpec(spec)).findings).to.deep.equal([]);
    });
  });

  describe("unused declarations", () => {
    it("flags a param that no query references, at params[i]", async () => {
      const spec = cleanSpec();
      spec.params!.push({ name: "minKtv", type: "number" });
      const found = await theFinding(spec, "unused-param");
      expect(found).to.include({ severity: "low", where: "params[2]" });
      expect(found.message).to.contain("minKtv");
    });

    it("counts {{name.from}} and {{name.to}} as uses of a range param, and a use in a drill query as a use", async () => {
      const spec = cleanSpec();
      spec.params!.push({ name: "onlyInDrill", type: "text" });
      spec.drills!.byMonth!.queries.patients!.sql += " limit {{onlyInDrill}}";
      expect(rules((await auditSpec(spec)).findings)).to.not.include("unused-param");
    });

    it("flags a top-level query that no node and no option list uses as info, at queries.<name>", async () => {
      const spec = cleanSpec();
      spec.queries.spare = { sql: "select 1 as one" };
      const audit = await auditSpec(spec);
      expect(audit.findings).to.have.length(1);
      expect(audit.findings[0]).to.include({ rule: "unused-query", severity: "info", where: "queries.spare" });
      expect(audit).to.include({ score: 100, highest: "info" });
    });

    it("counts a query used only as a param's option list as used, and never flags drill queries", async () => {
      const spec = cleanSpec();
      expect(spec.nodes!.some((n) => n.query === "wardList")).to.equal(false);
      expect(rules((await auditSpec(spec)).findings)).to.not.include("unused-query");
    });

    it("flags a drill arg that none of the drill's queries references as medium, at drills.<key>.args[i]", async () => {
      const spec = cleanSpec();
      spec.drills!.byMonth!.args!.push({ name: "ward", type: "text" });
      const found = await theFinding(spec, "unused-drill-arg");
      expect(found).to.include({ severity: "medium", where: "drills.byMonth.args[1]" });
    });

    it("notes a drill arg named like a param as info at drills.<key>.args[i], and the param it shadows as unused when only that drill names it", async () => {
      const spec = cleanSpec();
      spec.params!.push({ name: "month", type: "text" });
      const audit = await auditSpec(spec);
      const shadowing = only(audit.findings, "drill-arg-shadows-param");
      expect(shadowing).to.have.length(1);
      expect(shadowing[0]).to.include({ severity: "info", where: "drills.byMonth.args[0]" });
      expect(shadowing[0]!.message).to.contain('"month"').and.contain("clicked row's value");
      expect(
        only(audit.findings, "unused-param").map((f) => f.where),
        "{{month}} in the drill is the arg, so the param month is used nowhere",
      ).to.deep.equal(["params[2]"]);
    });

    it("does not count a drill arg used only in a top-level query as used by the drill", async () => {
      const spec = cleanSpec();
      spec.drills!.byMonth!.args!.push({ name: "period", type: "text" });
      const found = only((await auditSpec(spec)).findings, "unused-drill-arg");
      expect(found.map((f) => f.where)).to.deep.equal(["drills.byMonth.args[1]"]);
    });
  });

  describe("volatile-function", () => {
    it("finds pg_sleep inside a subquery and reports it as high", async () => {
      const spec = specWithWardList(
        "select ward as value from patients where exists (select 1 from (select pg_sleep(5)) s) order by 1",
      );
      const found = await theFinding(spec, "volatile-function");
      expect(found).to.include({ severity: "high", where: "queries.wardList" });
      expect(found.message).to.contain("pg_sleep()");
    });

    it("finds schema-qualified calls, calls inside a CTE, dblink* and lo_* functions, one finding per query", async () => {
      const spec = specWithWardList(
        "with x as (select pg_catalog.random() as r, dblink_connect('x') as c) " +
          "select lo_import('/etc/passwd')::text as value from x order by 1",
      );
      const found = await theFinding(spec, "volatile-function");
      for (const fn of ["random()", "dblink_connect()", "lo_import()"]) expect(found.message).to.contain(fn);
    });

    it("leaves stable functions such as now() and a column called random alone", async () => {
      const spec = specWithWardList("select ward as value, now() as t, random from patients order by 1");
      expect(rules((await auditSpec(spec)).findings)).to.not.include("volatile-function");
    });
  });

  describe("personal-identifier", () => {
    it("flags an explicit id_card column as medium", async () => {
      const spec = specWithWardList("select p.id_card, ward as value from people p order by 2");
      const found = await theFinding(spec, "personal-identifier");
      expect(found).to.include({ severity: "medium", where: "queries.wardList" });
    });

    it("flags a column aliased id_card and a star over a derived table that returns id_card", async () => {
      const spec = specWithWardList("select national_no as id_card from people order by 1");
      spec.queries.monthly!.sql =
        "with c as (select id_card from people) select s.* from (select * from c) s where {{period.from}} is " +
        "null and {{period.to}} is null and {{wards}} is null order by 1";
      const found = only((await auditSpec(spec)).findings, "personal-identifier");
      expect(found.map((f) => f.where)).to.deep.equal(["queries.wardList", "queries.monthly"]);
    });

    it("does not flag id_card used only in WHERE, in an aggregate, or in a star over the clinical relations", async () => {
      const spec = specWithWardList(
        "select count(distinct id_card) as n, ward as value from people where id_card is not null group by ward order by 2",
      );
      spec.queries.monthly!.sql =
        "select p.* from patients p where {{period.from}} is null and {{period.to}} is null and {{wards}} is null order by 1";
      expect(rules((await auditSpec(spec)).findings)).to.not.include("personal-identifier");
    });
  });

  describe("table-unordered", () => {
    it("flags a table node whose query has no ORDER BY as info, at nodes[i]", async () => {
      const spec = cleanSpec();
      spec.queries.monthly!.sql = spec.queries.monthly!.sql!.replace(" order by 1", "");
      const found = await theFinding(spec, "table-unordered");
      expect(found).to.include({ severity: "info", where: "nodes[1]" });
    });

    it("still counts a query as unordered when ORDER BY appears only inside a subquery", async () => {
      const spec = cleanSpec();
      spec.queries.monthly!.sql =
        "select month, ktv from (select collected_at::date as month, std_value as ktv from lab_results " +
        "where collected_at::date between {{period.from}} and {{period.to}} [[and ward = any({{wards}})]] order by 1) s";
      expect(only((await auditSpec(spec)).findings, "table-unordered").map((f) => f.where)).to.deep.equal(["nodes[1]"]);
    });

    it("accepts an ORDER BY that applies to a whole UNION, and ignores chart nodes", async () => {
      const spec = cleanSpec();
      spec.queries.monthly!.sql =
        "select {{period.from}}::date as month, 1 as ktv union all select {{period.to}}::date, 2 " +
        "[[where {{wards}} is not null]] order by 1";
      expect((await auditSpec(spec)).findings).to.deep.equal([]);
    });

    it("checks table nodes of a drill against the drill's own queries", async () => {
      const spec = cleanSpec();
      const drill = spec.drills!.byMonth!;
      drill.queries.patients!.sql = drill.queries.patients!.sql!.replace(" order by p.name", "");
      drill.nodes = [{ id: "list", type: "table", query: "patients" }];
      expect(only((await auditSpec(spec)).findings, "table-unordered").map((f) => f.where)).to.deep.equal([
        "drills.byMonth.nodes[0]",
      ]);
    });
  });

  describe("cross-join", () => {
    it("flags two tables in one FROM with no condition linking them as medium", async () => {
      const spec = specWithWardList(
        "select p.ward as value from patients p, lab_results r where r.std_code = 'KTV' order by 1",
      );
      const found = await theFinding(spec, "cross-join");
      expect(found).to.include({ severity: "medium", where: "queries.wardList" });
    });

    it("does not take a comparison with a subquery or a condition inside EXISTS as the join condition", async () => {
      const spec = specWithWardList(
        "select p.ward as value from patients p, lab_results r where p.ward = (select max(ward) from patients) order by 1",
      );
      spec.queries.other = {
        sql:
          "select p.ward from patients p, lab_results r " +
          "where exists (select 1 from exam_reports e where e.patient_ref = p.patient_ref) order by 1",
      };
      spec.nodes!.push({ id: "other", type: "table", query: "other" });
      const found = only((await auditSpec(spec)).findings, "cross-join");
      expect(found.map((f) => f.where)).to.deep.equal(["queries.wardList", "queries.other"]);
    });

    it("accepts a join condition written through functions such as lower(a.x) = lower(b.y)", async () => {
      const spec = specWithWardList(
        "select p.ward as value from patients p, lab_results r where lower(r.patient_ref) = lower(p.patient_ref) order by 1",
      );
      expect(rules((await auditSpec(spec)).findings)).to.not.include("cross-join");
    });

    it("accepts comma joins with a join condition, explicit CROSS JOIN, and a single-row CTE", async () => {
      const spec = specWithWardList(
        "select p.ward as value from patients p, lab_results r where r.patient_ref = p.patient_ref order by 1",
      );
      spec.queries.extra = {
        sql:
          "with total as (select count(*) as n from patients) " +
          "select p.ward, t.n from patients p cross join lab_results r, total t order by 1",
      };
      spec.nodes!.push({ id: "extra", type: "table", query: "extra" });
      expect((await auditSpec(spec)).findings).to.deep.equal([]);
    });
  });

  describe("SQL that is not a clean SELECT", () => {
    it("reports SQL that does not parse as sql-syntax (high) without echoing the query", async () => {
      const spec = specWithWardList("selec secret_column frm patients");
      const found = await theFinding(spec, "sql-syntax");
      expect(found).to.include({ severity: "high", where: "queries.wardList" });
      expect(found.message).to.contain("syntax error");
      expect(found.message).to.not.contain("secret_column");
    });

    it("reports an empty query as sql-syntax", async () => {
      const spec = specWithWardList("  [[ ]] ");
      expect(only((await auditSpec(spec)).findings, "sql-syntax")).to.have.length(1);
    });

    it("reports a writing statement, a data-modifying CTE and two statements as not-read-only (critical)", async () => {
      const spec = cleanSpec();
      spec.queries.a = { sql: "delete from patients" };
      spec.queries.b = { sql: "with d as (delete from patients returning ward) select ward from d order by 1" };
      spec.queries.c = { sql: "select 1; select 2" };
      spec.queries.d = { sql: "select ward from patients order by 1 for update" };
      for (const q of ["a", "b", "c", "d"]) spec.nodes!.push({ id: q, type: "stat", query: q });
      const found = only((await auditSpec(spec)).findings, "not-read-only");
      expect(found.map((f) => f.where)).to.deep.equal(["queries.a", "queries.b", "queries.c", "queries.d"]);
      expect(found.every((f) => f.severity === "critical")).to.equal(true);
    });
  });

  describe("templates", () => {
    it("turns placeholders into NULL and drops the optional-clause brackets before parsing", () => {
      expect(templateToSql("a = {{x}} [[and b = {{y.from}}]]")).to.equal("a = NULL  and b = NULL ");
      expect(templateToSql("a = '{{1,2},{3,4}}'::int[]")).to.equal("a = '{{1,2},{3,4}}'::int[]");
    });

    it("reads the placeholder names, range ends included", () => {
      expect([...placeholderNames("{{a}} {{ b.from }} {{b.to}} {{c.other}}")]).to.deep.equal(["a", "b"]);
    });

    it("reports each of two queries whose SQL is identical (parsed once, reported twice)", async () => {
      const spec = cleanSpec();
      spec.queries.one = { sql: "select * from patients order by 1" };
      spec.queries.two = { sql: "select * from patients order by 1" };
      spec.nodes!.push({ id: "one", type: "table", query: "one" }, { id: "two", type: "table", query: "two" });
      const found = only((await auditSpec(spec)).findings, "select-star");
      expect(found.map((f) => f.where)).to.deep.equal(["queries.one", "queries.two"]);
    });
  });

  describe("queries tried when the draft was saved (query-fails, query-untried)", () => {
    it("counts a query that failed as high, at its place, with the database's sentence and where it points", async () => {
      const audit = await auditSpec(cleanSpec(), [
        { query: "queries.wardList", outcome: "ok" },
        { query: "queries.monthly", outcome: "failed", message: 'column "ktvv" does not exist.', line: 1, column: 12 },
        {
          query: "drills.byMonth.queries.patients",
          outcome: "failed",
          message: "division by zero.",
          line: null,
          column: null,
        },
      ]);
      expect(audit.findings.map((f) => [f.rule, f.severity, f.where])).to.deep.equal([
        ["query-fails", "high", "queries.monthly"],
        ["query-fails", "high", "drills.byMonth.queries.patients"],
      ]);
      expect(audit.findings[0]!.message).to.equal(
        `The query fails when run with the filters' defaults at line 1, column 12: column "ktvv" does not ` +
          "exist. Correct it: published as it is, viewers see this error in its place.",
      );
      expect(audit.findings[1]!.message).to.match(
        /^The query fails when run with the filters' defaults: division by zero\. /,
      );
      expect(audit).to.include({ score: 60, grade: "D", highest: "high" });
    });

    it("notes a query that could not be tried (info, no cost)", async () => {
      const audit = await auditSpec(cleanSpec(), [
        { query: "queries.monthly", outcome: "untried", reason: "This hospital's report queries are all busy." },
      ]);
      expect(audit.findings.map((f) => [f.rule, f.severity, f.where])).to.deep.equal([
        ["query-untried", "info", "queries.monthly"],
      ]);
      expect(audit).to.include({ score: 100, grade: "A" });
    });
  });

  it("writes every message as a sentence", async () => {
    const spec = cleanSpec();
    spec.params!.push({ name: "unused", type: "numberRange" });
    spec.queries.spare = { sql: "select *, id_card, random() from patients, lab_results" };
    spec.queries.bad = { sql: "select from where" };
    spec.nodes!.push({ id: "t", type: "table", query: "spare" });
    spec.drills!.byMonth!.args!.push({ name: "ward", type: "text" });
    const audit = await auditSpec(spec);
    expect(new Set(rules(audit.findings))).to.have.length(9);
    for (const f of audit.findings) expect(f.message).to.match(/^[A-Z].*[a-z)."]\.$/);
  });
});

import { expect } from "chai";
import type { DrillArgDef, ParamDef } from "../../../commands/reports/spec/specSchema.ts";
import { readFileSync } from "node:fs";
import { CLINICAL_FUNCTION_GROUPS } from "../../../commands/reports/spec/reportFunctions.ts";
import { readOnlyProblem } from "../../../commands/reports/spec/sqlSafety.ts";
import { projectFile } from "../../../db/projectFiles.ts";

const PARAMS: ParamDef[] = [
  { name: "period", label: "Period", type: "dateRange", default: ["2026-01-01", "2026-03-31"] },
  { name: "wards", label: "Wards", type: "multiSelect", options: { query: "wardList" }, default: null },
  { name: "minKtv", label: "Min Kt/V", type: "number", default: 1.2, required: true },
  { name: "name", label: "Name", type: "text" },
];
const MONTH: DrillArgDef[] = [{ name: "month", type: "date" }];

// The queries of the contract's A.4 example (the drill's `…` written out).
const WARD_LIST = "select distinct ward as value from patients order by 1";
const MONTHLY =
  "select date_trunc('month', collected_at)::date as month, avg(std_value) as ktv from lab_results where " +
  "std_code = 'KTV' and collected_at::date between {{period.from}} and {{period.to}} [[and ward = " +
  "any({{wards}})]] group by 1 order by 1";
const PATIENTS =
  "select p.patient_ref, p.name, p.ward, r.std_value as ktv, r.collected_at from lab_results r join patients p " +
  "using (patient_ref) where r.std_code = 'KTV' and date_trunc('month', r.collected_at)::date = {{month}} " +
  "order by r.collected_at";

describe("read-only check of report queries", () => {
  describe("accepts", () => {
    const accepted: Array<[string, string, ReadonlyArray<ParamDef | DrillArgDef>]> = [
      ["the A.4 option list query", WARD_LIST, PARAMS],
      ["the A.4 monthly query", MONTHLY, PARAMS],
      ["the A.4 drill query", PATIENTS, MONTH],
      [
        "a drill query using report params and drill args",
        `${PATIENTS.replace(" order by", " and r.collected_at::date >= {{period.from}} order by")}`,
        [...PARAMS, ...MONTH],
      ],
      ["with … select", "with a as (select 1) select * from a", []],
      [
        "a recursive CTE, a union and values",
        "with recursive n(i) as (select 1 union all select i + 1 from n where i < 5) select i from n union select * from (values (9)) v(i)",
        [],
      ],
      ["a trailing semicolon and comments", "-- monthly\nselect 1 /* one */;", []],
      [
        "an optional clause ending at the end of a -- comment line",
        "select 1 where true [[and name = {{name}} -- by name\n]] order by 1",
        PARAMS,
      ],
      [
        "a placeholder both in a comment and in the statement",
        "-- filters on {{name}}\nselect 1 where name = {{name}}",
        PARAMS,
      ],
    ];
    for (const [what, sql, params] of accepted) {
      it(what, async () => {
        expect(await readOnlyProblem(sql, params)).to.equal(null);
      });
    }
  });

  describe("refuses", () => {
    it("delete from x", async () => {
      expect(await readOnlyProblem("delete from x", [])).to.equal(
        "The query is a DELETE statement, but a query may only read: write one select (or with … select) statement.",
      );
    });

    it("other statements that are not a select", async () => {
      expect(await readOnlyProblem("update patients set name = {{name}}", PARAMS)).to.include("is an UPDATE statement");
      expect(await readOnlyProblem("insert into x select 1", [])).to.include("is an INSERT statement");
      expect(await readOnlyProblem("explain analyze delete from x", [])).to.include("is an EXPLAIN statement");
      expect(await readOnlyProblem("set role postgres", [])).to.include("is a SET statement");
      expect(await readOnlyProblem("create table t as select 1", [])).to.include("CREATE TABLE AS");
    });

    it("select 1; select 2", async () => {
      expect(await readOnlyProblem("select 1; select 2", [])).to.equal(
        "The query holds 2 statements: a query must be exactly one select statement, so remove the others and the ; between them.",
      );
    });

    it("a data-modifying CTE", async () => {
      expect(await readOnlyProblem("with d as (delete from x returning *) select * from d", [])).to.equal(
        "The query has a WITH part that runs DELETE (a data-modifying CTE), but a query may only read: make every WITH part a select.",
      );
      expect(
        await readOnlyProblem("with a as (select 1), u as (update x set y = 1 returning y) select * from a", []),
      ).to.include("runs UPDATE");
    });

    it("select … into", async () => {
      expect(await readOnlyProblem("select * into t from x", [])).to.include("SELECT … INTO");
    });

    it("a locking clause, also inside a subquery or a union", async () => {
      expect(await readOnlyProblem("select * from x for update", [])).to.include("locking clause");
      expect(await readOnlyProblem("select * from (select * from x for share) s", [])).to.include("locking clause");
      expect(await readOnlyProblem("(select 1) union (select 2 from x for no key update)", [])).to.include(
        "locking clause",
      );
    });

    it("a syntax error, saying where without echoing the SQL", async () => {
      const sql = "select ktv\nfrom lab_results\nwehre std_code = 'KTV'";
      const problem = await readOnlyProblem(sql, []);
      expect(problem).to.equal(
        'The query cannot be parsed: syntax error at or near "std_code" (at line 3, column 7 of the SQL); correct the SQL there.',
      );
      expect(problem).not.to.include("lab_results");
    });

    it("a syntax error next to a placeholder, shown as the placeholder", async () => {
      const problem = await readOnlyProblem("select 1 where a = {{name}} {{name}}", PARAMS);
      expect(problem).to.include('at or near "{{name}}"').and.include("line 1, column 29");
    });

    it("an unterminated string, showing only a short piece of it", async () => {
      const problem = await readOnlyProblem(
        `select 'a very long unterminated string that goes on and on ${"x".repeat(200)}`,
        [],
      );
      expect(problem).to.include("unterminated quoted string");
      expect(problem!.length).to.be.lessThan(200);
    });

    it("an empty statement", async () => {
      expect(await readOnlyProblem("-- nothing here", [])).to.include("holds no SQL statement");
    });

    it("a template error, as its sentence", async () => {
      expect(await readOnlyProblem("select {{nope}}", PARAMS)).to.include(
        "{{nope}} at line 1, column 8 does not name a declared param",
      );
      expect(await readOnlyProblem("select 1 [[where a = {{name}}", PARAMS)).to.include("never closed");
    });

    it("a query that breaks once an optional value is null", async () => {
      const problem = await readOnlyProblem("select 1 from x where [[name = {{name}}]]", PARAMS);
      expect(problem).to.match(
        /^With name null \(its optional clauses dropped\), the query cannot be parsed: syntax error at end of input/,
      );
      expect(problem).to.include("where 1 = 1 [[and …]]");
    });

    it("an optional clause that hides a second statement inside a string literal", async () => {
      // Kept: one select comparing b to a string; dropped: "select 1 ; delete from x; --'".
      const problem = await readOnlyProblem("select 1 [[where a = {{name}} or b = ']]; delete from x; --'", PARAMS);
      expect(problem).to.include(
        "The optional clause [[ … ]] at line 1, column 10 ends inside a string literal, quoted name or comment",
      );
    });

    it("an optional clause that ends inside a -- comment", async () => {
      const problem = await readOnlyProblem(
        "select 1 where true [[and name = {{name}} -- by name ]] order by 1",
        PARAMS,
      );
      expect(problem).to.include("ends inside a string literal, quoted name or comment");
    });

    it("a placeholder inside a string literal, which could never be bound", async () => {
      expect(await readOnlyProblem("select * from patients where name like '%{{name}}%'", PARAMS)).to.equal(
        "The query has {{name}} at line 1, column 42 inside a string literal or comment, where its value " +
          "cannot be used: move it out of the quotes, e.g. '%' || {{name}} || '%' instead of '%{{name}}%'.",
      );
    });
  });

  it("never treats a required param as null", async () => {
    // minKtv is required, so its clause is always kept at run time: no false alarm.
    expect(await readOnlyProblem("select 1 from x where [[k >= {{minKtv}}]]", PARAMS)).to.equal(null);
  });
});

describe("what a query of the clinical data source may reach", () => {
  const CLINICAL = ["patients", "lab_reports", "lab_results", "exam_reports", "std_items"];
  const reach = (sql: string) => readOnlyProblem(sql, PARAMS, { schema: "clinical", relations: CLINICAL });

  it("accepts the clinical views, qualified or not, CTEs where they are in scope, set-returning and ordinary functions", async () => {
    for (const sql of [
      MONTHLY,
      "select count(*) from clinical.lab_results r join patients p using (patient_ref)",
      "with recent as (select * from lab_reports) select count(*) from recent",
      "with a as (select 1 as n), b as (select n from a) select * from b",
      "with recursive n(i) as (select 1 union all select i + 1 from n where i < 5) select i from n",
      "select d::date from generate_series(date '2026-01-01', date '2026-12-01', interval '1 month') d",
      "select pg_typeof(1), current_setting('TimeZone'), current_user, current_date, coalesce(null, 1), greatest(1, 2), nullif(1, 2)",
      "select round(avg(std_value)::numeric, 2), count(*) filter (where abnormal_flag is not null), " +
        "string_agg(distinct ward, ', ' order by ward) from lab_results join patients using (patient_ref)",
      "select extract(year from collected_at), to_char(collected_at, 'YYYY-MM'), date_trunc('month', " +
        "collected_at)::date, pg_catalog.lower(item_name), substring(item_name from 1 for 3), trim(both from " +
        "item_name) from lab_results",
      "select patient_ref, lag(std_value) over (partition by patient_ref order by collected_at), row_number() over () from lab_results",
      "select percentile_cont(0.5) within group (order by std_value), jsonb_build_object('n', count(*)) from lab_results",
    ]) {
      expect(await reach(sql), sql).to.equal(null);
    }
  });

  it("refuses relations outside the clinical views, naming the relation and the views to read", async () => {
    for (const [sql, relation] of [
      ["select pid, query from pg_stat_activity", "pg_stat_activity"],
      ["select relname from pg_catalog.pg_class", "pg_catalog.pg_class"],
      ["select table_name from information_schema.tables", "information_schema.tables"],
      ["select tablename from pg_tables", "pg_tables"],
      ["select rolname from pg_roles", "pg_roles"],
      ["select * from pg_locks", "pg_locks"],
      ["select count(*) from events", "events"],
      ["select count(*) from public.events", "public.events"],
      ["select count(*) from read.patients", "read.patients"],
      ["select count(*) from clinical.report_sessions", "clinical.report_sessions"],
      // A CTE named like a catalog hides it only where PostgreSQL resolves the name to the CTE.
      ["with a as (select relname from pg_class), pg_class as (select 1 as relname) select * from a", "pg_class"],
      ["select * from pg_class, (with pg_class as (select 1) select * from pg_class) x", "pg_class"],
    ]) {
      expect(await reach(sql!), sql).to.equal(
        `The query reads ${relation}, which is not a relation of the clinical data source: read patients, ` +
          "lab_reports, lab_results, exam_reports, std_items, or a CTE of the query.",
      );
    }
  });

  it("refuses functions and casts that look at the catalogs, other sessions or privileges", async () => {
    for (const [sql, what] of [
      ["select * from pg_stat_get_activity(null)", "calls pg_stat_get_activity"],
      ["select pg_catalog.pg_get_userbyid(10)", "calls pg_catalog.pg_get_userbyid"],
      ["select * from pg_lock_status()", "calls pg_lock_status"],
      ["select pg_blocking_pids(1)", "calls pg_blocking_pids"],
      ["select to_regclass('public.events')", "calls to_regclass"],
      ["select has_table_privilege('events', 'select')", "calls has_table_privilege"],
      ["select 'public.events'::regclass", "casts to regclass"],
      ["select 10::oid::regrole", "casts to regrole"],
    ]) {
      expect(await reach(sql!), sql).to.match(new RegExp(`^The query ${what}, `));
    }
    expect(await reach("select pg_cancel_backend(1)"), "signalling, refused as before").to.match(
      /calls pg_cancel_backend\(\), which writes, changes the session or other sessions/,
    );
  });

  it("refuses what takes a transaction id, sleeps, locks or reads the server, and every function not on the allow-list (E.5)", async () => {
    const beyond =
      "which looks beyond the clinical data source (the system catalogs, other sessions or privileges): report " +
      "SQL may not call it; use the functions listed in the report guide.";
    const xid =
      "which takes a transaction id, which holds back every reader of new results until the report ends, but a query may only read: remove it.";
    // The query → what follows "The query calls " in its sentence.
    const refusals: Record<string, string> = {
      "select txid_current(), pg_sleep(9)": `txid_current(), ${xid}`,
      "select pg_current_xact_id()": `pg_current_xact_id(), ${xid}`,
      "select pg_sleep_for('1 second')":
        "pg_sleep_for(), which sleeps, holding a report connection, but a query may only read: remove it.",
      "select table_to_xml('pg_roles', true, false, '')":
        "table_to_xml, which reads relations by name, beyond the clinical data source: report SQL may not call " +
        "it; use the functions listed in the report guide.",
      "select version()": `version, ${beyond}`,
      "select inet_server_addr()": `inet_server_addr, ${beyond}`,
      "select xmlelement(name x, 1), pg_catalog.current_database()": `pg_catalog.current_database, ${beyond}`,
      "select count(*) from lab_results where pg_try_advisory_xact_lock(1)":
        "pg_try_advisory_xact_lock(), which writes, changes the session or other sessions, or runs SQL given as text, but a query may only read: remove it.",
      "select public.my_helper(1)":
        "public.my_helper, a function outside PostgreSQL's own (pg_catalog): report SQL may call only the functions listed in the report guide.",
      "select crosstab('select 1')":
        "crosstab, which is not one of the functions report SQL may call: use those listed in the report guide.",
    };
    for (const [sql, sentence] of Object.entries(refusals))
      expect(await reach(sql), sql).to.equal(`The query calls ${sentence}`);
  });

  it("lists in the report guide exactly the functions a clinical query may call", () => {
    const guide = readFileSync(projectFile("docs", "report-spec-guide.md"), "utf8");
    for (const [group, names] of Object.entries(CLINICAL_FUNCTION_GROUPS)) {
      const listed = guide.match(new RegExp(`^  - ${group}: ([^]*?)\\.$`, "m"))?.[1];
      expect(listed, group).to.be.a("string");
      expect(
        listed!
          .replace(/\s+/g, " ")
          .split(", ")
          .map((name) => name.replace(/`/g, "")),
        group,
      ).to.deep.equal([...names]);
    }
  });

  it("refuses sleeping and taking a transaction id in a query of any data source", async () => {
    expect(await readOnlyProblem("select pg_sleep(1)", PARAMS)).to.match(/^The query calls pg_sleep\(\), which sleeps/);
    expect(await readOnlyProblem("select txid_current()", PARAMS)).to.match(
      /^The query calls txid_current\(\), which takes a transaction id/,
    );
    expect(
      await readOnlyProblem("select my_schema.my_function(1), version()", PARAMS),
      "another database's own functions are its business",
    ).to.equal(null);
  });

  it("leaves the relations of another data source to that database", async () => {
    expect(await readOnlyProblem("select count(*) from public.quality_indicators", PARAMS)).to.equal(null);
  });
});

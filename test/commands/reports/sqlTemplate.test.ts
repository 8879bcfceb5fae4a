import { expect } from "chai";
import type { DrillArgDef, DrillDef, ParamDef } from "../../../commands/reports/spec/specSchema.ts";
import {
  compileTemplate,
  placeholdersOf,
  TemplateError,
  validateDrillArgs,
  validateParamValues,
} from "../../../commands/reports/spec/sqlTemplate.ts";

const PARAMS: ParamDef[] = [
  { name: "period", label: "Period", type: "dateRange", default: ["2026-01-01", "2026-03-31"] },
  { name: "wards", label: "Wards", type: "multiSelect", options: { query: "wardList" }, default: null },
  { name: "minKtv", label: "Min Kt/V", type: "number", default: 1.2, required: true },
  { name: "name", label: "Name", type: "text" },
  {
    name: "ward",
    label: "Ward",
    type: "select",
    options: [
      { value: "3A", label: "Ward 3A" },
      { value: "3B", label: "Ward 3B" },
    ],
  },
  { name: "active", label: "Active", type: "boolean", default: true },
  { name: "day", label: "Day", type: "date" },
  { name: "age", label: "Age", type: "numberRange" },
];

const MONTHLY =
  "select date_trunc('month', collected_at)::date as month, avg(std_value) as ktv from lab_results where " +
  "std_code = 'KTV' and collected_at::date between {{period.from}} and {{period.to}} [[and ward = " +
  "any({{wards}})]] group by 1 order by 1";

function templateError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(TemplateError);
    return (error as Error).message;
  }
  expect.fail("expected a TemplateError");
}

describe("SQL template", () => {
  describe("compileTemplate", () => {
    it("binds the A.4 example with typed positional parameters", () => {
      const compiled = compileTemplate(MONTHLY, PARAMS, { period: ["2026-01-01", "2026-03-31"], wards: ["3A", "3B"] });
      expect(compiled.text).to.equal(
        "select date_trunc('month', collected_at)::date as month, avg(std_value) as ktv from lab_results where " +
          "std_code = 'KTV' and collected_at::date between $1::date and $2::date and ward = any($3::text[]) " +
          "group by 1 order by 1",
      );
      expect(compiled.values).to.deep.equal(["2026-01-01", "2026-03-31", ["3A", "3B"]]);
    });

    it("casts each param type", () => {
      const sql = "select {{day}}, {{minKtv}}, {{name}}, {{ward}}, {{wards}}, {{active}}, {{age.from}}, {{age.to}}";
      const compiled = compileTemplate(sql, PARAMS, {
        day: "2026-02-01",
        minKtv: 1.5,
        name: "Li",
        ward: "3A",
        wards: [1, "2"],
        active: false,
        age: [18, 65],
      });
      expect(compiled.text).to.equal(
        "select $1::date, $2::numeric, $3::text, $4::text, $5::text[], $6::boolean, $7::numeric, $8::numeric",
      );
      expect(compiled.values).to.deep.equal(["2026-02-01", 1.5, "Li", "3A", ["1", "2"], false, 18, 65]);
    });

    it("casts drill args by their type", () => {
      const args: DrillArgDef[] = [
        { name: "month", type: "date" },
        { name: "n", type: "number" },
        { name: "w", type: "text" },
        { name: "b", type: "boolean" },
      ];
      const compiled = compileTemplate("select {{month}}, {{n}}, {{w}}, {{b}}", args, {
        month: "2026-01-01",
        n: "12345678901234567890.5",
        w: "3A",
        b: true,
      });
      expect(compiled.text).to.equal("select $1::date, $2::numeric, $3::text, $4::boolean");
      expect(compiled.values).to.deep.equal(["2026-01-01", "12345678901234567890.5", "3A", true]);
    });

    it("takes report params and drill args together", () => {
      const defs = [...PARAMS, { name: "month", type: "date" } as DrillArgDef];
      const compiled = compileTemplate("select 1 where m = {{month}} and d >= {{period.from}}", defs, {
        month: "2026-02-01",
        period: ["2026-01-01", null],
      });
      expect(compiled.text).to.equal("select 1 where m = $1::date and d >= $2::date");
      expect(compiled.values).to.deep.equal(["2026-02-01", "2026-01-01"]);
    });

    describe("hostile values never reach the text", () => {
      const hostile = [
        "'; drop table patients; --",
        "{{period.from}}",
        "[[ ]]",
        "患者 ' \" \\ 😀 \u0000",
        "$1::text; delete from x",
      ];
      for (const value of hostile) {
        it(`binds ${JSON.stringify(value)} as a parameter`, () => {
          const sql = "select * from patients where name = {{name}} [[and ward = {{ward}}]]";
          const compiled = compileTemplate(sql, PARAMS, { name: value, ward: "3A" });
          expect(compiled.text).to.equal("select * from patients where name = $1::text and ward = $2::text");
          expect(compiled.text).not.to.include(value);
          expect(compiled.values).to.deep.equal([value, "3A"]);
        });
      }

      it("does not expand a placeholder held in a multi-select value", () => {
        const compiled = compileTemplate("select 1 where w = any({{wards}})", PARAMS, {
          wards: ["{{period.from}}", "x'); delete from y; --"],
        });
        expect(compiled.text).to.equal("select 1 where w = any($1::text[])");
        expect(compiled.values).to.deep.equal([["{{period.from}}", "x'); delete from y; --"]]);
      });
    });

    describe("optional clauses", () => {
      it("drops a clause whose placeholder is null, missing or an empty multi-select", () => {
        for (const wards of [null, undefined, []]) {
          const compiled = compileTemplate(MONTHLY, PARAMS, { period: ["2026-01-01", "2026-03-31"], wards });
          expect(compiled.text).not.to.include("ward = any");
          expect(compiled.text).to.include("between $1::date and $2::date  group by 1");
          expect(compiled.values).to.deep.equal(["2026-01-01", "2026-03-31"]);
        }
      });

      it("keeps a clause when every placeholder in it has a value", () => {
        const compiled = compileTemplate("select 1 where true [[and a = {{name}} and b = {{ward}}]]", PARAMS, {
          name: "x",
          ward: "3A",
        });
        expect(compiled.text).to.equal("select 1 where true and a = $1::text and b = $2::text");
      });

      it("drops a clause when ANY of its placeholders is null", () => {
        const compiled = compileTemplate("select 1 where true [[and a = {{name}} and b = {{ward}}]]", PARAMS, {
          name: "x",
          ward: null,
        });
        expect(compiled.text).to.equal("select 1 where true ");
        expect(compiled.values).to.deep.equal([]);
      });

      it("treats each end of a range on its own", () => {
        const sql = "select 1 where true [[and d >= {{period.from}}]] [[and d <= {{period.to}}]]";
        expect(compileTemplate(sql, PARAMS, { period: ["2026-01-01", null] })).to.deep.equal({
          text: "select 1 where true and d >= $1::date ",
          values: ["2026-01-01"],
        });
        expect(compileTemplate(sql, PARAMS, { period: [null, "2026-03-31"] })).to.deep.equal({
          text: "select 1 where true  and d <= $1::date",
          values: ["2026-03-31"],
        });
        expect(compileTemplate(sql, PARAMS, { period: null })).to.deep.equal({
          text: "select 1 where true  ",
          values: [],
        });
      });

      it("binds NULL for a null value outside an optional clause", () => {
        const compiled = compileTemplate(
          "select 1 where d between {{period.from}} and {{period.to}} and w = any({{wards}})",
          PARAMS,
          { period: [null, "2026-03-31"], wards: [] },
        );
        expect(compiled.text).to.equal("select 1 where d between $1::date and $2::date and w = any($3::text[])");
        expect(compiled.values).to.deep.equal([null, "2026-03-31", null]);
      });

      it("keeps an empty text as a value", () => {
        expect(compileTemplate("select 1 [[where n = {{name}}]]", PARAMS, { name: "" })).to.deep.equal({
          text: "select 1 where n = $1::text",
          values: [""],
        });
      });
    });

    it("reuses one parameter number for a repeated placeholder", () => {
      const compiled = compileTemplate(
        "select 1 where a = {{name}} or b = {{ name }} or c = {{minKtv}} or d = {{name}}",
        PARAMS,
        { name: "x", minKtv: 2 },
      );
      expect(compiled.text).to.equal("select 1 where a = $1::text or b = $1::text or c = $2::numeric or d = $1::text");
      expect(compiled.values).to.deep.equal(["x", 2]);
    });

    it("does not spend a parameter number on a dropped clause", () => {
      const compiled = compileTemplate("select 1 where true [[and a = {{name}}]] and b = {{minKtv}}", PARAMS, {
        name: null,
        minKtv: 2,
      });
      expect(compiled).to.deep.equal({ text: "select 1 where true  and b = $1::numeric", values: [2] });
    });

    it("treats placeholders inside string literals and comments as placeholders, still without splicing", () => {
      const compiled = compileTemplate("select '{{name}}' -- {{minKtv}}\n", PARAMS, { name: "o'brien", minKtv: 1 });
      expect(compiled.text).to.equal("select '$1::text' -- $2::numeric\n");
      expect(compiled.values).to.deep.equal(["o'brien", 1]);
    });

    it("leaves {{ that does not start a name as text (a 2-D array literal)", () => {
      expect(compileTemplate("select '{{1,2},{3,4}}'::int[]", PARAMS, {})).to.deep.equal({
        text: "select '{{1,2},{3,4}}'::int[]",
        values: [],
      });
    });

    it("keeps a binding apart from an adjacent name", () => {
      expect(compileTemplate("select a{{name}}b", PARAMS, { name: "x" }).text).to.equal("select a $1::text b");
    });

    describe("template errors", () => {
      it("refuses an unknown placeholder and names the declared ones", () => {
        const message = templateError(() => compileTemplate("select 1\nwhere a = {{nmae}}", PARAMS, {}));
        expect(message).to.equal(
          "{{nmae}} at line 2, column 11 does not name a declared param or drill arg: use one of period, wards, minKtv, name, ward, active, day, age.",
        );
      });

      it("refuses an unknown placeholder even inside a clause that would be dropped", () => {
        templateError(() => compileTemplate("select 1 [[where a = {{name}} and {{nope}}]]", PARAMS, { name: null }));
      });

      it("refuses .from / .to on a non-range and a range used whole", () => {
        expect(templateError(() => compileTemplate("select {{minKtv.from}}", PARAMS, {}))).to.include(
          "minKtv is a number param, not a range: write {{minKtv}}",
        );
        expect(templateError(() => compileTemplate("select {{period}}", PARAMS, {}))).to.include(
          "write {{period.from}} and {{period.to}}",
        );
      });

      it("refuses unbalanced, nested and empty optional clauses", () => {
        expect(templateError(() => compileTemplate("select 1 [[where a = {{name}}", PARAMS, {}))).to.include(
          "never closed",
        );
        expect(templateError(() => compileTemplate("select 1 where a = {{name}}]]", PARAMS, {}))).to.include(
          "closes no optional clause",
        );
        expect(templateError(() => compileTemplate("select 1 [[ [[ {{name}} ]] ]]", PARAMS, {}))).to.include(
          "cannot be nested",
        );
        expect(templateError(() => compileTemplate("select 1 [[ and 1 = 1 ]]", PARAMS, {}))).to.include(
          "holds no {{placeholder}}",
        );
      });

      it("refuses a malformed placeholder", () => {
        expect(templateError(() => compileTemplate("select {{period.start}}", PARAMS, {}))).to.include("malformed");
        expect(templateError(() => compileTemplate("select {{name", PARAMS, {}))).to.include("malformed");
      });

      it("refuses a value that cannot be bound as its type", () => {
        templateError(() => compileTemplate("select {{minKtv}}", PARAMS, { minKtv: "1; drop table x" }));
        templateError(() => compileTemplate("select {{day}}", PARAMS, { day: "yesterday" }));
        templateError(() => compileTemplate("select {{wards}}", PARAMS, { wards: [{}] }));
      });
    });
  });

  describe("placeholdersOf", () => {
    it("lists every placeholder in order with its part and whether it is optional", () => {
      expect(placeholdersOf(MONTHLY)).to.deep.equal([
        { name: "period", part: "from", optional: false },
        { name: "period", part: "to", optional: false },
        { name: "wards", optional: true },
      ]);
      expect(placeholdersOf("select 1")).to.deep.equal([]);
      expect(placeholdersOf("select {{a}}, {{ a }} [[, {{b}}]]")).to.deep.equal([
        { name: "a", optional: false },
        { name: "a", optional: false },
        { name: "b", optional: true },
      ]);
    });
  });

  describe("validateParamValues", () => {
    const published = { period: ["2026-02-01", "2026-02-28"], wards: ["3A"], minKtv: 1.4 };

    it("takes the published value for a missing key and the spec default when none was published", () => {
      const result = validateParamValues(PARAMS, published, { name: "Li" });
      expect(result).to.deep.equal({
        values: {
          period: ["2026-02-01", "2026-02-28"],
          wards: ["3A"],
          minKtv: 1.4,
          name: "Li",
          ward: null,
          active: true,
          day: null,
          age: null,
        },
      });
      expect(validateParamValues(PARAMS, published, undefined)).to.have.property("values");
      expect(validateParamValues(PARAMS, published, null)).to.have.property("values");
    });

    it("keeps an explicit null as no restriction, over the published value", () => {
      const result = validateParamValues(PARAMS, published, { period: null, wards: null });
      expect(result).to.have.nested.property("values.period", null);
      expect(result).to.have.nested.property("values.wards", null);
    });

    it("normalises an empty multi-select and a range of two nulls to null", () => {
      const result = validateParamValues(PARAMS, published, { wards: [], period: [null, null], age: [null, 80] });
      expect(result).to.deep.include({
        values: {
          ...published,
          wards: null,
          period: null,
          age: [null, 80],
          name: null,
          ward: null,
          active: true,
          day: null,
        },
      });
    });

    it("refuses a key that is not a declared param and names the declared ones", () => {
      expect(validateParamValues(PARAMS, published, { period: null, colour: "red" })).to.deep.equal({
        problem:
          'params holds "colour", which this report does not declare: send only its declared params period, wards, minKtv, name, ward, active, day, age.',
      });
      expect(validateParamValues([], {}, { x: 1 })).to.deep.equal({
        problem: 'This report declares no params, so "x" cannot be set: send params as {} or leave it out.',
      });
    });

    it("refuses params that are not an object", () => {
      expect(validateParamValues(PARAMS, published, [1, 2]))
        .to.have.property("problem")
        .that.includes("params must be a JSON object");
      expect(validateParamValues(PARAMS, published, "period=2026"))
        .to.have.property("problem")
        .that.includes("params must be a JSON object");
    });

    const wrong: Array<[string, unknown, string]> = [
      ["period", "2026-01-01", "period must be a two-element array [from, to] of yyyy-MM-dd dates or null"],
      ["period", ["2026-01-01"], "period must be a two-element array [from, to] of yyyy-MM-dd dates or null"],
      [
        "period",
        ["2026-01-01", "2026-02-30"],
        "period must be a two-element array [from, to] of yyyy-MM-dd dates or null",
      ],
      ["period", ["2026-03-01", "2026-01-01"], "period must not end before it starts"],
      ["age", ["18", 65], "age must be a two-element array [from, to] of JSON numbers or null"],
      ["wards", "3A", "wards must be an array of strings or numbers"],
      ["wards", [["3A"]], "wards must be an array of strings or numbers"],
      ["minKtv", "1.2", "minKtv must be a JSON number or null"],
      ["name", 12, "name must be a string"],
      ["name", "x".repeat(1001), "name must be at most 1000 characters"],
      ["ward", ["3A"], "ward must be a single string or number"],
      ["ward", "4C", "ward must be chosen from its options (3A, 3B)"],
      ["active", "true", "active must be true, false or null"],
      ["day", "01/02/2026", "day must be a yyyy-MM-dd date"],
    ];
    for (const [name, value, expected] of wrong) {
      it(`refuses ${name} = ${JSON.stringify(value).slice(0, 40)} with a sentence naming it`, () => {
        const result = validateParamValues(PARAMS, published, { [name]: value });
        expect(result)
          .to.have.property("problem")
          .that.satisfies((p: string) => p.startsWith(expected) && p.endsWith("."));
      });
    }

    it("refuses a required param that ends up null", () => {
      expect(validateParamValues(PARAMS, published, { minKtv: null })).to.deep.equal({
        problem: "minKtv is required, so it cannot be null or empty: send a JSON number.",
      });
      const unpublished = validateParamValues(
        [{ name: "w", label: "W", type: "multiSelect", options: { query: "q" }, required: true }],
        {},
        { w: [] },
      );
      expect(unpublished).to.have.property("problem").that.includes("w is required");
    });
  });

  describe("validateDrillArgs", () => {
    const drill: DrillDef = {
      title: "Patients in {month}",
      args: [
        { name: "month", type: "date" },
        { name: "n", type: "number" },
        { name: "ward", type: "text" },
        { name: "active", type: "boolean" },
      ],
      queries: { patients: { sql: "select 1" } },
    };

    it("accepts declared args, missing ones are null", () => {
      expect(validateDrillArgs(drill, { month: "2026-01-01", ward: "3A" })).to.deep.equal({
        values: { month: "2026-01-01", n: null, ward: "3A", active: null },
      });
      expect(validateDrillArgs(drill, undefined)).to.deep.equal({
        values: { month: null, n: null, ward: null, active: null },
      });
    });

    it("takes row values leniently: a date-time as its date, a big numeric string, a number as text", () => {
      expect(
        validateDrillArgs(drill, { month: "2026-01-01 08:30:00", n: "123456789012345678901", ward: 3, active: false }),
      ).to.deep.equal({
        values: { month: "2026-01-01", n: "123456789012345678901", ward: "3", active: false },
      });
    });

    it("refuses an undeclared arg and names the declared ones", () => {
      expect(validateDrillArgs(drill, { month: "2026-01-01", patient: "P1" })).to.deep.equal({
        problem:
          'args holds "patient", which this drill does not declare: send only its declared args month, n, ward, active.',
      });
    });

    it("refuses a value of the wrong type with a sentence naming the arg", () => {
      expect(validateDrillArgs(drill, { month: "January" })).to.deep.equal({
        problem:
          "The drill arg month must be a yyyy-MM-dd date (a date-time yyyy-MM-dd HH:mm:ss is cut to its date) or null.",
      });
      expect(validateDrillArgs(drill, { n: "12abc" }))
        .to.have.property("problem")
        .that.includes("The drill arg n must be a JSON number");
      expect(validateDrillArgs(drill, { active: "yes" }))
        .to.have.property("problem")
        .that.includes("active must be true, false or null");
      expect(validateDrillArgs(drill, [1]))
        .to.have.property("problem")
        .that.includes("args must be a JSON object");
    });
  });
});

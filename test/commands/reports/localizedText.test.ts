import { expect } from "chai";
import { localizeSpec, shownTitle, textIn } from "../../../commands/reports/spec/localizedText.ts";
import { reportSpecSchema, specProblems } from "../../../commands/reports/spec/specSchema.ts";

/*
 * Issue #54: wherever a report spec has a display string, it may give one per language
 * ({ "zh": …, "en": … }); a plain string keeps working. A reader is shown each in their language,
 * else in the other one given.
 */

const t = (zh: string, en: string) => ({ zh, en });

/** A spec with a word per language in every place a reader reads one. */
function bilingualSpec(): Record<string, any> {
  return {
    version: 1,
    title: t("透析充分性", "Dialysis adequacy"),
    description: t("每月的 Kt/V。", "Monthly Kt/V."),
    params: [
      { name: "period", label: t("时间段", "Period"), type: "dateRange", default: null },
      {
        name: "shift",
        label: "班次 Shift",
        type: "select",
        options: [
          { value: "am", label: t("上午", "Morning") },
          { value: "pm", label: "PM" },
        ],
      },
    ],
    queries: { monthly: { sql: "select 1 as month, 1.2 as ktv, 70 as urr" } },
    nodes: [
      { id: "intro", type: "text", markdown: t("## 说明", "## About") },
      { id: "kpi", type: "stat", title: t("平均", "Average"), query: "monthly", column: "ktv", unit: t("次", "times") },
      {
        id: "tbl",
        type: "table",
        title: t("按月份", "By month"),
        query: "monthly",
        columns: ["month", { column: "ktv", label: t("尿素清除指数", "Kt/V"), unit: t("比值", "ratio") }],
      },
      {
        id: "trend",
        type: "chart",
        chart: "line",
        title: t("趋势", "Trend"),
        query: "monthly",
        x: "month",
        y: ["ktv"],
        y2: ["urr"],
        xLabel: t("月份", "Month"),
        yLabel: t("比值", "Ratio"),
        y2Label: t("百分比", "Per cent"),
        labels: { ktv: t("清除指数", "Clearance"), urr: "URR" },
        refLines: [{ value: 1.2, label: t("目标", "target") }],
        drill: { target: "byMonth", args: { month: "month" } },
      },
    ],
    drills: {
      byMonth: {
        title: t("{month} 的患者", "Patients in {month}"),
        args: [{ name: "month", type: "date" }],
        queries: { patients: { sql: "select 1 as p where {{month}} is not null" } },
        nodes: [{ id: "list", type: "table", title: t("患者", "Patients"), query: "patients" }],
      },
    },
  };
}

describe("a report's words per language (commands/reports/spec/localizedText)", () => {
  it("accepts a word per language in every display string, and a plain string as before", () => {
    expect(specProblems(bilingualSpec())).to.deep.equal([]);
    const onlyChinese = { ...bilingualSpec(), title: { zh: "透析充分性" } };
    expect(specProblems(onlyChinese), "one language is enough").to.deep.equal([]);
    const parsed = reportSpecSchema.parse(bilingualSpec());
    expect(parsed.title, "stored as written").to.deep.equal(t("透析充分性", "Dialysis adequacy"));
  });

  it("says at its path what is wrong with a word per language", () => {
    const spec = bilingualSpec();
    spec.title = { zh: "透析", fr: "Dialyse" };
    spec.params[0].label = {};
    spec.nodes[1].title = { zh: "x".repeat(201) };
    spec.nodes[0].markdown = 42;
    const problems = specProblems(spec);
    expect(problems.find((p) => p.path === "title.fr")?.message).to.match(/does not take the member "fr"/);
    expect(problems.find((p) => p.path === "params[0].label")?.message).to.match(/needs zh, en or both/);
    expect(problems.find((p) => p.path === "nodes[1].title.zh")?.message).to.match(/at most 200 characters/);
    expect(problems.find((p) => p.path === "nodes[0].markdown")?.message).to.match(
      /markdown must be a string of markdown, or one per language/,
    );
    // A plain string breaking its rule is told that rule, as before.
    expect(specProblems({ ...bilingualSpec(), title: "x".repeat(201) })[0]).to.deep.equal({
      path: "title",
      message: "title must be at most 200 characters long: shorten it.",
      code: "spec-too-big",
    });
  });

  it("gives no two series one name in either language", () => {
    const spec = bilingualSpec();
    spec.nodes[3].labels = { ktv: t("清除", "Same"), urr: t("下降率", "Same") };
    expect(specProblems(spec).map((p) => p.path)).to.deep.equal(["nodes[3].labels.urr"]);
  });

  it("shows every display string in the reader's language, else the other one, and leaves the rest", () => {
    const zh = localizeSpec(bilingualSpec(), "zh");
    const en = localizeSpec(bilingualSpec(), "en");
    expect([zh.title, en.title]).to.deep.equal(["透析充分性", "Dialysis adequacy"]);
    expect([zh.description, en.description]).to.deep.equal(["每月的 Kt/V。", "Monthly Kt/V."]);
    expect(zh.params.map((p: any) => p.label)).to.deep.equal(["时间段", "班次 Shift"]);
    expect(en.params[1].options.map((o: any) => o.label)).to.deep.equal(["Morning", "PM"]);
    expect(zh.nodes.map((n: any) => n.title ?? n.markdown)).to.deep.equal(["## 说明", "平均", "按月份", "趋势"]);
    expect(en.nodes[1].unit).to.equal("times");
    expect(zh.nodes[2].columns).to.deep.equal(["month", { column: "ktv", label: "尿素清除指数", unit: "比值" }]);
    const chart = en.nodes[3];
    expect([chart.xLabel, chart.yLabel, chart.y2Label]).to.deep.equal(["Month", "Ratio", "Per cent"]);
    expect(chart.labels).to.deep.equal({ ktv: "Clearance", urr: "URR" });
    expect(chart.refLines).to.deep.equal([{ value: 1.2, label: "target" }]);
    expect(zh.drills.byMonth.title).to.equal("{month} 的患者");
    expect(en.drills.byMonth.nodes[0].title).to.equal("Patients");
    expect(en.queries, "queries untouched").to.deep.equal(bilingualSpec().queries);
    expect(localizeSpec({ ...bilingualSpec(), title: { zh: "只有中文" } }, "en").title).to.equal("只有中文");
  });

  it("names a report by its spec's title in the reader's language when the spec gives one per language", () => {
    expect(shownTitle("Saved title", bilingualSpec(), "zh")).to.equal("透析充分性");
    expect(shownTitle("Saved title", { title: "One title" }, "zh")).to.equal("Saved title");
    expect(textIn({ en: "Only English" }, "zh")).to.equal("Only English");
  });
});

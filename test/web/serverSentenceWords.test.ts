import { expect } from "chai";
import { findingText, queryProblemText } from "../../web/staff/auditTexts.ts";
import { rejectionText } from "../../web/staff/rejectionTexts.ts";
import { actorName } from "../../web/staff/actorTexts.ts";
import { queryFailureText } from "../../web/queryFailureTexts.ts";

/*
 * Issue #54: what the service says, on a Chinese page, in Chinese words chosen by its code; an
 * English page keeps the service's sentence where it names what to fix.
 */
describe("the pages' words for the service's sentences (web/)", () => {
  it("words an audit finding by its rule and what it names, and one stored before findings named anything", () => {
    const finding = {
      rule: "unused-param",
      where: "params[3]",
      message: 'The filter "unused" is used by no query; reference it as {{unused}} in a query, or remove it.',
      args: { param: "unused" },
    };
    expect(findingText(finding, "zh")).to.equal(
      "筛选条件“unused”未被任何查询使用，请在查询中以 {{unused}} 引用，或删除它。",
    );
    expect(findingText(finding, "en")).to.equal(finding.message);
    expect(findingText({ ...finding, args: undefined }, "zh")).to.equal(
      "此筛选条件未被任何查询使用，请在查询中引用它，或删除它。",
    );
    const failed = {
      rule: "query-fails",
      where: "queries.monthly",
      message: 'The query fails … column "ktvv" does not exist.',
      args: { line: 2, column: 7, code: "query-unknown-column" },
    };
    expect(findingText(failed, "zh")).to.match(
      /^以筛选条件的默认值运行时，查询失败（第 2 行第 7 列）：查询引用了数据源中不存在的列/,
    );
    expect(findingText({ ...failed, rule: "a-rule-of-later" }, "zh"), "an unknown rule keeps its sentence").to.equal(
      failed.message,
    );
  });

  it("never shows a reader the database's text for a failed query", () => {
    const failure = { error: 'column "ktvv" does not exist.', code: "query-unknown-column" };
    expect(queryFailureText(failure, "zh")).to.equal("查询引用了数据源中不存在的列，请报表作者在编辑器中修正该查询。");
    expect(queryFailureText(failure, "en")).not.to.include("ktvv");
    expect(queryFailureText({ error: "stored before codes" }, "zh")).to.equal(
      "查询失败，请稍后重试；如仍失败，请联系报表作者。",
    );
    expect(
      queryProblemText({ message: failure.error, code: failure.code }, "en"),
      "the author's own editor, in English",
    ).to.equal(failure.error);
  });

  it("words a rejected line's problem by its code", () => {
    const status = { message: "status must be one of FINAL, PRELIMINARY, CORRECTED, CANCELLED", code: "not-allowed" };
    expect(rejectionText(status, "zh")).to.equal(
      "不是允许的取值，应为以下之一：FINAL, PRELIMINARY, CORRECTED, CANCELLED",
    );
    expect(rejectionText({ message: "the line is not JSON (…)", code: "not-json" }, "zh")).to.match(
      /^这一行不是有效的 JSON/,
    );
    expect(rejectionText({ message: "stored before codes" }, "zh")).to.equal("stored before codes");
  });

  it("names the operator and a viewer without a credential in the page's words", () => {
    expect(actorName({ who: "admin", credential: "admin" }, "zh")).to.equal("系统管理员（管理令牌）");
    expect(actorName({ who: "anonymous", credential: "none" }, "zh")).to.equal("未登录的查看者");
    expect(actorName({ who: "护士长王丽华", credential: "a-1" }, "zh")).to.equal("护士长王丽华");
  });
});

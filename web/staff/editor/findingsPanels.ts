/**
 * The editor's two lists of what is wrong with the spec: the service's refusal of a save (its
 * problems) and the audit of the saved draft or version (a grade and findings), each entry linked
 * to where it points.
 */
import { el } from "../dom.ts";
import type { PageContext } from "../page.ts";
import type { Audit, Finding } from "../types.ts";
import type { EditorTexts } from "./editorTexts.ts";
import { findingText } from "../auditTexts.ts";
import { placeZh } from "./problemTexts.ts";
import { parsePath, renderPath, type PathProblem, type Segment } from "./specPaths.ts";

export interface FindingsPanels {
  problemsBox: HTMLElement;
  auditBox: HTMLElement;
  listProblems(problems: PathProblem[]): void;
  /** Shows an audit, or nothing (a draft's audit is known only once it is saved again). */
  showAudit(audit: Audit | null): void;
}

/** `goTo` moves to a place in the spec (a path such as `nodes[2].query`) in the open view. */
export function findingsPanels(ctx: PageContext, texts: EditorTexts, goTo: (path: Segment[]) => void): FindingsPanels {
  const problemsBox = el("div", { class: "editor-problems", role: "alert", hidden: true });
  const auditBox = el("div", { class: "editor-audit" });
  // A place the editor can find is a button that goes there; any other stays a name.
  const whereLink = (where: string) => {
    const path = parsePath(where);
    return path
      ? el(
          "button",
          { type: "button", class: "link", "data-go": where, onclick: () => goTo(path) },
          el("code", {}, where),
        )
      : el("code", {}, where);
  };
  // Where a refused spec's problem is: its path on an English page, the form's names on a Chinese
  // one ("第 1 个内容 › 编号", issue #54); either a button that goes there.
  const problemPlace = (path: Segment[]) => {
    const where = renderPath(path) || "spec";
    if (ctx.lang === "en") return whereLink(where);
    const parts = placeZh(path).map((part) => (typeof part === "string" ? part : el("code", {}, part.code)));
    const named = parts.flatMap((part, i) => (i === 0 ? [part] : [" › ", part]));
    return el("button", { type: "button", class: "link", "data-go": where, onclick: () => goTo(path) }, ...named, "：");
  };
  // In the page's language (issue #54): a column a node names that its query lacks with the nearest column offered.
  const wordsOf = (found: Finding) => findingText(found, ctx.lang);
  const finding = (found: Finding) =>
    el(
      "li",
      { "data-rule": found.rule },
      el(
        "span",
        { class: `severity severity-${found.severity}` },
        ctx.texts.severities[found.severity] ?? found.severity,
      ),
      " ",
      whereLink(found.where),
      " ",
      wordsOf(found),
    );
  return {
    problemsBox,
    auditBox,
    listProblems(problems) {
      problemsBox.hidden = problems.length === 0;
      problemsBox.replaceChildren(
        el("p", {}, el("strong", {}, texts.problemsTitle(problems.length))),
        el(
          "ul",
          {},
          ...problems.map((problem) =>
            el(
              "li",
              { "data-code": problem.code ?? null },
              problem.path ? problemPlace(problem.path) : null,
              " ",
              problem.message,
            ),
          ),
        ),
      );
    },
    showAudit(audit) {
      if (!audit) return void auditBox.replaceChildren();
      auditBox.replaceChildren(
        el(
          "p",
          {},
          el("span", { class: `grade grade-${audit.grade}` }, audit.grade),
          " ",
          texts.auditTitle(audit.grade, audit.score),
        ),
        audit.findings.length === 0
          ? el("p", { class: "muted" }, texts.auditNone)
          : el("ul", { class: "finding-list" }, ...audit.findings.map(finding)),
      );
    },
  };
}

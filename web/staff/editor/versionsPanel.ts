/**
 * The editor's versions: each published version with Restore (`POST …/restore`), and a comparison
 * of two versions' specs side by side (`GET …/versions/{a}/diff/{b}`; the SQL shows because the
 * editor calls as an author).
 */
import { alertBox, el, field, localTime, whileSubmitting } from "../dom.ts";
import { noteDialog } from "../noteDialog.ts";
import type { PageContext } from "../page.ts";
import { segment } from "../staffApi.ts";
import { cardTable } from "../tables.ts";
import type { VersionEntry } from "../types.ts";
import type { EditorTexts } from "./editorTexts.ts";

interface SpecChange {
  path: string;
  before: unknown;
  after: unknown;
  redacted?: true;
}

export interface VersionsPanel {
  element: HTMLElement;
  /** Draws the list again (after a publish, a restore or a discard). */
  show(versions: VersionEntry[], hasDraft: boolean): void;
}

export function versionsPanel(
  ctx: PageContext,
  texts: EditorTexts,
  reportId: string,
  onRestored: (entry: VersionEntry) => Promise<void>,
): VersionsPanel {
  const list = el("div", { class: "version-list" });
  const from = el("select", { id: "compare-from" });
  const to = el("select", { id: "compare-to" });
  const result = el("div", { class: "spec-diff", "aria-live": "polite" });
  const problem = alertBox();
  const compareButton = el("button", { type: "submit" }, texts.showChanges);
  const compare = el(
    "form",
    { class: "compare-form" },
    el("h3", {}, texts.compare),
    el("p", { class: "hint" }, texts.compareIntro),
    el(
      "div",
      { class: "compare-fields" },
      field("compare-from", texts.compareFrom, from),
      field("compare-to", texts.compareTo, to),
      compareButton,
    ),
    problem.element,
    result,
  );
  compare.addEventListener("submit", (event) => {
    event.preventDefault();
    void whileSubmitting(compareButton, texts.showChanges, problem, async () => {
      try {
        const diff = await ctx.api.get<{ from: string; to: string; changes: SpecChange[] }>(
          `/api/reports/${segment(reportId)}/versions/${segment(from.value)}/diff/${segment(to.value)}`,
        );
        result.replaceChildren(diffTable(texts, diff.from, diff.to, diff.changes));
      } catch (error) {
        problem.show(error instanceof Error ? error.message : String(error));
      }
    });
  });

  const restore = (version: VersionEntry) => {
    let restored: VersionEntry;
    noteDialog(ctx, {
      title: texts.restoreTitle(version.no),
      about: [],
      formClass: "restore-form",
      fieldId: "restore-note",
      label: texts.note,
      hint: texts.restoreNoteHint(version.no),
      maxLength: 2000,
      submit: { text: texts.restore, busy: texts.restoring },
      async send(note) {
        restored = await ctx.api.post<VersionEntry>(
          `/api/reports/${segment(reportId)}/restore`,
          note ? { version: version.no, note } : { version: version.no },
        );
      },
      done: () => onRestored(restored),
    });
  };

  const show = (versions: VersionEntry[], hasDraft: boolean) => {
    const rows = versions.map((version) =>
      el(
        "tr",
        { "data-version": version.no, class: version.current ? "current" : null },
        el(
          "th",
          { scope: "row" },
          version.no,
          version.current ? el("span", { class: "badge published" }, ctx.texts.current) : null,
        ),
        el("td", {}, localTime(version.time)),
        el("td", {}, version.who),
        el("td", { class: "note" }, version.note),
        el("td", {}, ctx.texts.modes[version.mode] ?? version.mode),
        el("td", {}, el("span", { class: `grade grade-${version.audit.grade}` }, version.audit.grade)),
        el(
          "td",
          { class: "actions" },
          el(
            "button",
            {
              type: "button",
              class: "small",
              "aria-label": `${texts.restore} ${version.no}`,
              onclick: () => restore(version),
            },
            texts.restore,
          ),
        ),
      ),
    );
    const headings = [
      ctx.texts.colVersion,
      ctx.texts.colTime,
      ctx.texts.colWho,
      ctx.texts.colNote,
      ctx.texts.colMode,
      ctx.texts.colAudit,
      ctx.texts.colActions,
    ];
    list.replaceChildren(
      versions.length
        ? cardTable(
            el(
              "table",
              { class: "data versions" },
              el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", { scope: "col" }, h)))),
              el("tbody", {}, ...rows),
            ),
          )
        : el("p", { class: "empty" }, ctx.texts.noVersions),
    );
    // Newest on the right: compare the current version with the draft, or the two newest versions.
    const choices = [...(hasDraft ? [["draft", texts.draft]] : []), ...versions.map((v) => [v.no, v.no])] as Array<
      [string, string]
    >;
    for (const select of [from, to])
      select.replaceChildren(...choices.map(([value, text]) => el("option", { value }, text)));
    to.value = choices[0]?.[0] ?? "";
    from.value = choices[1]?.[0] ?? choices[0]?.[0] ?? "";
    compare.hidden = choices.length < 2;
    result.replaceChildren();
  };

  const element = el(
    "section",
    { class: "card versions-panel", "aria-labelledby": "versions-title" },
    el("h2", { id: "versions-title" }, texts.versions),
    el("p", { class: "hint" }, texts.versionsIntro),
    list,
    compare,
  );
  return { element, show };
}

/** The changes in three columns: where, the older side, the newer side (SQL and long values as blocks). */
function diffTable(texts: EditorTexts, from: string, to: string, changes: SpecChange[]): HTMLElement {
  if (changes.length === 0) return el("p", { class: "empty" }, texts.noChanges);
  const value = (side: unknown, redacted: boolean) => {
    if (redacted) return el("span", { class: "muted" }, texts.sqlRedacted);
    if (side === null || side === undefined) return el("span", { class: "muted" }, texts.absent);
    return el("pre", {}, typeof side === "string" ? side : JSON.stringify(side, null, 2));
  };
  return el(
    "table",
    { class: "data diff" },
    el("caption", {}, texts.changesOf(from, to)),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, texts.where),
        el("th", { scope: "col" }, `${texts.before} (${from})`),
        el("th", { scope: "col" }, `${texts.after} (${to})`),
      ),
    ),
    el(
      "tbody",
      {},
      ...changes.map((change) =>
        el(
          "tr",
          {
            "data-change": change.path,
            class: change.before === null ? "added" : change.after === null ? "removed" : "changed",
          },
          el("th", { scope: "row" }, el("code", {}, change.path)),
          el("td", { class: "before" }, value(change.before, change.redacted === true)),
          el("td", { class: "after" }, value(change.after, change.redacted === true)),
        ),
      ),
    ),
  );
}

/**
 * "Save and preview": the draft is saved on condition that it is still the one this editing started
 * from, and what the service says back is shown (the audit and the queries that failed when tried,
 * at their SQL; or the problems it refuses the spec for; or that another author changed the draft
 * meanwhile, with the choices that leaves).
 */
import { REPORT_ID_PATTERN } from "../../../commands/reports/spec/specVocabulary.ts";
import { el, whileSubmitting } from "../dom.ts";
import { segment, type ApiError } from "../staffApi.ts";
import type { Audit, QueryProblem } from "../types.ts";
import type { EditorParts } from "./editorParts.ts";
import { markInvalid } from "./formFields.ts";
import { reload, showPreview, showVersions } from "./reportReload.ts";
import type { SpecProblemCode } from "../../../commands/reports/spec/specSchema.ts";
import { PROBLEM_ZH } from "./problemTexts.ts";
import { parsePath, problemsOf, type PathProblem } from "./specPaths.ts";

/**
 * Saves the draft on condition that it is still the one this editing started from (or that there
 * is none); `overwrite` saves whatever is there now. True when the service took it; the preview shows it then.
 */
export async function save(e: EditorParts, { overwrite = false }: { overwrite?: boolean } = {}): Promise<boolean> {
  if (!readyToSave(e)) return false;
  const { ctx, texts, state, toolbar } = e;
  let saved = false;
  await whileSubmitting(toolbar.saveButton, texts.saving, toolbar.problem, async () => {
    try {
      const condition: Record<string, string> = overwrite
        ? {}
        : state.basedOn
          ? { "if-match": state.basedOn }
          : { "if-none-match": "*" };
      const { body: answer, headers } = await ctx.api.exchange<{ audit: Audit; queryProblems?: QueryProblem[] }>(
        "PUT",
        `/api/reports/${segment(state.id)}/draft`,
        { body: { datasource: state.datasource, spec: state.spec }, headers: condition },
      );
      saved = true;
      showSaved(e, answer.audit, answer.queryProblems ?? [], headers.get("etag"));
    } catch (error) {
      showRefusal(e, error);
    }
  });
  return saved;
}

/** A JSON text that does not parse is not sent, nor a new report without a valid id. */
function readyToSave({ state, texts, toolbar, identity }: EditorParts): boolean {
  if (state.jsonBroken) {
    toolbar.problem.show(texts.jsonBroken);
    return false;
  }
  if (!state.exists && !REPORT_ID_PATTERN.test(state.id)) {
    markInvalid(identity.idInput, texts.reportIdInvalid);
    identity.idInput.focus();
    return false;
  }
  return true;
}

function showSaved(e: EditorParts, audit: Audit, queryProblems: QueryProblem[], etag: string | null): void {
  const { texts, state, toolbar, versions } = e;
  state.basedOn = etag;
  state.draftAudit = audit;
  // Shown when the form (or the JSON view) is drawn again just below.
  state.queryProblems = queryProblems;
  showConflict(e, null);
  showProblems(e, []);
  e.findings.showAudit(audit);
  if (!state.exists) {
    state.exists = true;
    e.identity.idInput.readOnly = true;
    // The address names the report now, without opening the page again.
    history.replaceState(null, "", `#edit/${encodeURIComponent(state.id)}`);
    // The shell's links that carry the address (the other language) follow it (issue #54).
    window.dispatchEvent(new Event("dh:address"));
    showVersions(e, []);
  }
  state.hasDraft = true;
  state.dirty = false;
  e.heading.textContent = texts.editReport(state.id);
  toolbar.status.textContent = texts.saved(new Date().toTimeString().slice(0, 5));
  toolbar.refreshButtons();
  versions.panel?.show(versions.shown, true);
  showPreview(e);
}

/** A 400 lists the spec's problems where they point; a 412 is another author's change; anything else is said under the toolbar. */
function showRefusal(e: EditorParts, error: unknown): void {
  // The page's calls are made by the staff bundle, whose ApiError is another class than this bundle's.
  const code = (error as Partial<ApiError>).status;
  if (code === 400) showProblems(e, refusedProblems(e, error as Error & Partial<ApiError>));
  else if (code === 412) showConflict(e, (error as Error).message);
  else e.toolbar.problem.show(error instanceof Error ? error.message : String(error));
}

/**
 * A 400's problems: on a Chinese page each said by its code where the service lists them
 * (`problems`), so the page reads one language (issue #54); on an English page, and for a refusal
 * without a list, as the service's sentence says them.
 */
function refusedProblems(e: EditorParts, error: Error & Partial<ApiError>): PathProblem[] {
  if (e.ctx.lang === "en" || !error.problems?.length) return problemsOf(error.message);
  return error.problems.map((problem) => ({
    path: parsePath(problem.path),
    message: PROBLEM_ZH[problem.code as SpecProblemCode] ?? PROBLEM_ZH["spec-invalid"],
    code: problem.code,
  }));
}

function showProblems({ state, findings, views }: EditorParts, problems: PathProblem[]): void {
  state.problems = problems;
  findings.listProblems(problems);
  views.showProblems(problems);
}

/**
 * Says that another author saved, published or discarded the draft since this editing began (the
 * service's sentence), with the two ways on: load theirs, or save this over it. Null clears it.
 */
export function showConflict(e: EditorParts, sentence: string | null): void {
  const { conflictBox, texts } = e;
  conflictBox.hidden = sentence === null;
  conflictBox.replaceChildren(
    ...(sentence === null
      ? []
      : [
          el("p", {}, el("strong", {}, texts.conflictTitle), " ", sentence),
          el(
            "p",
            { class: "form-actions start" },
            el(
              "button",
              {
                type: "button",
                "data-action": "load-theirs",
                onclick: () => void reload(e, { editorToo: true }).then(() => showConflict(e, null)),
              },
              texts.loadTheirs,
            ),
            el(
              "button",
              {
                type: "button",
                class: "remove",
                "data-action": "overwrite",
                onclick: () => void save(e, { overwrite: true }),
              },
              texts.overwrite,
            ),
          ),
        ]),
  );
}

/**
 * The columns of each report query's result, as the previewed version (the draft, or the current
 * version) returns them (issue #54): what the form offers a chart's axes and series, a figure's
 * column. Read with the data call the preview makes too; a query that fails offers none.
 */
import { segment } from "../staffApi.ts";
import type { EditorParts } from "./editorParts.ts";

interface DataAnswer {
  queries: Record<string, { columns?: string[]; error?: string }>;
}

/** Reads the columns of `version`'s queries; the form is drawn again with them unless the author is in it. */
export async function loadResultColumns(e: EditorParts, version: string): Promise<void> {
  const { ctx, state, views } = e;
  let answer: DataAnswer;
  try {
    answer = await ctx.api.post<DataAnswer>(`/api/reports/${segment(state.id)}/data`, { version });
  } catch {
    return; // The fields stay typed by hand, as before.
  }
  state.resultColumns = new Map(
    Object.entries(answer.queries).flatMap(([name, outcome]) => (outcome.columns ? [[name, outcome.columns]] : [])),
  );
  // Drawn again now only when no field of the form has the focus: a person typing keeps their field.
  if (!views.formPanel.contains(document.activeElement)) views.drawForm();
  else state.columnsPending = true;
}

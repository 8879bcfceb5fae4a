/**
 * Where the service's problems point in the form view: each is marked at the control or card whose
 * `data-path` is its path (or the nearest one the form draws), and a link to it moves focus there.
 */
import { el } from "../dom.ts";
import { markInvalid } from "./formFields.ts";
import { nearest, type PathProblem, type Segment } from "./specPaths.ts";

/** The problems that name a place in the spec (the others are about the report as a whole). */
export const pathed = (problems: PathProblem[]) =>
  problems.filter((p): p is { path: Segment[]; message: string } => p.path !== null);

function placeIn(formPanel: HTMLElement, path: Segment[]): HTMLElement | null {
  const found = nearest(path, (text) => formPanel.querySelector(`[data-path="${CSS.escape(text)}"]`) !== null);
  return found === null ? null : formPanel.querySelector<HTMLElement>(`[data-path="${CSS.escape(found)}"]`);
}

/** A control gets its problem as its error message; a card or a section, as a sentence at its end. */
export function markProblems(formPanel: HTMLElement, problems: PathProblem[]): void {
  for (const { path, message } of pathed(problems)) {
    const place = placeIn(formPanel, path);
    if (!place) continue;
    if (place.matches("input, select, textarea, [contenteditable]")) markInvalid(place, message);
    else place.append(el("p", { class: "field-error" }, message));
  }
}

export function focusPlace(formPanel: HTMLElement, path: Segment[]): void {
  const place = placeIn(formPanel, path);
  if (!place) return;
  // Details inside a closed card are opened; the control itself, else the first inside, gets focus.
  place.scrollIntoView({ block: "center" });
  const target = place.matches("input, select, textarea, button, [contenteditable]")
    ? place
    : place.querySelector<HTMLElement>("input, select, textarea, [contenteditable]");
  target?.focus();
}

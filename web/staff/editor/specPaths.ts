/**
 * JSON paths as the service writes them in its 400 sentences and audit findings
 * (`spec.nodes[2].drill.target`, `queries.monthly`, `drills["by-month"].title`), read into
 * segments, and the spec read and changed at such a path. Paths here are relative to the spec.
 */
import { renderPath } from "../../../commands/reports/spec/specVocabulary.ts";

export type Segment = string | number;
export { renderPath };

const SEGMENT = /\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** `nodes[2].query` → ["nodes", 2, "query"]; a leading `spec.` is dropped; null when it is no path. */
export function parsePath(text: string): Segment[] | null {
  const path: Segment[] = [];
  SEGMENT.lastIndex = 0;
  while (SEGMENT.lastIndex < text.length) {
    const start = SEGMENT.lastIndex;
    const match = SEGMENT.exec(text);
    if (!match || match.index !== start) return null;
    path.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : (JSON.parse(match[3]!) as string)));
  }
  if (path[0] === "spec") path.shift();
  return path;
}

/** A problem named by the service: `spec.<path>: <sentence>`, several in one 400 answer. */
export interface PathProblem {
  path: Segment[] | null;
  message: string;
  /** The problem's kind, where the service gave it (`problems` of a 400). */
  code?: string;
}

const PROBLEM_START = /(?:^|\s)(spec(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*):\s/g;

/** The 400 sentence of `PUT …/draft` split into its problems; a sentence without a path is one problem without one. */
export function problemsOf(sentence: string): PathProblem[] {
  const starts = [...sentence.matchAll(PROBLEM_START)];
  if (starts.length === 0) return [{ path: null, message: sentence }];
  const problems: PathProblem[] = [];
  const before = sentence.slice(0, starts[0]!.index).trim();
  if (before) problems.push({ path: null, message: before });
  starts.forEach((start, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.index : sentence.length;
    problems.push({ path: parsePath(start[1]!), message: sentence.slice(start.index + start[0].length, end).trim() });
  });
  return problems;
}

type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => typeof value === "object" && value !== null;

export function valueAt(root: unknown, path: readonly Segment[]): unknown {
  let here = root;
  for (const key of path) {
    if (!isContainer(here)) return undefined;
    here = (here as Record<string | number, unknown>)[key];
  }
  return here;
}

/**
 * Sets the member at `path`, making objects on the way; `undefined` removes it, so a field left
 * empty leaves the member out (the spec format's defaults apply) instead of writing `""`.
 */
export function setAt(root: Record<string, unknown>, path: readonly Segment[], value: unknown): void {
  let here: Container = root;
  for (const [i, key] of path.slice(0, -1).entries()) {
    const next: unknown = (here as Record<string | number, unknown>)[key];
    if (isContainer(next)) here = next;
    else {
      const made: Container = typeof path[i + 1] === "number" ? [] : {};
      (here as Record<string | number, unknown>)[key] = made;
      here = made;
    }
  }
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(here) && typeof last === "number") here.splice(last, 1);
    else delete (here as Record<string | number, unknown>)[last];
  } else (here as Record<string | number, unknown>)[last] = value;
}

/** The longest start of `path` for which `has` is true (the element an error can be shown at). */
export function nearest(path: readonly Segment[], has: (path: string) => boolean): string | null {
  for (let length = path.length; length >= 0; length--) {
    const text = renderPath(path.slice(0, length));
    if (has(text)) return text;
  }
  return null;
}

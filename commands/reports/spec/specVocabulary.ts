/**
 * A report's id and how its versions are named, the words of the spec format (types, kinds, tones),
 * how a place in a spec is named in the service's sentences (`nodes[2].drill.target`) and how a
 * drill's title names its args. Free of imports, so the staff pages' report editor offers exactly
 * what the schema (specSchema.ts) accepts without bundling the schema, and the embed page speaks
 * as the server does.
 */
/** A report id (contract C.3). */
export const REPORT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

// A report's versions in the interface (contract A.2): `v1`, `v2`, … published, `draft` the draft.
// The restore body, the viewing calls and the OpenAPI document all speak these.
export const DRAFT_LABEL = "draft";

/** A published version's label as the interface states its shape (OpenAPI, the restore body). */
export const VERSION_LABEL = /^v[1-9][0-9]*$/;

// A version's number is an integer column: a label of ten digits or more names no version.
const MAX_LABEL_LENGTH = 10;

export const versionLabel = (no: number): string => `v${no}`;

/** The number of the published version a label names; null when it names none (`draft`, `v0`, `v99999999999`). */
export function versionNo(label: string): number | null {
  return VERSION_LABEL.test(label) && label.length <= MAX_LABEL_LENGTH ? Number(label.slice(1)) : null;
}

/**
 * The relations the `clinical` data source offers report SQL (contract C.5), as the editor
 * completes them: db/clinicalViews.ts defines each, and a test keeps the two lists equal.
 */
export const CLINICAL_RELATION_NAMES = [
  "patients",
  "lab_reports",
  "lab_results",
  "exam_reports",
  "std_items",
  "monthly_results",
  "latest_results",
  "std_targets",
  "derived_results",
  "quality_months",
] as const;

export const PARAM_TYPES = [
  "date",
  "dateRange",
  "number",
  "numberRange",
  "text",
  "select",
  "multiSelect",
  "boolean",
] as const;

/** A filter whose value is two ends, bound in SQL as `{{name.from}}` and `{{name.to}}`. */
export const isRangeParam = (type: string): boolean => type === "dateRange" || type === "numberRange";
export const DRILL_ARG_TYPES = ["date", "number", "text", "boolean"] as const;
export const NODE_TYPES = ["text", "stat", "table", "chart"] as const;
export const CHART_KINDS = ["line", "bar", "area", "pie", "scatter"] as const;
export const HIGHLIGHT_TONES = ["danger", "warning", "ok"] as const;
export const COLUMN_ALIGNS = ["left", "center", "right"] as const;

/** `queries.monthly.sql`, `nodes[2].query`, `queries["my query"]`; "" for the root. */
export function renderPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * `{arg}` in a drill's title: the clicked row's value of that arg; `{arg:month}` its month, as the
 * reader's language writes one (issue #54: "2026年3月", "2026-03", not the first of the month).
 */
const DRILL_TITLE_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)(?::(month))?\}/g;

/** The args a drill title names, in order of appearance (repetitions included). */
export function drillTitleArgs(title: string): string[] {
  return Array.from(title.matchAll(DRILL_TITLE_PLACEHOLDER), (match) => match[1]!);
}

/** A drill's title with each `{arg}` filled in with the arg's value (nothing for a null one). */
export function drillTitle(title: string, args: Record<string, unknown>, lang: "zh" | "en" = "en"): string {
  return title.replace(DRILL_TITLE_PLACEHOLDER, (_, name: string, month: string | undefined) => {
    const value = args[name];
    if (value == null) return "";
    const ym = month ? /^(\d{4})-(\d{2})/.exec(String(value)) : null;
    if (!ym) return String(value);
    return lang === "zh" ? `${ym[1]}年${Number(ym[2])}月` : `${ym[1]}-${ym[2]}`;
  });
}

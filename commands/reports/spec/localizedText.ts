/**
 * Words of a report in the reader's language (issue #54): wherever a specification has a display
 * string (a title, a label, a text, a unit), it may instead give one per language,
 * `{ "zh": "透析充分性", "en": "Dialysis adequacy" }`. A plain string keeps working and reads the
 * same in every language. The viewing calls, the pages and the exports show each string in the
 * reader's language, else in the other one given.
 *
 * The spec is stored as the author wrote it; `localizeSpec` makes the spec a reader is shown, with
 * every display string resolved, so the pages, the chart options and the exports only ever handle
 * strings. Free of run-time imports: the schema (specSchema.ts) builds the rule, this the reading.
 */

export const SPEC_LANGS = ["zh", "en"] as const;
export type SpecLang = (typeof SPEC_LANGS)[number];

/** A display string per language; at least one of them is given. */
export type LocalizedWords = { zh: string; en?: string } | { en: string; zh?: string };
/** A display string of a spec: one for every language, or one per language. */
export type LocalizedText = string | LocalizedWords;

/** A spec's type as a reader is shown it: every display string resolved to one string. */
export type Shown<T> = T extends LocalizedWords
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : { [K in keyof T]: Shown<T[K]> };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a value is given per language (`{ zh, en }`), rather than as one string. */
export function isLocalizedWords(value: unknown): value is LocalizedWords {
  if (!isRecord(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key === "zh" || key === "en");
}

/** The text in `lang`, else in the other language; a plain string as it is. */
export function textIn(value: LocalizedText, lang: SpecLang): string;
export function textIn(value: LocalizedText | undefined, lang: SpecLang): string | undefined;
export function textIn(value: LocalizedText | undefined, lang: SpecLang): string | undefined {
  if (value === undefined || typeof value === "string") return value;
  const other: SpecLang = lang === "zh" ? "en" : "zh";
  return value[lang] ?? value[other] ?? "";
}

type Json = Record<string, unknown>;

/** Resolves `member` of `object` in place, when present. */
function resolve(object: Json, member: string, lang: SpecLang): void {
  const value = object[member];
  if (typeof value === "string" || isLocalizedWords(value)) object[member] = textIn(value, lang);
}

function resolveNodes(nodes: unknown, lang: SpecLang): void {
  if (!Array.isArray(nodes)) return;
  for (const node of nodes) {
    if (!isRecord(node)) continue;
    for (const member of ["title", "markdown", "unit", "xLabel", "yLabel", "y2Label"]) resolve(node, member, lang);
    if (Array.isArray(node.columns))
      for (const column of node.columns)
        if (isRecord(column)) for (const member of ["label", "unit"]) resolve(column, member, lang);
    if (Array.isArray(node.refLines))
      for (const line of node.refLines) if (isRecord(line)) resolve(line, "label", lang);
    if (isRecord(node.labels)) for (const series of Object.keys(node.labels)) resolve(node.labels, series, lang);
  }
}

/**
 * A copy of the spec with every display string in `lang` (else the other language): the title
 * and description, the filters' labels and option labels, every node's title, text, units, axis
 * names, reference-line labels, series names and column headings, and each drill's title and
 * nodes. Everything else (queries, names, values) is left as it is.
 */
export function localizeSpec<S extends object>(spec: S, lang: SpecLang): Shown<S> {
  const copy = structuredClone(spec) as unknown as Json;
  resolve(copy, "title", lang);
  resolve(copy, "description", lang);
  if (Array.isArray(copy.params)) {
    for (const param of copy.params) {
      if (!isRecord(param)) continue;
      resolve(param, "label", lang);
      if (Array.isArray(param.options))
        for (const option of param.options) if (isRecord(option)) resolve(option, "label", lang);
    }
  }
  resolveNodes(copy.nodes, lang);
  if (isRecord(copy.drills)) {
    for (const drill of Object.values(copy.drills)) {
      if (!isRecord(drill)) continue;
      resolve(drill, "title", lang);
      resolveNodes(drill.nodes, lang);
    }
  }
  return copy as Shown<S>;
}

/**
 * The title a reader is shown for a report: the spec's title in their language when the spec
 * gives it per language, else the title the report was saved with.
 */
export function shownTitle(saved: string, spec: { title?: unknown }, lang: SpecLang): string {
  return isLocalizedWords(spec.title) ? textIn(spec.title, lang) : saved;
}

/** The title a report is saved under when its save names none: the spec's, in English when given per language. */
export function savedTitle(title: LocalizedText): string {
  return textIn(title, "en");
}

/**
 * The report specification (contract A.4) as a zod schema, with the checks the contract implies:
 * member shapes, defaults of the right JSON shape, unique names, and the cross-references
 * (a node's query, an option list's query, a drill target and its args).
 *
 * Decisions the contract left open (see also the report of the module):
 * - Objects are strict: an unknown member (a typo such as `defualt`) is an error naming it,
 *   because the format is versioned (`version: 1`) and a silently ignored member is a silent bug.
 * - `params`, `queries` and `nodes` are required (`[]` / `{}` when empty); `drills`, `export`,
 *   `description` are optional. `default` is optional and means `null` when absent.
 * - `select` / `multiSelect` must declare `options`; other types must not.
 * - Select values and option values are strings or numbers (bound as text).
 * - A `required` param must have a non-null default (as in Metabase, "always require a value").
 * - A range default with both ends set must not end before it starts.
 * - With a static option list, a select / multi-select default must be among the option values.
 * - A drill arg may share its name with a report param: inside the drill the arg wins
 *   (drillTemplateDefs); the audit notes it.
 * - `{word}` placeholders of a drill title must name an arg of that drill.
 * - Node ids: 1–64 of `[A-Za-z0-9_-]`, unique among the nodes of one layer (the report or one drill).
 * - A node's drill need not map every arg of the target: an unmapped arg is null at run time.
 * - `export.xlsx` / `export.docx` stay as written (the parsed spec equals what the author sent);
 *   use `exportEnabled` to read them with their default `true`.
 * - Highlight rules (tables, stats) take exactly one of below / above / between; the first rule
 *   that matches a value marks it. A table that lists its columns may only highlight those.
 * - A chart's `labels` keys must be columns it plots (y, y2), and give no two series one name.
 * - Limits: params ≤ 100, queries ≤ 100 per layer, nodes ≤ 500 per layer, drills ≤ 100,
 *   description ≤ 20000 chars, markdown ≤ 100000 chars, labels and titles ≤ 200 chars.
 */
import { z } from "zod";
import { SPEC_LANGS, textIn, type LocalizedText, type Shown } from "./localizedText.ts";
import {
  CHART_KINDS,
  COLUMN_ALIGNS,
  DRILL_ARG_TYPES,
  drillTitleArgs,
  HIGHLIGHT_TONES,
  NODE_TYPES,
  PARAM_TYPES,
  renderPath,
} from "./specVocabulary.ts";

export { CHART_KINDS, COLUMN_ALIGNS, DRILL_ARG_TYPES, HIGHLIGHT_TONES, NODE_TYPES, PARAM_TYPES, renderPath };

export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_SQL_LENGTH = 100_000;
export const MAX_TEXT_VALUE_LENGTH = 1000;

const NAME_RULE = "a letter or _ followed by at most 63 letters, digits or _";

/** A real calendar date written `yyyy-MM-dd`. */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const list = (values: readonly string[]) => values.join(", ");

/** The error of a member: "X is required: send …" when absent, "X must be …" otherwise. */
function must(subject: string, shape: string) {
  return (iss: { input?: unknown }) =>
    iss.input === undefined ? `${subject} is required: send ${shape}.` : `${subject} must be ${shape}.`;
}

/** The error of a strict object: wrong type, or members that the format does not know. */
function objectError(subject: string, shape: string, members: readonly string[]) {
  return (iss: { code?: string; input?: unknown; keys?: string[] }) => {
    if (iss.code === "unrecognized_keys") {
      const keys = iss.keys ?? [];
      const named = keys.map((k) => JSON.stringify(k)).join(", ");
      return (
        `${subject} does not take ${keys.length === 1 ? "the member" : "the members"} ${named}: remove ` +
        `${keys.length === 1 ? "it" : "them"} or fix the spelling (allowed: ${list(members)}).`
      );
    }
    return must(subject, shape)(iss);
  };
}

function strict<T extends z.core.$ZodLooseShape>(subject: string, shape: string, members: T) {
  return z.strictObject(members, { error: objectError(subject, shape, Object.keys(members)) });
}

const identifier = (subject: string) =>
  z
    .string({ error: must(subject, `a string of ${NAME_RULE}`) })
    .regex(NAME_PATTERN, { error: `${subject} must be ${NAME_RULE}, e.g. monthly_total.` });

const boundedText = (subject: string, min: number, max: number) =>
  z
    .string({
      error: must(
        subject,
        min === 0 ? `a string of at most ${max} characters` : `a string of ${min} to ${max} characters`,
      ),
    })
    .min(min, {
      error:
        min === 1
          ? `${subject} must not be empty: write at least one character.`
          : `${subject} must be at least ${min} characters long.`,
    })
    .max(max, { error: `${subject} must be at most ${max} characters long: shorten it.` });

const columnName = (subject: string) => boundedText(subject, 1, 128);

/**
 * A display string (issue #54): one string for every language, or one per language
 * `{ "zh": "病区", "en": "Ward" }` (at least one given), each under the same rule as the string.
 */
function localized(subject: string, plain: z.ZodType<string>, shape: string): z.ZodType<LocalizedText> {
  const perLanguage = strict(subject, `${shape}, or one per language { "zh": "…", "en": "…" }`, {
    zh: plain.optional(),
    en: plain.optional(),
  }).refine((words) => words.zh !== undefined || words.en !== undefined, {
    error: `${subject} given per language needs zh, en or both, e.g. { "zh": "病区", "en": "Ward" }.`,
  });
  return z
    .union([plain, perLanguage], { error: must(subject, `${shape}, or one per language { "zh": "…", "en": "…" }`) })
    .meta({
      description: `${shape}; or one per language, { "zh": "…", "en": "…" } (either may be left out): a reader sees their language's, else the other`,
    }) as unknown as z.ZodType<LocalizedText>;
}

/** boundedText, given for every language or per language. */
const localizedText = (subject: string, min: number, max: number) =>
  localized(
    subject,
    boundedText(subject, min, max),
    min === 0 ? `a string of at most ${max} characters` : `a string of ${min} to ${max} characters`,
  );

// ---------------------------------------------------------------------------------------------
// Param values (shared with the run-time validation of sent values)

const DATE_SHAPE = "a yyyy-MM-dd date";
export const VALUE_SHAPES: Record<(typeof PARAM_TYPES)[number], string> = {
  date: `${DATE_SHAPE} (a real calendar date) or null`,
  dateRange: "a two-element array [from, to] of yyyy-MM-dd dates or null (either end may be null)",
  number: "a JSON number or null",
  numberRange: "a two-element array [from, to] of JSON numbers or null (either end may be null)",
  text: `a string of at most ${MAX_TEXT_VALUE_LENGTH} characters or null`,
  select: "a single string or number (one of the options) or null",
  multiSelect: "an array of strings or numbers (the chosen options) or null",
  boolean: "true, false or null",
};

const dateValue = (subject: string) =>
  z
    .string({ error: `${subject} must be ${VALUE_SHAPES.date}.` })
    .refine(isIsoDate, { error: `${subject} must be a real calendar date written yyyy-MM-dd, e.g. 2026-03-31.` });
const numberValue = (subject: string) => z.number({ error: `${subject} must be ${VALUE_SHAPES.number}.` });
const optionValue = z.union([z.string(), z.number()]);

function rangeValue<T extends z.ZodType>(subject: string, type: "dateRange" | "numberRange", end: T) {
  return z
    .tuple([end.nullable(), end.nullable()], { error: `${subject} must be ${VALUE_SHAPES[type]}.` })
    .refine((r) => r[0] === null || r[1] === null || (r[0] as string | number) <= (r[1] as string | number), {
      error: `${subject} must not end before it starts: put the earlier value first.`,
    });
}

// ---------------------------------------------------------------------------------------------
// Params

const optionListSchema = z
  .array(
    strict("each option", "an object { value, label }", {
      value: z.union([z.string(), z.number()], { error: must("value", "a string or a number") }),
      label: localizedText("label", 0, 200),
    }),
    { error: must("options", 'a list [{ value, label }, …] or { "query": "<name of a query>" }') },
  )
  .min(1, { error: 'options must list at least one { value, label }, or name a query with { "query": "<name>" }.' })
  .max(1000, { error: 'options may list at most 1000 entries: use { "query": "<name>" } for longer lists.' });

const optionQuerySchema = strict("options", 'a list [{ value, label }, …] or { "query": "<name of a query>" }', {
  query: identifier("query"),
});

const optionsSchema = z.union([optionListSchema, optionQuerySchema], {
  error: must("options", 'a list [{ value, label }, …] or { "query": "<name of a query>" }'),
});

const paramCommon = {
  name: identifier("name"),
  label: localizedText("label", 1, 200),
  required: z.boolean({ error: "required must be true or false, or be left out." }).optional(),
};
const paramObject = <K extends string, T extends z.core.$ZodLooseShape>(type: K, members: T) =>
  strict(`a ${type} param`, "an object", { ...paramCommon, type: z.literal(type), ...members });

const paramUnion = z.discriminatedUnion(
  "type",
  [
    paramObject("date", { default: dateValue("default").nullable().optional() }),
    paramObject("dateRange", {
      default: rangeValue("default", "dateRange", dateValue("each end of default")).nullable().optional(),
    }),
    paramObject("number", { default: numberValue("default").nullable().optional() }),
    paramObject("numberRange", {
      default: rangeValue("default", "numberRange", numberValue("each end of default")).nullable().optional(),
    }),
    paramObject("text", {
      default: z
        .string({ error: `default must be ${VALUE_SHAPES.text}.` })
        .max(MAX_TEXT_VALUE_LENGTH, { error: `default must be at most ${MAX_TEXT_VALUE_LENGTH} characters long.` })
        .nullable()
        .optional(),
    }),
    paramObject("select", {
      options: optionsSchema,
      default: z
        .union([z.string(), z.number()], { error: `default must be ${VALUE_SHAPES.select}.` })
        .nullable()
        .optional(),
    }),
    paramObject("multiSelect", {
      options: optionsSchema,
      default: z
        .array(optionValue, { error: `default must be ${VALUE_SHAPES.multiSelect}.` })
        .nullable()
        .optional(),
    }),
    paramObject("boolean", {
      default: z
        .boolean({ error: `default must be ${VALUE_SHAPES.boolean}.` })
        .nullable()
        .optional(),
    }),
  ],
  { error: must("type", `one of ${list(PARAM_TYPES)}`) },
);

const paramSchema = paramUnion.superRefine((param, ctx) => {
  const value = param.default ?? null;
  if (param.required && isEmptyValue(value)) {
    ctx.addIssue({
      code: "custom",
      path: ["default"],
      message: `default must hold a value because the param is required: set a default or drop "required".`,
    });
  }
  if ((param.type === "select" || param.type === "multiSelect") && Array.isArray(param.options) && value !== null) {
    const allowed = new Set(param.options.map((o) => String(o.value)));
    const chosen = Array.isArray(value) ? value : [value];
    const stray = chosen.filter((v) => !allowed.has(String(v)));
    if (stray.length > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["default"],
        message: `default must be among the option values (${list([...allowed].slice(0, 20))}): ${list(stray.map(String))} is not.`,
      });
    }
  }
});

/** null, an empty multi-select and a range with both ends null all mean "no restriction". */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0 || value.every((v) => v === null);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Queries, nodes, drills

const querySchema = strict("a query", 'an object { "sql": "select …" }', {
  sql: z
    .string({ error: must("sql", `a string of 1 to ${MAX_SQL_LENGTH} characters holding one select statement`) })
    .min(1, { error: "sql must not be empty: write one select statement." })
    .max(MAX_SQL_LENGTH, { error: `sql must be at most ${MAX_SQL_LENGTH} characters long: shorten the query.` }),
});

const queriesSchema = (subject: string, min: number) =>
  z
    .record(identifier("a query name"), querySchema, {
      error: must(subject, 'an object mapping query names to { "sql": "select …" }'),
    })
    .refine((q) => Object.keys(q).length >= min, { error: `${subject} must hold at least ${min} query.` })
    .refine((q) => Object.keys(q).length <= 100, {
      error: `${subject} may hold at most 100 queries: split the report.`,
    });

const nodeDrillSchema = strict("drill", "an object { target, args }", {
  target: identifier("target"),
  args: z.record(identifier("an arg name"), columnName("each arg's column"), {
    error: must("args", "an object mapping the target's arg names to column names of the clicked row"),
  }),
});

const nodeCommon = {
  id: z
    .string({ error: must("id", "a string of 1 to 64 letters, digits, _ or -") })
    .regex(NODE_ID_PATTERN, { error: "id must be 1 to 64 letters, digits, _ or -, e.g. trend." }),
  width: z
    .number({ error: "width must be a whole number from 1 to 12, or be left out." })
    .int({ error: "width must be a whole number from 1 to 12." })
    .min(1, { error: "width must be at least 1 (of 12 grid columns)." })
    .max(12, { error: "width must be at most 12 (the full row)." })
    .optional(),
};
const title = localizedText("title", 1, 200).optional();

const textNode = strict("a text node", "an object", {
  ...nodeCommon,
  type: z.literal("text"),
  markdown: localized(
    "markdown",
    z
      .string({ error: must("markdown", "a string of markdown") })
      .max(100_000, { error: "markdown must be at most 100000 characters long." }),
    "a string of markdown",
  ),
  // Issue #34: a text meant for the screen ("click a month to list its patients") is left out of
  // the Word export and the printed page with print: false.
  print: z
    .boolean({
      error: must(
        "print",
        "true or false (false: shown on screen only, left out of the Word export and the printed page)",
      ),
    })
    .optional(),
});
// ---------------------------------------------------------------------------------------------
// Conditional highlight (issue #22): a tone for a value below, above or between limits

export const MAX_HIGHLIGHT_RULES = 20;
const CONDITIONS = ["below", "above", "between"] as const;

const limit = (member: string, example: string) => z.number({ error: must(member, `a number, e.g. ${example}`) });

/**
 * One rule; `column` is required in a table's rules and optional in a stat's. Exactly one
 * condition per rule: "below 1.2 or above 2" is two rules, which reads more plainly than a rule
 * whose members combine in a way the author must look up.
 */
function highlightRule(forStat: boolean) {
  const shape = `an object { ${forStat ? "column?, " : "column, "}below | above | between, tone }`;
  return strict("a highlight rule", shape, {
    column: forStat
      ? columnName("column").meta({ description: "The stat's own column; may be left out." }).optional()
      : columnName("column").meta({ description: "The column whose values the rule marks: one the table shows." }),
    below: limit("below", "1.2").meta({ description: "Matches a value less than this number." }).optional(),
    above: limit("above", "130").meta({ description: "Matches a value greater than this number." }).optional(),
    between: z
      .tuple([z.number(), z.number()], { error: "between must be two numbers [lower, upper], e.g. [110, 130]." })
      .refine(([lo, hi]) => lo <= hi, {
        error: "between must not end before it starts: write [lower, upper], e.g. [110, 130].",
      })
      .meta({ description: "Matches a value from the first number to the second, both included." })
      .optional(),
    tone: z
      .enum(HIGHLIGHT_TONES, { error: must("tone", `one of ${list(HIGHLIGHT_TONES)}`) })
      .meta({ description: "How a matching value is marked: danger (red), warning (amber) or ok (green)." }),
  }).superRefine((rule, ctx) => {
    const given = CONDITIONS.filter((c) => rule[c] !== undefined);
    if (given.length === 0)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "a highlight rule needs a condition: give one of below, above or between [lower, upper].",
      });
    if (given.length > 1) {
      ctx.addIssue({
        code: "custom",
        path: [given[1]!],
        message:
          `a highlight rule takes one condition, and this one has ${given.join(" and ")}: write one rule per ` +
          "condition (the first rule that matches marks the value).",
      });
    }
  });
}

const highlightList = (forStat: boolean) =>
  z
    .array(highlightRule(forStat), {
      error: must(
        "highlight",
        `an array of ${forStat ? "{ below | above | between, tone }" : "{ column, below | above | between, tone }"} rules`,
      ),
    })
    .max(MAX_HIGHLIGHT_RULES, { error: `highlight may hold at most ${MAX_HIGHLIGHT_RULES} rules.` })
    .meta({ description: "Conditional highlight: the first rule that matches a value marks it with its tone." })
    .optional();

const statNode = strict("a stat node", "an object", {
  ...nodeCommon,
  type: z.literal("stat"),
  title,
  query: identifier("query"),
  column: columnName("column"),
  format: boundedText("format", 1, 100).optional(),
  unit: localizedText("unit", 1, 50).meta({ description: "Shown after the value, e.g. g/L." }).optional(),
  highlight: highlightList(true),
}).superRefine((node, ctx) => {
  node.highlight?.forEach((rule, i) => {
    if (rule.column !== undefined && rule.column !== node.column) {
      ctx.addIssue({
        code: "custom",
        path: ["highlight", i, "column"],
        message: `column of a stat's highlight rule must be the stat's column ${JSON.stringify(node.column)}, or be left out.`,
      });
    }
  });
});
export const COLUMN_FORMAT_PATTERN = /^(?:(?:number|percent):[0-6]|date|datetime|month)$/;

/** A table column with how it is shown (issue #22); a plain column name shows it as it comes. */
const tableColumn = strict("a column", "a column name, or an object { column, label, unit, format, align }", {
  column: columnName("column"),
  label: localizedText("label", 1, 200).optional(),
  unit: localizedText("unit", 1, 50).optional(),
  format: z
    .string({ error: must("format", "number:<decimals>, percent:<decimals>, date, datetime or month") })
    .regex(COLUMN_FORMAT_PATTERN, {
      error:
        "format must be number:<decimals> or percent:<decimals> (0 to 6 decimals), date, datetime or month, e.g. number:1.",
    })
    .optional(),
  align: z.enum(COLUMN_ALIGNS, { error: must("align", `one of ${list(COLUMN_ALIGNS)}`) }).optional(),
});

const tableNode = strict("a table node", "an object", {
  ...nodeCommon,
  type: z.literal("table"),
  title,
  query: identifier("query"),
  columns: z
    .array(
      z.union([columnName("each column"), tableColumn], {
        error: must("each column", "a column name, or an object { column, label, unit, format, align }"),
      }),
      {
        error: must(
          "columns",
          "an array of column names (or { column, label, unit, format, align } objects), or be left out for all columns",
        ),
      },
    )
    .optional(),
  highlight: highlightList(false),
  drill: nodeDrillSchema.optional(),
}).superRefine((node, ctx) => {
  if (!node.columns || !node.highlight) return;
  const shown = node.columns.map((entry) => (typeof entry === "string" ? entry : entry.column));
  node.highlight.forEach((rule, i) => {
    if (rule.column !== undefined && !shown.includes(rule.column)) {
      ctx.addIssue({
        code: "custom",
        path: ["highlight", i, "column"],
        message: `column ${JSON.stringify(rule.column)} is not a column this table shows: use one of ${list(shown)}, or add it to columns.`,
      });
    }
  });
});
/**
 * A chart's `labels` may only name what it plots (a key that is no y or y2 column is a typo or a
 * leftover, which would silently do nothing), and two series must not end up with one name: the
 * legend could not tell them apart.
 */
function seriesLabelProblems(node: {
  y: string[];
  y2?: string[];
  labels?: Record<string, LocalizedText>;
}): Array<{ path: (string | number)[]; message: string }> {
  if (!node.labels) return [];
  const plotted = [...node.y, ...(node.y2 ?? [])];
  const problems = Object.keys(node.labels)
    .filter((key) => !plotted.includes(key))
    .map((key) => ({
      path: ["labels", key],
      message:
        `labels names ${JSON.stringify(key)}, which is not a column of y or y2: use one of ${list(plotted)} as ` +
        `the key, or add ${JSON.stringify(key)} to y or y2.`,
    }));
  // In each language the legend is read in (a name given per language, or one for both).
  const said = new Set<string>();
  for (const lang of SPEC_LANGS) {
    const seen = new Map<string, string>();
    for (const column of plotted) {
      const label = node.labels[column];
      const name = label === undefined ? column : textIn(label, lang);
      const first = seen.get(name);
      const problem =
        `labels gives ${first} and ${column} the same name ${JSON.stringify(name)}: give each plotted column a ` +
        "name of its own, or the legend cannot tell them apart.";
      if (first !== undefined && first !== column && !said.has(problem)) {
        said.add(problem);
        problems.push({ path: ["labels", label !== undefined ? column : first], message: problem });
      }
      seen.set(name, column);
    }
  }
  return problems;
}

/** Charts with a category x axis and value y axes: the ones a second axis, stacking and reference lines apply to. */
const AXIS_CHARTS: ReadonlySet<string> = new Set(["line", "bar", "area"]);

const chartNode = strict("a chart node", "an object", {
  ...nodeCommon,
  type: z.literal("chart"),
  chart: z.enum(CHART_KINDS, { error: must("chart", `one of ${list(CHART_KINDS)}`) }),
  title,
  query: identifier("query"),
  x: columnName("x"),
  y: z
    .array(columnName("each y column"), { error: must("y", "an array of at least one column name") })
    .min(1, { error: "y must name at least one column to plot." }),
  // Issue #22: a second y axis, axis names (with units), stacked series, reference lines.
  y2: z
    .array(columnName("each y2 column"), {
      error: must("y2", "an array of column names plotted against a second y axis on the right"),
    })
    .min(1, { error: "y2 must name at least one column, or be left out." })
    .optional(),
  xLabel: localizedText("xLabel", 1, 100).optional(),
  yLabel: localizedText("yLabel", 1, 100).optional(),
  y2Label: localizedText("y2Label", 1, 100).optional(),
  stacked: z.boolean({ error: must("stacked", "true or false") }).optional(),
  // Issue #54: a breakout, one series for each value of this column (a month × ward query: a bar or line per ward).
  series: columnName("series")
    .meta({
      description:
        "A column whose values split the rows into series (one per value, named by it in the legend), e.g. " +
        "ward: a month × ward query drawn as a bar or line per ward",
    })
    .optional(),
  refLines: z
    .array(
      strict("a reference line", "an object { value, label }", {
        value: z.number({ error: must("value", "a number on the y axis, e.g. 1.2") }),
        label: localizedText("label", 1, 100).optional(),
      }),
      { error: must("refLines", "an array of { value, label } objects") },
    )
    .max(10, { error: "refLines may hold at most 10 lines." })
    .optional(),
  // Issue #34 item 11: the name a reader sees for a series (legend, tooltip), instead of its column's SQL name.
  labels: z
    .record(z.string(), localizedText("each label", 1, 100), {
      error: must(
        "labels",
        'an object mapping y or y2 column names to the names a reader sees, e.g. { "ktv": "spKt/V" }',
      ),
    })
    .meta({
      description:
        'The names a reader sees for the plotted columns (legend, tooltip), e.g. { "ktv": "spKt/V" }; a key ' +
        "must be a column of y or y2. A column without a label is named by its column name.",
    })
    .optional(),
  drill: nodeDrillSchema.optional(),
}).superRefine((node, ctx) => {
  for (const issue of seriesLabelProblems(node)) ctx.addIssue({ code: "custom", ...issue });
  for (const member of ["y2", "y2Label", "refLines"] as const) {
    if (node[member] !== undefined && !AXIS_CHARTS.has(node.chart))
      ctx.addIssue({
        code: "custom",
        path: [member],
        message: `${member} applies to line, bar and area charts, not to a ${node.chart} chart: leave it out.`,
      });
  }
  if (node.y2Label !== undefined && node.y2 === undefined)
    ctx.addIssue({
      code: "custom",
      path: ["y2Label"],
      message: "y2Label names the second y axis: give y2 too, or leave y2Label out.",
    });
  if (node.series !== undefined) {
    const problem =
      node.chart === "pie"
        ? "series applies to line, bar, area and scatter charts, not to a pie chart: leave it out."
        : node.series === node.x
          ? "series names the x column: name another column whose values split the rows into series, or leave it out."
          : [...node.y, ...(node.y2 ?? [])].includes(node.series)
            ? "series names a plotted y column: name a column whose values split the rows into series (e.g. ward), or leave it out."
            : null;
    if (problem) ctx.addIssue({ code: "custom", path: ["series"], message: problem });
  }
  if (node.stacked && node.chart !== "bar" && node.chart !== "area")
    ctx.addIssue({
      code: "custom",
      path: ["stacked"],
      message: `stacked applies to bar and area charts, not to a ${node.chart} chart: leave it out.`,
    });
});

const nodeSchema = z.discriminatedUnion("type", [textNode, statNode, tableNode, chartNode], {
  error: must("type", `one of ${list(NODE_TYPES)}`),
});

const nodesSchema = (subject: string) =>
  z
    .array(nodeSchema, { error: must(subject, "an array of nodes ([] for none)") })
    .max(500, { error: `${subject} may hold at most 500 nodes.` });

const drillArgSchema = strict("each arg", "an object { name, type }", {
  name: identifier("name"),
  type: z.enum(DRILL_ARG_TYPES, { error: must("type", `one of ${list(DRILL_ARG_TYPES)}`) }),
});

const drillSchema = strict("a drill", "an object { title, args, queries, nodes? }", {
  title: localizedText("title", 1, 200),
  args: z
    .array(drillArgSchema, { error: must("args", "an array of { name, type } ([] for none)") })
    .max(50, { error: "args may hold at most 50 args." }),
  queries: queriesSchema("queries", 1),
  nodes: nodesSchema("nodes").optional(),
});

const exportSchema = strict("export", "an object { xlsx?, docx? }", {
  xlsx: z.boolean({ error: "xlsx must be true or false, or be left out (default true)." }).optional(),
  docx: z.boolean({ error: "docx must be true or false, or be left out (default true)." }).optional(),
});

const specObject = strict("The specification", "a JSON object", {
  version: z.literal(1, { error: must("version", "1, the only version of the specification format") }),
  title: localizedText("title", 1, 200),
  description: localized(
    "description",
    z
      .string({ error: "description must be a string of markdown, or be left out." })
      .max(20_000, { error: "description must be at most 20000 characters long." }),
    "a string of markdown",
  ).optional(),
  params: z
    .array(paramSchema, { error: must("params", "an array of params ([] for none)") })
    .max(100, { error: "params may hold at most 100 params." }),
  queries: queriesSchema("queries", 0),
  nodes: nodesSchema("nodes"),
  drills: z
    .record(identifier("a drill name"), drillSchema, {
      error: must("drills", "an object mapping drill names to { title, args, queries }, or be left out"),
    })
    .refine((d) => Object.keys(d).length <= 100, { error: "drills may hold at most 100 drills." })
    .optional(),
  export: exportSchema.optional(),
});

// ---------------------------------------------------------------------------------------------
// Cross-references (run on partial input too, so every problem is listed in one answer)

type Issue = { path: (string | number)[]; message: string };

function names(value: unknown): string[] {
  return isRecord(value) ? Object.keys(value) : [];
}

function oneOfNames(kind: string, known: string[], where: string): string {
  return known.length === 0 ? `${where} has no ${kind}s yet: add one first` : `use one of ${list(known)}`;
}

function checkNodes(
  nodes: unknown,
  basePath: (string | number)[],
  queryNames: string[],
  layer: string,
  drills: unknown,
  issues: Issue[],
) {
  if (!Array.isArray(nodes)) return;
  const seen = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (!isRecord(node)) return;
    const path = [...basePath, i];
    if (typeof node.id === "string") {
      const first = seen.get(node.id);
      if (first !== undefined) {
        issues.push({
          path: [...path, "id"],
          message: `id ${JSON.stringify(node.id)} is already used by ${renderPath([...basePath, first])}: give each node its own id.`,
        });
      } else seen.set(node.id, i);
    }
    if (typeof node.query === "string" && !queryNames.includes(node.query)) {
      issues.push({
        path: [...path, "query"],
        message: `query ${JSON.stringify(node.query)} is not a query of ${layer}: ${oneOfNames("query", queryNames, layer)}.`,
      });
    }
    const drill = node.drill;
    if (!isRecord(drill) || typeof drill.target !== "string") return;
    const targets = names(drills);
    const target = isRecord(drills) ? drills[drill.target] : undefined;
    if (!targets.includes(drill.target)) {
      issues.push({
        path: [...path, "drill", "target"],
        message:
          `target ${JSON.stringify(drill.target)} is not a key of drills: ` +
          `${targets.length === 0 ? "declare it under drills first" : `use one of ${list(targets)}`}.`,
      });
      return;
    }
    if (!isRecord(target) || !Array.isArray(target.args) || !isRecord(drill.args)) return;
    const declared = target.args
      .filter(isRecord)
      .map((a) => a.name)
      .filter((n): n is string => typeof n === "string");
    for (const key of Object.keys(drill.args)) {
      if (!declared.includes(key)) {
        issues.push({
          path: [...path, "drill", "args", key],
          message:
            `${JSON.stringify(key)} is not an arg of drill ${drill.target}: ` +
            `${declared.length === 0 ? "that drill declares no args, so send args: {}" : `use only ${list(declared)}`}.`,
        });
      }
    }
  });
}

function crossReferences(spec: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const queryNames = names(spec.queries);
  const params = Array.isArray(spec.params) ? spec.params : [];
  const paramNames: string[] = [];
  params.forEach((param, i) => {
    if (!isRecord(param)) return;
    if (typeof param.name === "string") {
      const first = paramNames.indexOf(param.name);
      if (first >= 0) {
        issues.push({
          path: ["params", i, "name"],
          message: `name ${JSON.stringify(param.name)} is already used by params[${first}]: give each param its own name.`,
        });
      }
      paramNames.push(param.name);
    }
    const options = param.options;
    if (isRecord(options) && typeof options.query === "string" && !queryNames.includes(options.query)) {
      issues.push({
        path: ["params", i, "options", "query"],
        message: `query ${JSON.stringify(options.query)} is not a query of this report: ${oneOfNames("query", queryNames, "this report")}.`,
      });
    }
  });

  checkNodes(spec.nodes, ["nodes"], queryNames, "this report", spec.drills, issues);

  if (isRecord(spec.drills)) {
    for (const [key, drill] of Object.entries(spec.drills)) {
      if (!isRecord(drill)) continue;
      const argNames: string[] = [];
      if (Array.isArray(drill.args)) {
        drill.args.forEach((arg, i) => {
          if (!isRecord(arg) || typeof arg.name !== "string") return;
          const path = ["drills", key, "args", i, "name"];
          if (argNames.includes(arg.name)) {
            issues.push({
              path,
              message: `name ${JSON.stringify(arg.name)} is declared twice in this drill: give each arg its own name.`,
            });
            return;
          }
          argNames.push(arg.name);
        });
      }
      if (typeof drill.title === "string") {
        for (const named of drillTitleArgs(drill.title)) {
          if (!argNames.includes(named)) {
            issues.push({
              path: ["drills", key, "title"],
              message:
                `title refers to {${named}}, which is not an arg of this drill: ` +
                `${argNames.length === 0 ? "declare the arg or remove the placeholder" : `use one of ${argNames.map((n) => `{${n}}`).join(", ")}`}.`,
            });
          }
        }
      }
      checkNodes(drill.nodes, ["drills", key, "nodes"], names(drill.queries), `drill ${key}`, spec.drills, issues);
    }
  }
  return issues;
}

export const reportSpecSchema = specObject.superRefine(
  (spec, ctx) => {
    for (const issue of crossReferences(spec as Record<string, unknown>)) {
      ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    }
  },
  { when: (payload) => isRecord(payload.value) },
);

export type ReportSpec = z.infer<typeof reportSpecSchema>;
export type ParamDef = z.infer<typeof paramUnion>;
export type ParamType = ParamDef["type"];
export type QueryDef = z.infer<typeof querySchema>;
export type NodeDef = z.infer<typeof nodeSchema>;
export type TableColumnDef = z.infer<typeof tableColumn>;
export type HighlightTone = (typeof HIGHLIGHT_TONES)[number];
export type HighlightRuleDef = z.infer<ReturnType<typeof highlightRule>>;
export type NodeDrill = z.infer<typeof nodeDrillSchema>;
export type DrillDef = z.infer<typeof drillSchema>;
export type DrillArgDef = z.infer<typeof drillArgSchema>;
export type DrillArgType = DrillArgDef["type"];
export type ParamOptions = z.infer<typeof optionsSchema>;

// What a reader is shown (localizedText.ts): the spec with every display string in their language.
export type ShownSpec = Shown<ReportSpec>;
export type ShownParamDef = Shown<ParamDef>;
export type ShownNodeDef = Shown<NodeDef>;
export type ShownTableColumnDef = Shown<TableColumnDef>;
export type ShownDrillDef = Shown<DrillDef>;

// ---------------------------------------------------------------------------------------------
// Problems as { path, message }

type ZodIssue = z.core.$ZodIssue;

function deepest(branches: ZodIssue[][]): ZodIssue[] | null {
  let best: ZodIssue[] | null = null;
  let bestDepth = 0;
  for (const branch of branches) {
    const depth = Math.max(0, ...branch.map((i) => i.path.length));
    if (depth > bestDepth) {
      best = branch;
      bestDepth = depth;
    }
  }
  if (best) return best;
  // None got further than the value itself: the one branch whose type the value has (a string
  // too long for a title that may also be given per language) says what is wrong with it.
  const ofItsType = branches.filter((branch) => !branch.some((i) => i.code === "invalid_type" && i.path.length === 0));
  return ofItsType.length === 1 ? ofItsType[0]! : null;
}

/** A problem of a specification: where (its JSON path), a sentence saying how to fix it, and its kind as a code. */
export interface SpecProblem {
  path: string;
  message: string;
  code: SpecProblemCode;
}

function flatten(issues: readonly ZodIssue[], prefix: PropertyKey[], out: SpecProblem[], spec: unknown) {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // A union of shapes (e.g. options): report the branch the input got furthest into.
      const branch = deepest(issue.errors);
      if (branch) {
        flatten(branch, path, out, spec);
        continue;
      }
    }
    if (issue.code === "unrecognized_keys" && issue.keys.length === 1) {
      // Point at the offending member itself.
      out.push({ path: renderPath([...path, issue.keys[0]!]), message: sentence(issue), code: "spec-unknown-member" });
      continue;
    }
    if (issue.code === "invalid_key" && issue.issues.length > 0) {
      const key = String(path[path.length - 1]);
      out.push({
        path: renderPath(path),
        message: `The name ${JSON.stringify(key)} is not allowed: ${issue.issues[0]!.message}`,
        code: "spec-bad-name",
      });
      continue;
    }
    out.push({ path: renderPath(path), message: sentence(issue), code: problemCode(issue, path, spec) });
  }
}

/**
 * The kinds of problem a page words in its language (issue #54), beside the sentence that says
 * exactly what to fix (which stays English, for API callers and English pages). Only ever added.
 */
export const SPEC_PROBLEM_CODES = [
  "spec-required",
  "spec-unknown-member",
  "spec-bad-name",
  "spec-too-big",
  "spec-too-small",
  "spec-bad-format",
  "spec-not-allowed",
  "spec-sql-refused",
  "spec-invalid",
] as const;
export type SpecProblemCode = (typeof SPEC_PROBLEM_CODES)[number];

function problemCode(issue: ZodIssue, path: readonly PropertyKey[], spec: unknown): SpecProblemCode {
  switch (issue.code) {
    case "invalid_type":
      return valueAt(spec, path) === undefined ? "spec-required" : "spec-invalid";
    case "unrecognized_keys":
      return "spec-unknown-member";
    case "too_big":
      return "spec-too-big";
    case "too_small":
      return "spec-too-small";
    case "invalid_format":
      return "spec-bad-format";
    case "invalid_value":
      return "spec-not-allowed";
    default:
      return "spec-invalid";
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let here = root;
  for (const key of path) {
    if (typeof here !== "object" || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here;
}

/** Zod's own messages are replaced by sentences; every schema above sets its own already. */
function sentence(issue: ZodIssue): string {
  if (
    !issue.message.startsWith("Invalid input") &&
    !issue.message.startsWith("Unrecognized key") &&
    !issue.message.startsWith("Invalid")
  ) {
    return issue.message;
  }
  const last = issue.path[issue.path.length - 1];
  const subject = typeof last === "string" ? last : "this value";
  if (issue.code === "unrecognized_keys")
    return `${subject} does not take the members ${issue.keys.join(", ")}: remove them or fix the spelling.`;
  return `${subject} is not valid here: check it against the specification format.`;
}

/** Every problem of a specification, with its JSON path, a sentence telling how to fix it and its code. */
export function specProblems(spec: unknown): SpecProblem[] {
  const result = reportSpecSchema.safeParse(spec);
  if (result.success) return [];
  const out: SpecProblem[] = [];
  flatten(result.error.issues, [], out, spec);
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// SQL removal and export switches

type Stripped<T> = T extends { queries: Record<string, QueryDef> }
  ? Omit<T, "queries"> & { queries: Record<string, Record<string, never>> }
  : T;
export type StrippedDrillDef = Stripped<DrillDef>;
export type StrippedSpec = Omit<ReportSpec, "queries" | "drills"> & {
  queries: Record<string, Record<string, never>>;
  drills?: Record<string, StrippedDrillDef>;
};
/** The spec a viewing call answers: without SQL, in the reader's language. */
export type ShownStrippedSpec = Shown<StrippedSpec>;
export type ShownStrippedDrillDef = Shown<StrippedDrillDef>;

function stripQueries(queries: unknown): void {
  if (!isRecord(queries)) return;
  for (const query of Object.values(queries)) {
    if (isRecord(query)) delete query.sql;
  }
}

/**
 * A deep copy of the spec with the `sql` member of every query removed (top-level queries and
 * the queries of every drill); query names stay: `queries: { monthly: {} }`.
 */
export function stripSql(spec: ReportSpec): StrippedSpec {
  const copy = structuredClone(spec) as unknown as Record<string, unknown>;
  stripQueries(copy.queries);
  if (isRecord(copy.drills)) {
    for (const drill of Object.values(copy.drills)) {
      if (isRecord(drill)) stripQueries(drill.queries);
    }
  }
  return copy as unknown as StrippedSpec;
}

/** Whether the spec allows an export format; both default to true. */
export function exportEnabled(spec: Pick<ReportSpec, "export">, format: "xlsx" | "docx"): boolean {
  return spec.export?.[format] !== false;
}

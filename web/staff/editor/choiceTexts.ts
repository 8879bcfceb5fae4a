import type {
  CHART_KINDS,
  COLUMN_ALIGNS,
  DRILL_ARG_TYPES,
  NODE_TYPES,
  PARAM_TYPES,
} from "../../../commands/reports/spec/specVocabulary.ts";
import type { Lang } from "../../types.ts";

/**
 * The editor's drop-down choices in words (issue #34 item 6: the lists showed the spec's raw
 * values, "multiSelect", "scatter", in Chinese too). Each choice reads as the word alone (issue #54:
 * "表格 (table)" mixed two languages on one page); the spec's value is the option's value, which the
 * JSON view shows.
 */
export interface ChoiceTexts {
  nodeTypes: Record<(typeof NODE_TYPES)[number], string>;
  chartKinds: Record<(typeof CHART_KINDS)[number], string>;
  paramTypes: Record<(typeof PARAM_TYPES)[number], string>;
  argTypes: Record<(typeof DRILL_ARG_TYPES)[number], string>;
  aligns: Record<(typeof COLUMN_ALIGNS)[number], string>;
  booleans: { true: string; false: string };
}

const zh: ChoiceTexts = {
  nodeTypes: { text: "文字", stat: "指标", table: "表格", chart: "图表" },
  chartKinds: { line: "折线图", bar: "柱状图", area: "面积图", pie: "饼图", scatter: "散点图" },
  paramTypes: {
    date: "日期",
    dateRange: "日期范围",
    number: "数字",
    numberRange: "数字范围",
    text: "文字",
    select: "单选",
    multiSelect: "多选",
    boolean: "是/否",
  },
  argTypes: { date: "日期", number: "数字", text: "文字", boolean: "是/否" },
  aligns: { left: "左对齐", center: "居中", right: "右对齐" },
  booleans: { true: "是", false: "否" },
};

const en: ChoiceTexts = {
  nodeTypes: { text: "Text", stat: "Figure", table: "Table", chart: "Chart" },
  chartKinds: { line: "Line chart", bar: "Bar chart", area: "Area chart", pie: "Pie chart", scatter: "Scatter plot" },
  paramTypes: {
    date: "Date",
    dateRange: "Date range",
    number: "Number",
    numberRange: "Number range",
    text: "Text",
    select: "One choice",
    multiSelect: "Several choices",
    boolean: "Yes/no",
  },
  argTypes: { date: "Date", number: "Number", text: "Text", boolean: "Yes/no" },
  aligns: { left: "Left", center: "Centre", right: "Right" },
  booleans: { true: "Yes", false: "No" },
};

export const choiceTextsFor = (lang: Lang): ChoiceTexts => (lang === "en" ? en : zh);

/** The choices of a drop-down: each value with its word in the page's language. */
export const worded = <V extends string>(values: readonly V[], words: Record<V, string>): Array<readonly [V, string]> =>
  values.map((value) => [value, words[value]] as const);

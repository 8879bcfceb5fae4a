import type { Lang } from "../../types.ts";
import { choiceTextsFor, type ChoiceTexts } from "./choiceTexts.ts";
import { columnTextsFor, type ColumnTexts } from "./columnTexts.ts";
import type { CompletionKinds } from "./codeEditors.ts";

/** The report editor's own words (its bundle is loaded apart from the other staff pages). */
export interface EditorTexts {
  newReport: string;
  editReport: (title: string) => string;
  editorIntro: string;
  reportId: string;
  reportIdHint: string;
  reportIdInvalid: string;
  datasource: string;
  datasourceHint: string;
  formView: string;
  jsonView: string;
  jsonHint: string;
  jsonBroken: string;
  views: string;

  save: string;
  saving: string;
  saved: (time: string) => string;
  unsaved: string;
  publish: string;
  publishing: string;
  discard: string;
  discarding: string;
  discardConfirm: string;
  discarded: string;
  published: (version: string) => string;
  restored: (version: string) => string;
  noDraftYet: string;
  leaveUnsaved: string;

  problemsTitle: (count: number) => string;
  conflictTitle: string;
  loadTheirs: string;
  overwrite: string;
  goTo: string;
  auditTitle: (grade: string, score: number) => string;
  auditNone: string;

  preview: string;
  previewIntro: string;
  previewFrame: (title: string) => string;
  previewEmpty: string;
  openPreview: string;

  basics: string;
  title: string;
  description: string;
  descriptionHint: string;
  exportXlsx: string;
  exportDocx: string;

  params: string;
  paramsIntro: string;
  addParam: string;
  param: (name: string) => string;
  name: string;
  label: string;
  type: string;
  required: string;
  defaultValue: string;
  defaultHint: string;
  from: string;
  to: string;
  noValue: string;
  options: string;
  optionsFromQuery: string;
  optionsListed: string;
  optionsQuery: string;
  value: string;
  addOption: string;

  queries: string;
  queriesIntro: string;
  addQuery: string;
  query: (name: string) => string;
  queryName: string;
  sqlOf: (name: string) => string;
  /** The badge words of the SQL completions (codeEditors.ts). */
  completionKinds: CompletionKinds;
  /** Where a query failed when the draft was saved (line and column of its SQL, when the database said), leading into its sentence. */
  queryFailed: (line: number | null, column: number | null) => string;

  nodes: string;
  nodesIntro: string;
  addNode: string;
  node: (id: string, type: string) => string;
  nodeId: string;
  nodeType: string;
  width: string;
  widthHint: string;
  markdown: string;
  printed: string;
  queryOfNode: string;
  column: string;
  format: string;
  formatHint: string;
  statFormatHint: string;
  unit: string;
  align: string;
  columns: string;
  columnsHint: string;
  addColumn: string;
  chartKind: string;
  x: string;
  y: string;
  y2: string;
  listHint: string;
  xLabel: string;
  yLabel: string;
  y2Label: string;
  stacked: string;
  refLines: string;
  addRefLine: string;
  seriesLabels: string;
  seriesLabelsHint: string;
  addSeriesLabel: string;
  highlight: string;
  highlightHint: string;
  addRule: string;
  below: string;
  above: string;
  between: string;
  tone: string;
  tones: Record<string, string>;
  /** The drop-down lists' choices in words. */
  choices: ChoiceTexts;
  /** The column pickers, series and schema browser (issue #54). */
  columnWords: ColumnTexts;
  drill: string;
  drillTarget: string;
  drillNone: string;
  drillArgs: string;
  arg: string;
  addArg: string;

  drills: string;
  drillsIntro: string;
  addDrill: string;
  drillName: string;
  drillTitle: string;
  drillTitleHint: string;
  drillArgDefs: string;
  drillNodes: string;

  remove: string;
  removeWhat: (what: string) => string;
  moveUp: string;
  moveDown: string;
  none: string;
  invalidNumber: string;
  invalidJson: string;

  versions: string;
  versionsIntro: string;
  restore: string;
  restoreTitle: (version: string) => string;
  restoreNoteHint: (version: string) => string;
  restoring: string;
  note: string;
  publishTitle: string;
  mode: string;
  /** What a mode does, after its name ("dynamic — fresh data …"): never the name again. */
  modeHints: Record<string, string>;
  publishNoteHint: string;
  /** The publish dialog of a draft whose queries failed when it was saved: what viewers will see, and the confirmation. */
  publishFailing: (count: number) => string;
  publishAnyway: string;
  publishAnywayFirst: string;
  compare: string;
  compareIntro: string;
  compareFrom: string;
  compareTo: string;
  showChanges: string;
  noChanges: string;
  changesOf: (from: string, to: string) => string;
  where: string;
  before: string;
  after: string;
  absent: string;
  sqlRedacted: string;
  draft: string;
}

const zh: Omit<EditorTexts, "choices" | "columnWords"> = {
  newReport: "新建报表",
  editReport: (title) => `编辑报表：${title}`,
  editorIntro: "用表单或 JSON 编辑报表，点击“保存并预览”在右侧查看草稿；满意后发布为新版本。",
  reportId: "报表标识",
  reportIdHint: "1 至 64 个小写字母、数字或 '-'，以字母或数字开头；保存后不能更改。",
  reportIdInvalid: "报表标识须为 1 至 64 个小写字母、数字或 '-'，以字母或数字开头。",
  datasource: "数据源",
  datasourceHint: "默认 clinical（透析临床数据）。",
  formView: "表单",
  jsonView: "JSON",
  jsonHint: "报表规格的 JSON；修改会同步到表单。",
  jsonBroken: "JSON 有语法错误：请先修正，再切换到表单或保存。",
  views: "编辑方式",

  save: "保存并预览",
  saving: "正在保存…",
  saved: (time) => `草稿已于 ${time} 保存。`,
  unsaved: "有未保存的修改。",
  publish: "发布…",
  publishing: "正在发布…",
  discard: "放弃草稿",
  discarding: "正在放弃…",
  discardConfirm: "放弃草稿？未发布的修改将丢失，已发布的版本不受影响。",
  discarded: "草稿已放弃。",
  published: (version) => `已发布为 ${version}。`,
  restored: (version) => `已恢复为新版本 ${version}。`,
  noDraftYet: "还没有草稿：保存后即可预览。",
  leaveUnsaved: "有未保存的修改，确定离开？",

  problemsTitle: (count) => `服务拒绝了草稿（${count} 个问题）：`,
  conflictTitle: "草稿已被他人修改。",
  loadTheirs: "载入已保存的草稿（放弃我的修改）",
  overwrite: "仍然保存我的版本（覆盖）",
  goTo: "定位",
  auditTitle: (grade, score) => `审核：${grade}（${score} 分）`,
  auditNone: "审核没有发现问题。",

  preview: "预览",
  previewIntro: "草稿在嵌入页面中的样子；可在其中选择筛选条件。",
  previewFrame: (title) => `预览：${title}`,
  previewEmpty: "保存草稿后在此显示预览。",
  openPreview: "在新标签页打开",

  basics: "基本信息",
  title: "标题",
  description: "说明",
  descriptionHint: "可选，Markdown 格式，显示在报表标题下方。",
  exportXlsx: "允许导出 Excel（xlsx）",
  exportDocx: "允许导出 Word（docx）",

  params: "筛选条件",
  paramsIntro: "查看者可以修改的值；在 SQL 中以 {{名称}} 引用。",
  addParam: "添加筛选条件",
  param: (name) => `筛选条件 ${name}`,
  name: "名称",
  label: "显示名称",
  type: "类型",
  required: "必填",
  defaultValue: "默认值",
  defaultHint: "留空表示不限制。",
  from: "从",
  to: "到",
  noValue: "（不限）",
  options: "选项",
  optionsFromQuery: "选项来源",
  optionsListed: "固定列表",
  optionsQuery: "查询",
  value: "值",
  addOption: "添加选项",

  queries: "查询",
  queriesIntro: "每个查询是一条只读的 select 语句；筛选条件以 {{名称}} 绑定，[[ … ]] 为可选子句。",
  addQuery: "添加查询",
  query: (name) => `查询 ${name}`,
  queryName: "查询名称",
  sqlOf: (name) => `查询 ${name} 的 SQL`,
  completionKinds: { keyword: "关键字", type: "类型", table: "表", property: "列", item: "项目", constant: "别名" },
  queryFailed: (line, column) =>
    line === null ? "保存草稿时这个查询运行失败：" : `保存草稿时这个查询运行失败，位置在第 ${line} 行第 ${column} 列：`,

  nodes: "内容",
  nodesIntro: "报表从上到下显示的文字、指标、表格和图表。",
  addNode: "添加内容",
  node: (id, type) => `${type} ${id}`,
  nodeId: "标识",
  nodeType: "类型",
  width: "宽度",
  widthHint: "栅格 1–12 列；留空为整行。",
  markdown: "文字（Markdown）",
  printed: "也出现在打印和 Word 导出中（只供屏幕阅读的提示，如“点击某月”，请取消勾选）",
  queryOfNode: "查询",
  column: "列",
  format: "格式",
  formatHint: "number:1、percent:1、date、datetime 或 month（月份）；可留空。",
  statFormatHint: "如 0.00、#,##0 或 number:1；可留空。",
  unit: "单位",
  align: "对齐",
  columns: "列",
  columnsHint: "留空则显示查询的全部列。",
  addColumn: "添加列",
  chartKind: "图表类型",
  x: "横轴列",
  y: "纵轴列",
  y2: "右侧纵轴列",
  listHint: "列名，用逗号分隔。",
  xLabel: "横轴名称",
  yLabel: "纵轴名称",
  y2Label: "右侧纵轴名称",
  stacked: "堆叠",
  refLines: "参考线",
  addRefLine: "添加参考线",
  seriesLabels: "系列名称",
  seriesLabelsHint: "图例和提示框中代替列名显示的名称，例如列 ktv 显示为 spKt/V。只能填写纵轴列或右侧纵轴列。",
  addSeriesLabel: "添加系列名称",
  highlight: "条件高亮",
  highlightHint: "第一条匹配的规则决定颜色；每条规则只填“低于”“高于”“介于”之一。",
  addRule: "添加规则",
  below: "低于",
  above: "高于",
  between: "介于",
  tone: "标记",
  tones: { danger: "危险（红）", warning: "警示（黄）", ok: "达标（绿）" },
  drill: "下钻",
  drillTarget: "下钻目标",
  drillNone: "（无）",
  drillArgs: "参数取自列",
  arg: "参数",
  addArg: "添加参数",

  drills: "下钻",
  drillsIntro: "点击图表或表格的一行后打开的明细层，有自己的参数和查询。",
  addDrill: "添加下钻",
  drillName: "下钻名称",
  drillTitle: "标题",
  drillTitleHint: "可以用 {参数名} 插入参数值。",
  drillArgDefs: "参数",
  drillNodes: "下钻的内容（留空则每个查询显示为表格）",

  remove: "删除",
  removeWhat: (what) => `删除${what}`,
  moveUp: "上移",
  moveDown: "下移",
  none: "（无）",
  invalidNumber: "请输入数字。",
  invalidJson: "不是有效的 JSON。",

  versions: "版本",
  versionsIntro: "每次发布都是一个新版本；可以恢复任一旧版本，或比较两个版本。",
  restore: "恢复",
  restoreTitle: (version) => `恢复 ${version}`,
  restoreNoteHint: (version) => `可选；默认为“restored from ${version}”。`,
  restoring: "正在恢复…",
  note: "说明",
  publishTitle: "发布草稿",
  mode: "模式",
  modeHints: { dynamic: "每次打开时查询最新数据。", snapshot: "发布时冻结数据。" },
  publishNoteHint: "这个版本改了什么。",
  publishFailing: (count) =>
    `这个草稿有 ${count} 个查询在用筛选默认值运行时失败；照此发布，查看者会在这些查询的位置看到错误：`,
  publishAnyway: "我知道这些查询会失败，仍然发布",
  publishAnywayFirst: "要发布含失败查询的草稿，请先勾选“仍然发布”；或者取消，改正查询后再保存。",
  compare: "比较版本",
  compareIntro: "并排显示两个版本的规格有何不同。",
  compareFrom: "旧版本",
  compareTo: "新版本",
  showChanges: "显示差异",
  noChanges: "两个版本的规格相同。",
  changesOf: (from, to) => `${from} → ${to} 的差异`,
  where: "位置",
  before: "之前",
  after: "之后",
  absent: "（无）",
  sqlRedacted: "（SQL 已修改，仅作者可见）",
  draft: "草稿",
};

const en: Omit<EditorTexts, "choices" | "columnWords"> = {
  newReport: "New report",
  editReport: (title) => `Edit report: ${title}`,
  editorIntro:
    "Edit the report in the form or as JSON; “Save and preview” shows the draft on the right. Publish it as a new version when it is right.",
  reportId: "Report id",
  reportIdHint:
    "1 to 64 lower-case letters, digits or '-', starting with a letter or digit; it cannot change once saved.",
  reportIdInvalid: "The report id must be 1 to 64 lower-case letters, digits or '-', starting with a letter or digit.",
  datasource: "Data source",
  datasourceHint: "Default: clinical (the dialysis clinical data).",
  formView: "Form",
  jsonView: "JSON",
  jsonHint: "The report's specification as JSON; changes show in the form too.",
  jsonBroken: "The JSON has a syntax error: fix it before switching to the form or saving.",
  views: "Editing view",

  save: "Save and preview",
  saving: "Saving…",
  saved: (time) => `Draft saved at ${time}.`,
  unsaved: "There are unsaved changes.",
  publish: "Publish…",
  publishing: "Publishing…",
  discard: "Discard draft",
  discarding: "Discarding…",
  discardConfirm: "Discard the draft? Unpublished changes are lost; published versions stay as they are.",
  discarded: "The draft was discarded.",
  published: (version) => `Published as ${version}.`,
  restored: (version) => `Restored as the new version ${version}.`,
  noDraftYet: "There is no draft yet: save to preview it.",
  leaveUnsaved: "There are unsaved changes. Leave anyway?",

  problemsTitle: (count) => `The service refused the draft (${count} ${count === 1 ? "problem" : "problems"}):`,
  conflictTitle: "Someone else changed the draft.",
  loadTheirs: "Load the saved draft (drop my changes)",
  overwrite: "Save mine anyway (overwrite)",
  goTo: "Go to",
  auditTitle: (grade, score) => `Audit: ${grade} (score ${score})`,
  auditNone: "The audit found nothing.",

  preview: "Preview",
  previewIntro: "The draft as the embed page shows it; choose filter values in it.",
  previewFrame: (title) => `Preview: ${title}`,
  previewEmpty: "The preview shows here once the draft is saved.",
  openPreview: "Open in a new tab",

  basics: "Basics",
  title: "Title",
  description: "Description",
  descriptionHint: "Optional markdown, shown under the title.",
  exportXlsx: "Allow export to Excel (xlsx)",
  exportDocx: "Allow export to Word (docx)",

  params: "Filters",
  paramsIntro: "Values the viewer may change; the SQL reads them as {{name}}.",
  addParam: "Add filter",
  param: (name) => `Filter ${name}`,
  name: "Name",
  label: "Label",
  type: "Type",
  required: "Required",
  defaultValue: "Default",
  defaultHint: "Empty means no restriction.",
  from: "From",
  to: "To",
  noValue: "(any)",
  options: "Options",
  optionsFromQuery: "Options from",
  optionsListed: "a fixed list",
  optionsQuery: "a query",
  value: "Value",
  addOption: "Add option",

  queries: "Queries",
  queriesIntro:
    "Each query is one read-only select statement; filters bind as {{name}}, and [[ … ]] is an optional clause.",
  addQuery: "Add query",
  query: (name) => `Query ${name}`,
  queryName: "Query name",
  sqlOf: (name) => `SQL of query ${name}`,
  completionKinds: {
    keyword: "keyword",
    type: "type",
    table: "table",
    property: "column",
    item: "item",
    constant: "alias",
  },
  queryFailed: (line, column) =>
    line === null
      ? "This query failed when the draft was saved: "
      : `This query failed when the draft was saved, at line ${line}, column ${column}: `,

  nodes: "Content",
  nodesIntro: "The texts, figures, tables and charts of the report, from top to bottom.",
  addNode: "Add content",
  node: (id, type) => `${type} ${id}`,
  nodeId: "Id",
  nodeType: "Type",
  width: "Width",
  widthHint: "1–12 columns of the grid; empty for a full row.",
  markdown: "Text (markdown)",
  printed: "Also in print and the Word export (untick for hints meant for the screen, such as “click a month”)",
  queryOfNode: "Query",
  column: "Column",
  format: "Format",
  formatHint: "number:1, percent:1, date, datetime or month; may be empty.",
  statFormatHint: "e.g. 0.00, #,##0 or number:1; may be empty.",
  unit: "Unit",
  align: "Align",
  columns: "Columns",
  columnsHint: "None listed: every column of the query.",
  addColumn: "Add column",
  chartKind: "Chart",
  x: "x column",
  y: "y columns",
  y2: "Right-axis columns",
  listHint: "Column names, separated by commas.",
  xLabel: "x axis name",
  yLabel: "y axis name",
  y2Label: "Right axis name",
  stacked: "Stacked",
  refLines: "Reference lines",
  addRefLine: "Add reference line",
  seriesLabels: "Series names",
  seriesLabelsHint:
    "What the legend and tooltip show instead of a column's name, e.g. spKt/V for column ktv. Only y or right-axis columns.",
  addSeriesLabel: "Add series name",
  highlight: "Highlight",
  highlightHint: "The first rule that matches marks the value; give each rule one of below, above or between.",
  addRule: "Add rule",
  below: "Below",
  above: "Above",
  between: "Between",
  tone: "Tone",
  tones: { danger: "danger (red)", warning: "warning (amber)", ok: "ok (green)" },
  drill: "Drill-through",
  drillTarget: "Drill target",
  drillNone: "(none)",
  drillArgs: "Args from columns",
  arg: "Arg",
  addArg: "Add arg",

  drills: "Drill-throughs",
  drillsIntro: "Detail layers opened by clicking a chart or a table row, with their own args and queries.",
  addDrill: "Add drill-through",
  drillName: "Drill name",
  drillTitle: "Title",
  drillTitleHint: "{arg} puts in an arg's value.",
  drillArgDefs: "Args",
  drillNodes: "Content of the drill-through (none: each query as a table)",

  remove: "Remove",
  removeWhat: (what) => `Remove ${what}`,
  moveUp: "Move up",
  moveDown: "Move down",
  none: "(none)",
  invalidNumber: "Enter a number.",
  invalidJson: "This is not valid JSON.",

  versions: "Versions",
  versionsIntro: "Each publish makes a new version; restore any old one, or compare two.",
  restore: "Restore",
  restoreTitle: (version) => `Restore ${version}`,
  restoreNoteHint: (version) => `Optional; default “restored from ${version}”.`,
  restoring: "Restoring…",
  note: "Note",
  publishTitle: "Publish the draft",
  mode: "Mode",
  modeHints: { dynamic: "fresh data each time it is opened.", snapshot: "the data frozen now." },
  publishNoteHint: "What this version changes.",
  publishFailing: (count) =>
    `${count === 1 ? "1 query of this draft fails" : `${count} queries of this draft fail`} when run with the filters' defaults; published as it is, viewers see the error in ${count === 1 ? "its place" : "their places"}:`,
  publishAnyway: "I know these queries fail: publish anyway",
  publishAnywayFirst:
    "To publish a draft whose queries fail, tick “publish anyway” first; or cancel, correct the queries and save again.",
  compare: "Compare versions",
  compareIntro: "What differs between two versions' specifications, side by side.",
  compareFrom: "Older",
  compareTo: "Newer",
  showChanges: "Show differences",
  noChanges: "The two versions' specifications are the same.",
  changesOf: (from, to) => `Changes from ${from} to ${to}`,
  where: "Where",
  before: "Before",
  after: "After",
  absent: "(none)",
  sqlRedacted: "(SQL changed; shown to authors only)",
  draft: "draft",
};

const EDITOR_TEXTS: Record<Lang, EditorTexts> = {
  zh: { ...zh, choices: choiceTextsFor("zh"), columnWords: columnTextsFor("zh") },
  en: { ...en, choices: choiceTextsFor("en"), columnWords: columnTextsFor("en") },
};

export const editorTextsFor = (lang: Lang): EditorTexts => EDITOR_TEXTS[lang];

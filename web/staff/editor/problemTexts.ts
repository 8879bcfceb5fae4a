/**
 * A refused spec's problems as a Chinese page says them (issue #54: they read as the service's
 * English with raw JSON paths): what is wrong by the problem's code, and where as the form names
 * it ("第 1 个内容 › 标识"), not `nodes[0].id`. An English page keeps the service's sentence, which
 * says exactly what to fix, and the path.
 */
import type { SpecProblemCode } from "../../../commands/reports/spec/specSchema.ts";
import type { Segment } from "./specPaths.ts";

export const PROBLEM_ZH: Record<SpecProblemCode, string> = {
  "spec-required": "此项必须填写。",
  "spec-unknown-member": "报表规格中没有这一项：请删除它，或检查拼写。",
  "spec-bad-name": "这个名称不能使用：请只用字母、数字和下划线，以字母开头。",
  "spec-too-big": "超出了允许的上限（太长或太多）：请缩短或减少。",
  "spec-too-small": "少于要求的下限：请补充。",
  "spec-bad-format": "格式不对：请按报表规格说明中的格式填写。",
  "spec-not-allowed": "不是允许的取值：请从可选的值中选择。",
  "spec-sql-refused": "报表查询只能是一条只读的 select 语句，且只读取数据源提供的表。",
  "spec-invalid": "取值无效：请对照报表规格说明修改。",
};

/** The spec's members as the form's fields name them. */
const MEMBERS_ZH: Record<string, string> = {
  nodes: "内容",
  queries: "查询",
  params: "筛选条件",
  drills: "下钻",
  title: "标题",
  description: "说明",
  id: "标识",
  query: "查询",
  sql: "SQL",
  type: "类型",
  chart: "图表类型",
  x: "横轴列",
  y: "纵轴列",
  y2: "右侧纵轴列",
  xLabel: "横轴名称",
  yLabel: "纵轴名称",
  y2Label: "右侧纵轴名称",
  series: "系列",
  labels: "名称",
  label: "标签",
  columns: "列",
  column: "列",
  unit: "单位",
  format: "格式",
  align: "对齐",
  default: "默认值",
  options: "选项",
  required: "必填",
  name: "名称",
  value: "值",
  markdown: "文字（Markdown）",
  width: "宽度",
  args: "参数",
  target: "目标",
  drill: "下钻",
  highlight: "高亮",
  refLines: "参考线",
  stacked: "堆叠",
  export: "导出",
  version: "格式版本",
  zh: "中文",
  en: "英文",
};

/** Members whose entries are named by the author (a query's name, a drill's): said as written. */
const NAMED = new Set(["queries", "drills", "labels", "args"]);

/**
 * Where a problem is, in words and names: `nodes[0].id` → ["第 1 个内容", "编号"]; an author's
 * name (a query's) or a member the format does not know stays as written, marked as code.
 */
export function placeZh(path: readonly Segment[]): Array<string | { code: string }> {
  const parts: Array<string | { code: string }> = [];
  path.forEach((segment, i) => {
    const before = path[i - 1];
    if (typeof segment === "number") {
      const owner = typeof before === "string" ? MEMBERS_ZH[before] : undefined;
      if (owner && parts.length) parts.pop();
      parts.push(`第 ${segment + 1} 个${owner ?? "项"}`);
    } else if (typeof before === "string" && NAMED.has(before)) parts.push({ code: segment });
    else parts.push(MEMBERS_ZH[segment] ?? { code: segment });
  });
  return parts;
}
